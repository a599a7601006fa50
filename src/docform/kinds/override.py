"""Per-site-space overrides of a site's customization (``customization:`` on a site space):
what that site space shows differently from its site
(``GET``/``PATCH``/``DELETE .../sites/{siteId}/site-spaces/{siteSpaceId}/customization``).

The block is an override as the API takes it: a field left out is not managed, a value sets
it, ``null`` clears it (the site's value shows again). With ``managed: whole`` the block is
every override the site space has: each field it leaves out shows the site's value, and a plan
that clears any is one ``DELETE`` (which clears them all), then one ``PATCH`` of the written
fields the site's values do not already give. The API answers the effective document (the
site's values where nothing overrides them) and says nothing of which fields are overridden, so
a value is compared with the effective one, and a null is met when the effective value is the
site's (overridden with the site's own value or not: it shows the same). Each site that has
such a site space has its own customization read too (one GET per site and one per site space
writing the block; export reads every site space's). Export writes the fields whose effective
value differs from the site's: those are overridden.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import site_id, under_site
from docform.kind_framework.rest import id_in_path, site_prefix
from docform.kind_framework.settings import SettingsKind
from docform.kinds.customization_block import has_leaf, value_at
from docform.service.site_overrides import Override, override_leaves

LEAVES = tuple(override_leaves())


MANAGED_DESCRIPTION = (
    "fields (default): only the fields written are managed; whole: the block is every "
    "override of the site space, and each field it leaves out shows the site's value"
)


class OverrideBlock(Override):
    """A site space's ``customization:`` as written (see the module's doc)."""

    managed: Literal["fields", "whole"] = Field("fields", description=MANAGED_DESCRIPTION)

    @property
    def written(self) -> dict[str, Any]:
        """The overrides the manifest wrote, as written (nulls included)."""
        written = self.model_dump(exclude_unset=True, mode="json")
        written.pop("managed", None)
        return written


@dataclass(frozen=True)
class SiteValue:
    """A field written null: the site space shows the site's own value. The live effective
    value already is it when it equals the site's value, which `OverrideKind.observe` records
    and `OverrideKind.same_field` compares with."""

    address: str
    leaf: tuple[str, ...]

    def plan_json(self) -> str:
        return "(the site's value)"


class OverrideKind(SettingsKind):
    """One override per managed site space whose entry writes ``customization:``."""

    name = "override"
    plural = "site space overrides"
    prune_setting = None
    declaration = Declaration(
        position=95,
        reads=Reads(
            fields={"/orgs/*/sites/*/site-spaces/*/customization": ("styling", "header")},
        ),
    )
    references = ("site", "site_space")
    # The site spaces must be matched before their overrides are read: they are matched once
    # every kind they refer to is (sections, spaces, and what spaces refer to).
    read_after = ("site", "section", "section_group", "collection", "member", "space", "site_space")
    cannot_delete = "write `customization: {managed: whole}` on the site space to clear them all"

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._site_values: dict[str, Any] = {}
        """The site's customization by the address of each site space read, for `SiteValue`."""

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        spaces = [
            raw
            for raw, desired in reader.managed_with_entries("site_space")
            if desired is None or desired.entry.entry.customization is not None
        ]
        sites = sorted({site_id(raw) for raw in spaces})
        site_paths = [f"{site_prefix(self.org_id, s)}/customization" for s in sites]
        answers = await asyncio.gather(
            *(reader.get_or_none(self.name, path) for path in site_paths),
            *(reader.get_or_none(self.name, self._path(site_id(raw), raw["id"])) for raw in spaces),
        )
        by_site = dict(zip(sites, answers[: len(sites)], strict=True))
        return [
            under_site(
                {"id": raw["id"], "effective": answer, "site": by_site[site_id(raw)]},
                site_id(raw),
            )
            for raw, answer in zip(spaces, answers[len(sites) :], strict=True)
            if answer is not None
        ]

    def _path(self, site: Any, site_space: Any) -> str:
        return (
            f"{site_prefix(self.org_id, site)}/site-spaces/{id_in_path(site_space)}/customization"
        )

    def settings_desired(self, manifests: ManifestView) -> list[Desired]:
        found = []
        for site in manifests.section("sites").values():
            for entry in site.children():
                block = getattr(entry, "customization", None)
                if entry.kind != "space" or block is None:
                    continue
                written, whole = block.written, block.managed == "whole"
                fields = {
                    ".".join(leaf): self._wanted(entry.address, written, leaf)
                    for leaf in LEAVES
                    if whole or has_leaf(written, leaf)
                }
                found.append(
                    Desired(
                        address=f"{entry.address}.customization",
                        key=(Ref(site.address), Ref(entry.address)),
                        fields=fields,
                        location=str(entry.location),
                        entry=block,
                    )
                )
        return found

    def _wanted(self, address: str, written: Mapping[str, Any], leaf: tuple[str, ...]) -> Any:
        value = value_at(written, leaf)
        return SiteValue(address, leaf) if value is None else value

    def same_field(self, name: str, want: Any, have: Any) -> bool:
        if isinstance(want, SiteValue):
            return bool(have == value_at(self._site_values.get(want.address) or {}, want.leaf))
        return super().same_field(name, want, have)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = index.managed_ref("site", site_id(raw))
        site_space = index.managed_ref("site_space", raw["id"])
        if site is None or site_space is None or not self.written_on(site_space):
            return None
        self._site_values[site_space.address] = raw["site"]
        fields = {".".join(leaf): value_at(raw["effective"], leaf) for leaf in LEAVES}
        return Observed(
            id=raw["id"],
            key=(site, site_space),
            fields=fields,
            title=f"{site_space.address} customization",
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        site, site_space = resolve(desired.key[0]), resolve(desired.key[1])
        set_now = {k: v for k, v in desired.fields.items() if not isinstance(v, SiteValue)}
        body = nested(set_now)
        return [Call("PATCH", self._path(site, site_space), body)] if body else []

    def change_calls(self, change: ChangeContext) -> list[Call]:
        path = self._path(site_id(change.observed.raw), change.observed.id)
        clearing = any(isinstance(value, SiteValue) for value in change.changed.values())
        if change.desired.entry.managed != "whole" or not clearing:
            return [Call("PATCH", path, nested(change.changed))]
        # DELETE clears every override at once (and an announcement, which PATCH cannot).
        site = change.observed.raw["site"] or {}
        again = {
            name: value
            for name, value in change.desired.fields.items()
            if not isinstance(value, SiteValue) and value != value_at(site, tuple(name.split(".")))
        }
        return [Call("DELETE", path), *([Call("PATCH", path, nested(again))] if again else [])]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        """The fields whose effective value differs from the site's, as a block."""
        effective, site = raw["effective"], raw["site"] or {}
        block: dict[str, Any] = {}
        for leaf in LEAVES:
            value = value_at(effective, leaf)
            if value is None or value == value_at(site, leaf):
                continue  # a null would say "the site's value", which it already is
            at = block
            for key in leaf[:-1]:
                at = at.setdefault(key, {})
            at[leaf[-1]] = value
        if not block:
            return None
        return Exported("sites", self.name, raw["id"], "", block,
                        within=LiveRef("site_space", raw["id"]), nested_as="customization",
                        part=True)  # fmt: skip


def nested(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Dotted fields as the nested body of a PATCH."""
    body: dict[str, Any] = {}
    for name, value in fields.items():
        *parents, last = name.split(".")
        at = body
        for key in parents:
            at = at.setdefault(key, {})
        at[last] = None if isinstance(value, SiteValue) else value
    return body
