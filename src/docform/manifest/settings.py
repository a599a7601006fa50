"""Settings (``docform:``): the API to use, pruning per kind, safety limits, ignored fields.

The API token is never written in manifests: it comes from DOCFORM_API_TOKEN only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field, PrivateAttr, create_model, field_validator

from docform.kind_registry import address_kinds, prune_keys
from docform.model.entry import ManifestModel, address_head

ADDRESS_KINDS = address_kinds()
_API_PATTERN = re.compile(r"^(https?://\S+|sandbox:\S+)$")


def _check_ignore_pattern(pattern: str) -> str:
    kind = address_head(pattern.split(".", 1)[0])
    if not pattern or any(ch.isspace() for ch in pattern):
        raise ValueError(f"'{pattern}' is not an address pattern")
    if kind not in (*ADDRESS_KINDS, "*"):
        close = difflib.get_close_matches(kind, ADDRESS_KINDS, n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}?" if close else "no kind is close to it"
        raise ValueError(
            f"'{pattern}' must start with a kind as addresses name it, or * ({hint}); "
            "`docform state list DIR` lists the addresses"
        )
    return pattern


IgnorePattern = Annotated[str, AfterValidator(_check_ignore_pattern)]


def _prune_fields() -> dict[str, Any]:
    return {key: (bool, Field(False, description=d)) for key, d in prune_keys()}


PruneSettings: type[ManifestModel] = create_model(
    "PruneSettings",
    __base__=ManifestModel,
    __doc__=(
        "Per kind: delete live objects no entry matches (members: remove from the "
        "organization).\n\nEvery kind defaults to false: unmatched objects are listed in the "
        "plan and left alone."
    ),
    __module__=__name__,
    **_prune_fields(),
)


class LimitSettings(ManifestModel):
    """Safety rails of apply and the concurrency of its calls."""

    maxDeletions: int = Field(10, ge=0, description="Most deletions one apply may make.")
    maxDeletionShare: float = Field(
        0.25, ge=0, le=1, description="Most deletions as a share of the managed objects of a kind."
    )
    deletionShareFloor: int = Field(
        10,
        ge=0,
        description="maxDeletionShare applies only to kinds with at least this many live objects.",
    )
    parallelism: int = Field(8, ge=1, le=64, description="Concurrent API calls during apply.")


class Settings(ManifestModel):
    """``docform:``. No value here may read the environment (``${env:NAME}``): these are shown
    in messages and plans, and only secret fields may hold secrets."""

    unknown_key_hints: ClassVar[Mapping[str, str]] = {
        "token": "never write the API token in manifests: set DOCFORM_API_TOKEN",
        "apiToken": "never write the API token in manifests: set DOCFORM_API_TOKEN",
    }

    api: str | None = Field(
        None,
        description="https:// URL of the API, or sandbox:FILE.sqlite for the built-in sandbox "
        "(relative to the manifest directory). DOCFORM_API_URL overrides it.",
    )
    prune: PruneSettings = Field(default_factory=PruneSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    ignore: list[IgnorePattern] = Field(
        default_factory=list,
        description="Addresses (team.platform, space.*) or address.field patterns that plan "
        "and drift leave alone.",
    )

    _ignore_locations: list[str] = PrivateAttr(default_factory=list)

    @property
    def ignore_locations(self) -> list[str]:
        """``FILE:LINE:COL`` of each ``ignore`` pattern, in order (empty when not loaded from
        files)."""
        return self._ignore_locations

    @ignore_locations.setter
    def ignore_locations(self, value: list[str]) -> None:
        self._ignore_locations = value

    @field_validator("api")
    @classmethod
    def _check_api(cls, value: str | None) -> str | None:
        if value is not None and not _API_PATTERN.match(value):
            raise ValueError("must be an http(s):// URL or sandbox:FILE")
        return value
