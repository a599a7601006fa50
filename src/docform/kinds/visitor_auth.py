"""Visitor authentication of a site (``sites.<site>.visitorAuth``): how visitors of a
``visitor-auth`` site sign in.

    sites:
      docs:
        visibility: visitor-auth
        visitorAuth: {backend: custom, fallbackURL: "https://id.acme.test/login", rotate: 2026-11}

Every site has one (the service makes it with the site); docform reads it only for the sites
that write ``visitorAuth:`` (and, exporting, for ``visitor-auth`` sites). Its private key, which
signs visitors' tokens, comes with every answer: docform drops it as it reads, so it is never
shown, stored or compared. ``rotate:`` asks for a new key once: docform.lock records the marker
the key was last made for, and a marker it does not record plans one ``regenerate`` call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from docform.engine.audience import Fact, Seen, address_of, default_level, door, gate
from docform.engine.capabilities import PointsToWhatItHides, TellsAudience
from docform.engine.field_rules import ChangedBy
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call, Change
from docform.errors import DocformError
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import site_id, site_of, site_setting
from docform.kind_framework.planning import site_ref
from docform.kind_framework.rest import site_prefix
from docform.model.entry import ManifestModel
from docform.model.fields import Marker, Url

URL_FIELDS = ("fallbackURL", "logoutURL")
#: Fields of an answer that hold the key: dropped as the answer is read.
SECRET_FIELDS = ("privateKey",)
VISIBILITY = "visitor-auth"

VISITOR_AUTH_DESCRIPTION = (
    "How visitors of a visitor-auth site sign in: {backend, fallbackURL, logoutURL, rotate}."
)

KeyMarker = Annotated[
    Marker, Field(description="A date or word; a new one asks for one new private key (once).")
]


class VisitorAuth(ManifestModel):
    """A site's visitor authentication; a URL left out is not managed, null removes it."""

    nullable_fields = frozenset(URL_FIELDS)

    backend: Literal["custom", "integration"] = Field(
        description="custom: your sign-in signs visitors' tokens; integration: an installed "
        "visitor-auth integration does."
    )
    fallbackURL: Url | None = Field(None, description="Where visitors with a bad token go.")
    logoutURL: Url | None = Field(None, description="Your sign-out, for visitors signing out.")
    rotate: Annotated[KeyMarker | None, ChangedBy("rotate")] = None


class VisitorAuthKind(Kind, TellsAudience, PointsToWhatItHides):
    """The visitor authentication of each managed site that writes ``visitorAuth:``."""

    name = "visitor_auth"
    plural = "visitor authentications"
    prune_setting = None
    declaration = Declaration(
        position=104,
        reads=Reads(
            fields={"/orgs/*/sites/*/publishing/auth": ("backend",)},
        ),
    )
    references = ("site",)
    read_after = ("site",)
    renamable = False
    guard_creates = False  # setting it twice sets the same values
    fields = VisitorAuth
    lock_field = "rotate"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = [
            site["id"]
            for site, desired in reader.managed_with_entries("site")
            if _reads(site, desired)
        ]
        answers = await asyncio.gather(
            *(
                reader.get_or_none(self.name, f"{site_prefix(self.org_id, s)}/publishing/auth")
                for s in sites
            )
        )
        return [
            without_key(answer, site)
            for site, answer in zip(sites, answers, strict=True)
            if answer is not None  # a site deleted since it was listed
        ]

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [
            self._desired(site, auth)
            for site in manifests.section("sites").values()
            if (auth := getattr(site, "visitorAuth", None)) is not None
        ]

    def _desired(self, site: Any, auth: VisitorAuth) -> Desired:
        on = Ref(site.address)
        return Desired(
            address=f"{site.address}.visitorAuth",
            key=(on,),
            fields=auth.model_dump(exclude_unset=True),
            location=str(site.location),
            requires=frozenset({on.address}),
            entry=auth,
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        fields = {"backend": raw.get("backend"), **{k: raw.get(k) for k in URL_FIELDS}}
        return Observed(
            id=raw["id"], key=(site,), fields=fields, title="visitor authentication", raw=raw,
            address=f"{site.address}.visitorAuth",
        )  # fmt: skip

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        """Only a site created in the same apply has no visitor authentication read: set it."""
        _refuse_integration_without_one(desired, desired.fields.get("backend"), None)
        body = {k: v for k, v in desired.fields.items() if k != "rotate"}
        return [Call("PATCH", self._path(resolve(desired.key[0])), body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        path = self._path(site_id(change.observed.raw))
        _refuse_integration_without_one(
            change.desired, change.changed.get("backend"), change.observed.raw
        )
        if change.action == "rotate":
            return [Call("POST", f"{path}/regenerate")]
        # The API requires the backend in every PATCH.
        body = {
            "backend": change.desired.fields.get("backend", change.observed.fields["backend"]),
            **change.changed,
        }
        return [Call("PATCH", path, body)]

    def delete_calls(self, observed: Observed) -> list[Call]:
        raise NotImplementedError("a site's visitor authentication has no delete")

    def _path(self, site: Any) -> str:
        return f"{site_prefix(self.org_id, site)}/publishing/auth"

    def where_to_find(self, change: Change) -> str | None:
        if not change.calls:
            return None
        return (
            f"{change.address}: the service holds the site's visitor signing key, which your "
            "sign-in backend needs and docform never shows: find it in the site's settings "
            f"(visitor authentication), or read it with GET {change.calls[0].path}"
        )

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """Visitors of a visitor-auth site: whoever its sign-in admits."""
        return [
            door(address_of(seen.key[0]) or "", f"visitors the {seen.fields.get('backend')} "
                 "sign-in admits", gate=VISIBILITY)
            for seen in objects
        ]  # fmt: skip

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields = {"backend": raw["backend"], **{k: raw[k] for k in URL_FIELDS if raw.get(k)}}
        return Exported(
            "sites", self.name, site_id(raw), "", fields,
            within=site_of(raw), nested_as="visitorAuth", part=True,
        )  # fmt: skip


def _refuse_integration_without_one(
    desired: Desired, backend: object, live: Mapping[str, Any] | None
) -> None:
    """``backend: integration`` signs visitors in through a visitor-auth integration installed
    on the site (the answer's ``integration``): with none, no visitor could get in."""
    if backend == "integration" and not (live or {}).get("integration"):
        raise DocformError(
            f"{desired.location}: {desired.address}: backend: integration needs a visitor-auth "
            "integration installed on the site, and it has none; install one in the service "
            "first, or use backend: custom (your own sign-in signs visitors' tokens)"
        )


def _reads(site: Mapping[str, Any], desired: Desired | None) -> bool:
    if desired is None:  # exporting: the sites visitors sign in to
        return site.get("visibility") == VISIBILITY
    return getattr(desired.entry, "visitorAuth", None) is not None


def without_key(answer: Mapping[str, Any], site: str) -> dict[str, Any]:
    """The answer without the private key, tagged with its site, whose id is its own (one
    visitor authentication per site)."""
    kept = {k: v for k, v in answer.items() if k not in SECRET_FIELDS}
    return site_setting(kept, site)


def visitor_auth_problems(site: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], str]]:
    """A ``visitor-auth`` site that does not say how its visitors sign in."""
    if site.get("visibility") == VISIBILITY and "visitorAuth" not in site:
        yield (
            ("visibility",),
            "a visitor-auth site needs visitorAuth: {backend: custom or integration, "
            "fallbackURL: ...}, how its visitors sign in; add it, or choose another visibility",
        )


#: Who reaches a site of each visibility without any key or sign-in.
OPEN_TO = {
    "public": "anyone (public, indexed by search engines)",
    "unlisted": "anyone who has its address (unlisted)",
}


def site_audience(objects: Sequence[Seen]) -> list[Fact]:
    """What a site's visibility opens (anyone, or the doors of one gate: share links, visitor
    sign-in) and its default level."""
    facts = []
    for seen in objects:
        visibility = seen.fields.get("visibility")
        if isinstance(visibility, str):
            facts.append(gate(seen.address, visibility))
            if visibility in OPEN_TO:
                facts.append(door(seen.address, OPEN_TO[visibility]))
        if "defaultLevel" in seen.fields:
            facts.append(default_level(seen.address, seen.fields["defaultLevel"]))
    return facts
