"""Advertising on a site (``sites.<site>.advertising``): whether the site is submitted to the
service's ad network, and under which topic. The service keeps it as the site's ``ads`` and
changes it with ``POST /orgs/{org}/sites/{site}/ads`` (``{status: in-review | disabled,
topic}``).

What the network does with a submitted site (puts it live, rejects it) is its own review
(``/ads/sites``), not the organization's configuration: ``enabled: true`` is met while the site
is in review or live, and a rejected site counts as off (planning submits it again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import site_id, site_of, site_setting
from docform.kind_framework.planning import site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.settings import SettingsKind
from docform.model.entry import ManifestModel

AdsTopic = Literal["webdev", "crypto"]
#: The statuses in which a site counts as showing ads (or about to, once reviewed).
ON = frozenset({"in-review", "live"})


class Advertising(ManifestModel):
    """A site's advertising: a field left out is not managed."""

    enabled: bool | None = Field(
        None, description="Submitted to the ad network (in review or live), or withdrawn."
    )
    topic: AdsTopic | None = Field(None, description="What the site's content is about.")


class AdvertisingKind(SettingsKind):
    """One advertising setting per managed site whose entry writes ``advertising``."""

    name = "advertising"
    plural = "advertising settings"
    prune_setting = None  # one per site, never deleted
    declaration = Declaration(
        position=67,
        reads=Reads(fields={"/orgs/*/sites": ("ads.status", "ads.topic")}),
    )
    references = ("site",)
    read_after = ("site",)
    cannot_delete = "write `advertising: {enabled: false}` on the site to withdraw it"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return [
            site_setting(
                {
                    "status": (site.get("ads") or {}).get("status", "pending"),
                    "topic": (site.get("ads") or {}).get("topic"),
                },
                site["id"],
            )
            for site, desired in reader.managed_with_entries("site")
            if desired is None or desired.entry.advertising is not None
        ]

    def settings_desired(self, manifests: ManifestView) -> list[Desired]:
        found = []
        for site in manifests.section("sites").values():
            block: Advertising | None = site.advertising
            if block is None:
                continue
            found.append(
                Desired(
                    address=f"{site.address}.advertising",
                    key=(Ref(site.address),),
                    fields=block.model_dump(exclude_none=True),
                    location=str(site.location),
                    entry=block,
                )
            )
        return found

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None or not self.written_on(site):
            return None
        return Observed(
            id=raw["id"],
            key=(site,),
            fields={"enabled": raw["status"] in ON, "topic": raw["topic"]},
            title=f"{site.address} advertising",
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        return [self._post(resolve(desired.key[0]), desired.fields)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return [self._post(change.observed.id, change.desired.fields)]

    def _post(self, site: Any, fields: Mapping[str, Any]) -> Call:
        # A topic change of a submitted site is a new submission: the network reviews it again.
        body: dict[str, Any] = {"topic": fields["topic"]} if "topic" in fields else {}
        if "enabled" in fields:
            body["status"] = "in-review" if fields["enabled"] else "disabled"
        return Call("POST", f"{site_prefix(self.org_id, site)}/ads", body)

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        if raw["status"] not in ON and raw["topic"] is None:
            return None  # never submitted: leave it unmanaged
        fields: dict[str, Any] = {"enabled": raw["status"] in ON}
        if raw["topic"] is not None:
            fields["topic"] = raw["topic"]
        site = site_of(raw)
        return Exported("sites", self.name, site_id(raw), "", fields, within=site,
                        nested_as="advertising", part=True)  # fmt: skip
