"""A site's adaptive content schema (``GET``/``PUT .../sites/{siteId}/adaptive-schema``): the
claims a visitor may carry, as the strict JSON Schema subset the API takes, and the claims a
condition refers to.

Shared by the manifest (a site's ``adaptiveContent.schema``, and the conditions of its
structure checked against it) and the sandbox (which validates the PUT body with it). The API
does not state its expression language; docform reads a claim in a condition as
``visitor.claims.NAME`` (``.NAME`` again into an object claim), the unsigned ones as
``visitor.claims.unsigned.NAME``, and checks only that each one the schema defines.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
UNSIGNED_DESCRIPTION: Final = "Unsigned claims of the site visitor."
CLAIM_REFERENCE = re.compile(r"\bvisitor\.claims((?:\.[A-Za-z_$][A-Za-z0-9_$-]*)+)")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True, defer_build=True)


class BooleanClaim(Strict):
    type: Literal["boolean"]
    description: str


class StringClaim(Strict):
    type: Literal["string"]
    description: str
    enum: list[str] | None = None


class NumberClaim(Strict):
    type: Literal["number"]
    description: str


Scalar = Annotated[BooleanClaim | StringClaim | NumberClaim, Field(discriminator="type")]


class ArrayClaim(Strict):
    type: Literal["array"]
    description: str
    items: Scalar


class ObjectClaim(Strict):
    type: Literal["object"]
    description: str
    properties: dict[str, Claim]
    additionalProperties: Literal[False] = False


Claim = Annotated[
    BooleanClaim | StringClaim | NumberClaim | ArrayClaim | ObjectClaim,
    Field(discriminator="type"),
]


class UnsignedClaims(Strict):
    type: Literal["object"] = "object"
    description: Literal["Unsigned claims of the site visitor."] = UNSIGNED_DESCRIPTION
    properties: dict[str, Claim]
    additionalProperties: Literal[False] = False


class VisitorSchema(Strict):
    """The claims of a site's visitors; ``unsigned`` holds those the visitor may set."""

    schema_uri: Literal["http://json-schema.org/draft-07/schema#"] | None = Field(
        None, alias="$schema"
    )
    type: Literal["object"] = "object"
    properties: dict[str, Claim | UnsignedClaims]
    additionalProperties: Literal[False] = False


def as_sent(schema: VisitorSchema) -> dict[str, Any]:
    """The schema as a PUT sends it, and as the service answers it."""
    return schema.model_dump(by_alias=True, exclude_none=True)


def claim_names(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Every claim by its dotted name (``plan``, ``unsigned.beta``, ``account.tier``)."""
    return dict(_claims(schema.get("properties") or {}, ""))


def _claims(properties: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for name, claim in properties.items():
        dotted = f"{prefix}{name}"
        if not isinstance(claim, Mapping):
            continue
        unsigned = not prefix and name == "unsigned"  # its type may be left to the default
        if claim.get("type") == "object" or unsigned:
            yield from _claims(claim.get("properties") or {}, f"{dotted}.")
            if not unsigned:
                yield dotted, claim
        else:
            yield dotted, claim


def condition_problems(
    condition: str, schema: Mapping[str, Any], whose: str = "the site's"
) -> list[str]:
    """What ``condition`` refers to that ``schema`` (``whose`` adaptive schema) lacks."""
    known = claim_names(schema)
    problems = []
    for match in CLAIM_REFERENCE.finditer(condition):
        name = match.group(1)[1:]
        if name in known or any(k.startswith(f"{name}.") for k in known):
            continue
        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f" (did you mean 'visitor.claims.{close[0]}'?)" if close else ""
        listed = ", ".join(sorted(known)) or "none"
        problems.append(
            f"visitor.claims.{name} is not a claim of {whose} adaptive schema{hint}; "
            f"its claims: {listed}"
        )
    return problems


ConditionPath = tuple[str | int, ...]


def conditions_of(entry: Any) -> Iterator[tuple[ConditionPath, str]]:
    """``(path in the entry, condition)`` of each condition a manifest entry writes: its own
    ``condition``, and those of the header items of its ``customization`` (a site's document
    or a site space's overrides)."""
    condition = getattr(entry, "condition", None)
    if isinstance(condition, str):
        yield ("condition",), condition
    block = getattr(entry, "customization", None)
    if block is None:
        return
    written = getattr(block, "written", None)
    if written is None:
        written = block.model_dump(exclude_unset=True, mode="json")
    for path, item_condition in header_conditions(written):
        yield ("customization", *path), item_condition


def header_conditions(document: Any) -> Iterator[tuple[ConditionPath, str]]:
    """``(path, condition)`` of each header item of a customization document (as written)
    shown only under a condition."""
    header = document.get("header") if isinstance(document, Mapping) else None
    items = header.get("links") if isinstance(header, Mapping) else None
    for index, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, Mapping) and isinstance(item.get("condition"), str):
            yield ("header", "links", index, "condition"), item["condition"]
