"""Custom hostnames (``customHostnames:``): the hostnames a site or the organization's public
content is served on, keyed by the hostname itself, which is also its id in the API
(``/custom-hostnames/{hostname}``).

The service's API cannot connect a hostname (its app does, with the DNS records it asks
for); it reads one, revalidates its DNS records (an action docform never takes) and removes
it, which leaves it inactive. So docform keeps the record of which hostname serves what: it
reads every hostname the sites and the organization show, and each one an entry lists (a
hostname removed by hand is then seen inactive, with who removed it); docform.lock records
none, the hostname being the id. An entry with
``active: false`` removes its hostname, and so does ``prune: {customHostnames: true}`` for
one no entry lists. An entry the live hostname does not satisfy otherwise (not connected,
inactive, or serving another target) is planned as the change it needs, which the
``custom-hostname-in-app`` rail refuses to apply: the plan says to connect it in the app.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from docform.engine.capabilities import HasRails, MadeInTheApp
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.objects import Matching
from docform.engine.plan import Call, Change, Violation
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired, ref
from docform.model.entry import Entry
from docform.model.fields import DOMAIN_PATTERN, SiteName

#: The definition's SiteHostname: a lower-case DNS name of three labels or more.
HOSTNAME_PATTERN = r"^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$"


def _site_hostname(value: str) -> str:
    if not re.match(HOSTNAME_PATTERN, value):
        raise ValueError(
            f"'{value}' is not a hostname a site can be served on: write it in lower case, "
            "with three labels or more (docs.example.com)"
        )
    return value


Hostname = Annotated[
    str,
    Field(max_length=512, json_schema_extra={"pattern": HOSTNAME_PATTERN}),
    AfterValidator(_site_hostname),
]
ORGANIZATION = "organization"


class CustomHostnameEntry(Entry):
    """One custom hostname, under the hostname itself."""

    kind = "custom_hostname"
    key_label = "hostname"

    site: SiteName | None = Field(
        None, description="The site it serves (left out: the organization's public content)."
    )
    active: bool = Field(
        True,
        description="false: removed from its target (the service keeps it pointing there "
        "until another target takes it, and only its app connects it again).",
    )

    def natural_key(self) -> str:
        # NOTE: the service keys a custom hostname by the hostname; it serves one target.
        return self.name


class CustomHostnameKind(Kind, HasRails, MadeInTheApp):
    """Custom hostnames: read one by one, removed; connected only in the service's app."""

    name = "custom_hostname"
    declaration = Declaration(
        position=143,
        section=Section(
            CustomHostnameEntry,
            key=Hostname,
            key_pattern=DOMAIN_PATTERN,
            description="Custom hostnames by hostname: the site each serves (none: the "
            "organization).",
        ),
        export_file="hostnames.yaml",
        reads=Reads(
            fields={
                "/orgs/*": ("customHostname",),
                "/orgs/*/sites": ("hostname",),
                "/custom-hostnames/*": (
                    "hostname",
                    "target.type",
                    "target.site",
                    "target.organization",
                    "isActive",
                ),
            },
            list_names=("custom-hostnames",),
        ),
    )
    references = ("site",)
    read_after = ("organization", "member", "site")  # the organization's matching needs members
    reads_pinned_ids = True  # every hostname an entry lists, a removed (inactive) one too
    locked = False  # nothing but its key: the hostname is the id

    def wanted_for_read(self, desired: Desired) -> str | None:
        hostname: str = desired.key[-1]
        return hostname

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        shown = [org.get("customHostname") for org in reader.live("organization")]
        shown += [site.get("hostname") for site in reader.live("site")]
        hostnames = sorted({*wanted_ids, *filter(None, shown)})
        answers = await asyncio.gather(
            *(reader.get_or_none(self.name, f"/custom-hostnames/{name}") for name in hostnames)
        )
        return [{**answer, "id": answer["hostname"]} for answer in answers if answer is not None]

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("customHostnames").values()]

    def _desired(self, e: CustomHostnameEntry) -> Desired:
        # A removed hostname's target is the service's to keep: only its removal is compared.
        fields: dict[str, Any] = {"active": e.active}
        if e.active:
            fields["target"] = ref("site", e.site) or ORGANIZATION
        return entry_desired(e, fields, e.name)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        target = raw["target"]
        serves = index.ref("site", target["site"]) if target["type"] == "site" else ORGANIZATION
        return Observed(
            id=raw["id"],
            key=(raw["id"],),
            fields={"target": serves, "active": raw["isActive"]},
            title=raw["id"],
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        return []  # no API operation connects a hostname (`made_in_the_app`)

    def change_calls(self, change: ChangeContext) -> list[Call]:
        if change.changed == {"active": False}:
            return [Call("DELETE", f"/custom-hostnames/{change.observed.id}")]
        return []  # connecting it again or elsewhere (`made_in_the_app`)

    def made_in_the_app(self, change: Change) -> bool:
        return change.action in ("create", "update") and not change.calls

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"/custom-hostnames/{observed.id}")]

    def rail_violations(self, matching: Matching, changes: Sequence[Change]) -> list[Violation]:
        """A hostname to connect, reconnect or move cannot be applied: the app does that."""
        located = {d.address: d.location for d in matching.creates}
        located |= {p.desired.address: p.desired.location for p in matching.pairs}
        return [
            Violation(
                "custom-hostname-in-app",
                f"{located.get(c.address, '?')}: {c.address}: {_needed(c)}: the service's API "
                "cannot connect a custom hostname; connect it in the service's app (the DNS "
                "records it asks for included), then plan again, or write it as it is live",
                forceable=False,
                address=c.address,
                changes=(c.key,),
                acceptable=False,
            )
            for c in changes
            if c.kind == self.name and self.made_in_the_app(c)
        ]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        target = raw["target"]
        fields: dict[str, Any] = (
            {"site": LiveRef("site", target["site"])} if target["type"] == "site" else {}
        )
        if not raw["isActive"]:
            fields["active"] = False  # only adopt meets one: export reads the active ones
        return Exported("customHostnames", self.name, raw["id"], raw["id"], fields, name=raw["id"])


def _needed(change: Change) -> str:
    """What the live hostname lacks, in words."""
    after = change.after or {}
    if change.action == "create":
        return "it is not connected"
    if "target" in after:
        serves = "the organization" if after["target"] == ORGANIZATION else "its site"
        return f"it serves another target; it should serve {serves} (and leaves the other)"
    return "it was removed (inactive)"
