"""A site's style guide (``sites.<site>.styleguide: {space: NAME}``): the space holding the
writing rules the service's editing agent checks the site's content against. The service keeps
it as the site's ``styleguide`` (``{kind: space, space}``) and sets it with a site ``PATCH``.

The space is one of ``spaces:``, created and changed as any other; ``POST .../styleguide``
(which makes a blank or templated space and sets it at once, as the UI's button does) is not
needed for that. Running the style guide over content is an action, never configuration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import site_id, site_of, site_setting
from docform.kind_framework.planning import ref, site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.settings import SettingsKind
from docform.model.entry import ManifestModel
from docform.model.fields import SpaceName


class Styleguide(ManifestModel):
    """A site's style guide."""

    space: SpaceName = Field(description="Manifest name of the space holding the style guide.")


class StyleguideKind(SettingsKind):
    """One style guide per managed site whose entry writes ``styleguide``."""

    name = "styleguide"
    plural = "style guides"
    prune_setting = None  # one per site, never deleted
    declaration = Declaration(
        position=68,
        reads=Reads(fields={"/orgs/*/sites": ("styleguide.space",)}),
    )
    references = ("site", "space")
    read_after = ("site",)
    cannot_delete = "write the space it should be, or leave `styleguide` out to leave it alone"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return [
            site_setting({"space": (site.get("styleguide") or {}).get("space")}, site["id"])
            for site, desired in reader.managed_with_entries("site")
            if desired is None or desired.entry.styleguide is not None
        ]

    def settings_desired(self, manifests: ManifestView) -> list[Desired]:
        return [
            Desired(
                address=f"{site.address}.styleguide",
                key=(Ref(site.address),),
                fields={"space": ref("space", site.styleguide.space)},
                location=str(site.location),
                entry=site.styleguide,
            )
            for site in manifests.section("sites").values()
            if site.styleguide is not None
        ]

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None or not self.written_on(site):
            return None
        return Observed(
            id=raw["id"],
            key=(site,),
            fields={"space": index.ref("space", raw["space"])},
            title=f"{site.address} style guide",
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        return [self._patch(resolve(desired.key[0]), resolve(desired.fields["space"]))]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        space = change.resolve(change.desired.fields["space"])
        return [self._patch(change.observed.id, space)]

    def _patch(self, site: Any, space: Any) -> Call:
        return Call("PATCH", site_prefix(self.org_id, site), {"styleguide": space})

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        if raw["space"] is None:
            return None
        site = site_of(raw)
        fields = {"space": LiveRef("space", raw["space"])}
        return Exported("sites", self.name, site_id(raw), "", fields, within=site,
                        nested_as="styleguide", part=True)  # fmt: skip


def _space_of(site: Mapping[str, Any]) -> str | None:
    found: str | None = (site.get("styleguide") or {}).get("space")
    return found
