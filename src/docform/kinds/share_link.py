"""Share links of a site (``sites.<site>.shareLinks``): anyone holding one reads the site when
its visibility is ``share-link``.

A link's name (``title`` here) may be empty and repeat, so what ties an entry to its link is
its live id, recorded in docform.lock once docform created or matched it (or pinned with
``id:``); the name matches only a link no entry holds yet, and two links of that name ask for
a pin. The link's key lives in its published URL, which the service answers with every link:
docform drops the URL as it reads, so it is in no plan, drift report, export or log. Only the
sites whose entry writes ``shareLinks:`` have theirs read, compared and pruned.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from docform.engine.audience import Fact, Seen, address_of, door
from docform.engine.capabilities import PointsToWhatItHides, TellsAudience
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call, Change
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.marks import site_id, site_of, under_site
from docform.kind_framework.planning import entry_desired, site_ref
from docform.kind_framework.rest import created, id_in_path, site_prefix
from docform.kind_framework.site_reads import site_held_entries, site_lists, sites_writing
from docform.model.entry import Entry

#: Fields of an answer that hold the link's key: dropped as the answer is read.
SECRET_FIELDS = ("urls",)


class ShareLinkEntry(Entry):
    """One share link of a site, under a manifest name of its own."""

    kind = "share_link"
    key_label = "name"
    former_key_fields = ("title",)

    title: str | None = Field(
        None, max_length=50, description="The link's name in the service (default: this key)."
    )
    active: bool | None = Field(
        None, description="false disables the link and keeps its key; a new link is active."
    )

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.shareLink.{self.name}"

    @property
    def link_name(self) -> str:
        return self.name if self.title is None else self.title

    def natural_key(self) -> str:
        # NOTE: names repeat freely; the key only adopts a link the lock does not tie yet.
        return self.link_name


class ShareLinkKind(Kind, TellsAudience, PointsToWhatItHides):
    """Share links of the managed sites that write ``shareLinks:``, tied by live id."""

    name = "share_link"
    declaration = Declaration(
        position=105,
        nested=Nested(ShareLinkEntry),
        prune_description="Share links of managed sites that write shareLinks.",
        reads=Reads(
            fields={"/orgs/*/sites/*/share-links": ("id", "name", "active", "urls")},
            list_names=("share-links",),
        ),
    )
    references = ("site",)
    read_after = ("site",)
    guard_replacement = True
    replacement_loses = "its key is in the URL people were given: a new link has another"
    unmanaged_go_with_container = True

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        def path(site: str) -> str:
            return f"{site_prefix(self.org_id, site)}/share-links"

        listed = await site_lists(reader, self.name, sites_writing(reader, "shareLinks"), path)
        return [without_key(item, site) for site, item in listed]

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(site, e) for site, e in site_held_entries(manifests, "shareLinks")]

    def _desired(self, site_address: str, e: ShareLinkEntry) -> Desired:
        fields: dict[str, Any] = {"title": e.link_name}
        if e.active is not None:
            fields["active"] = e.active
        return entry_desired(e, fields, e.link_name, scope=(Ref(site_address),))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        name = raw.get("name") or ""
        fields = {"title": name, "active": raw.get("active", True)}
        return Observed(
            id=raw["id"], key=(site, name), fields=fields, title=name or raw["id"], raw=raw
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        prefix = site_prefix(self.org_id, resolve(desired.key[0]))
        calls = [Call("POST", f"{prefix}/share-links", {"name": desired.fields["title"]})]
        if desired.fields.get("active") is False:  # a new link is active
            made = id_in_path(created(desired.address))
            calls.append(Call("PATCH", f"{prefix}/share-links/{made}", {"active": False}))
        return calls

    def change_calls(self, change: ChangeContext) -> list[Call]:
        body = {("name" if k == "title" else k): v for k, v in change.changed.items()}
        return [Call("PATCH", self._path(change.observed), body)]

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", self._path(observed))]

    def _path(self, observed: Observed) -> str:
        return f"{site_prefix(self.org_id, site_id(observed.raw))}/share-links/{observed.id}"

    def where_to_find(self, change: Change) -> str | None:
        if change.action != "create":
            return None
        listed = change.calls[0].path if change.calls else "the site's share links"
        return (
            f"{change.address}: its URL admits whoever holds it, so docform never shows it: "
            f"find it in the service's site settings (Share links), or read it with GET {listed}"
        )

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """Each active link opens its site while the site's visibility is share-link."""
        return [
            door(address_of(seen.key[0]) or "", f"anyone holding share link "
                 f"'{seen.fields.get('title')}'", gate="share-link")
            for seen in objects
            if seen.fields.get("active", True) is not False
        ]  # fmt: skip

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        name = raw.get("name") or ""
        fields: dict[str, Any] = {"id": raw["id"], "title": name}
        if raw.get("active") is False:
            fields["active"] = False
        return Exported(
            "sites", self.name, raw["id"], name or "link", fields,
            within=site_of(raw), nested_as="shareLinks",
        )  # fmt: skip


def without_key(item: Mapping[str, Any], site: str) -> dict[str, Any]:
    """A listed link without what holds its key, marked with its site."""
    return under_site({k: v for k, v in item.items() if k not in SECRET_FIELDS}, site)
