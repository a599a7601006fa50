"""OpenAPI specifications (``openapi:``), keyed by slug.

``source.url`` is secret-bearing: it may embed credentials, so it may be ``${env:NAME}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from docform.engine.audience import Fact, Seen, door
from docform.engine.capabilities import TellsAudience
from docform.engine.field_rules import Immutable, Unique
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import EnvValue, Exported
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_framework.planning import entry_desired, secret
from docform.model.entry import Entry, ManifestModel
from docform.model.fields import SLUG_PATTERN, SecretUrl
from docform.untrusted.redact import holds_credentials

PUBLIC_SPEC_AUDIENCE = "anyone with its public link (public spec)"
"""Who reaches a public spec, in the definition's words for its ``public`` visibility."""


class OpenApiSource(ManifestModel):
    """Where the service fetches the specification from."""

    url: SecretUrl = Field(description="http(s) URL; may be ${env:NAME}.")


class OpenApiEntry(Entry):
    """One OpenAPI specification."""

    kind = "openapi"
    key_is_unique = True
    key_label = "slug"
    former_key_fields = ("slug",)

    # Matched by pinned id or formerly: the slug is the spec's address and has no rename.
    # Unique in the organization; it never changes, so a create that takes one waits for the
    # delete that frees it (a spec whose entry no longer names it, but an id pin still does).
    slug: Annotated[
        str,
        Immutable(
            "the API cannot rename a spec",
            "write the live slug, or drop `id:`, `formerly:` and its line in docform.lock so a "
            "new spec is created (and the old one pruned)",
        ),
        Unique(),
    ] = Field(min_length=1, max_length=100, pattern=SLUG_PATTERN)
    source: OpenApiSource
    visibility: Literal["private", "public"] | None = None

    def natural_key(self) -> str:
        # NOTE: the slug is the spec's address in the API (/openapi/{specSlug}): unique.
        return self.slug


class OpenApiKind(Kind, TellsAudience):
    """OpenAPI specs by slug: created with their source, re-pointed with PUT, shown or hidden.

    The source URL is compared by value but treated as a secret whenever it may hold one
    (credentials in it, or written as ``${env:NAME}``): plans then show ``(sensitive)`` and carry
    only where the manifests hold it.
    """

    name = "openapi"
    fields_beyond_entry = ("sourceURL",)
    prune_setting = "openapi"
    declaration = Declaration(
        position=110,
        section=Section(OpenApiEntry, name="openapi", noun="OpenAPI spec", plural="OpenAPI specs"),
        export_file="openapi.yaml",
        reads=Reads(
            fields={"/orgs/*/openapi": ("id", "slug", "sourceURL", "visibility")},
            list_names=("openapi",),
        ),
    )
    # A new slug next to a live spec of the same source looks like a rename the API cannot
    # make: its slug is its address, so the rail says what a replacement changes.
    guard_replacement = True
    fields = OpenApiEntry
    guard_weak = False
    replacement_loses = (
        "its slug is its address: what links to the reference it publishes would break"
    )
    replacement_hint = "the API cannot rename a spec: write its live slug `{live}` back to keep it"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        return await reader.list(self.name, f"/orgs/{self.org_id}/openapi")

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [self._desired(e) for e in manifests.section("openapi").values()]

    def _desired(self, e: OpenApiEntry) -> Desired:
        url = e.source.url
        fields: dict[str, Any] = {"slug": e.slug, "sourceURL": url.value}
        if e.visibility is not None:
            fields["visibility"] = e.visibility
        hidden = not url.is_literal or holds_credentials(url.value)
        sensitive = frozenset({"sourceURL"}) if hidden else frozenset()
        return entry_desired(e, fields, e.slug, sensitive=sensitive)

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed:
        fields = {k: raw.get(k) for k in ("slug", "sourceURL", "visibility")}
        hidden = (
            frozenset({"sourceURL"}) if holds_credentials(raw.get("sourceURL")) else frozenset()
        )
        return Observed(
            id=raw["id"],
            key=(raw["slug"],),
            fields=fields,
            title=raw["slug"],
            raw=raw,
            sensitive=hidden,
        )

    def _source(self, desired: Desired) -> dict[str, Any]:
        if "sourceURL" in desired.sensitive:
            return {"url": secret(desired.address, "source.url")}
        return {"url": desired.fields["sourceURL"]}

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        slug: str = desired.entry.slug
        body = {"slug": slug, "source": self._source(desired)}
        calls = [Call("POST", f"/orgs/{self.org_id}/openapi", body)]
        if "visibility" in desired.fields:
            visibility = {"visibility": desired.fields["visibility"]}
            calls.append(Call("PATCH", f"/orgs/{self.org_id}/openapi/{slug}", visibility))
        return calls

    def change_calls(self, change: ChangeContext) -> list[Call]:
        path = f"/orgs/{self.org_id}/openapi/{change.observed.raw['slug']}"
        calls = []
        if "sourceURL" in change.changed:
            calls.append(Call("PUT", path, {"source": self._source(change.desired)}))
        if "visibility" in change.changed:
            calls.append(Call("PATCH", path, {"visibility": change.changed["visibility"]}))
        return calls

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", f"/orgs/{self.org_id}/openapi/{observed.raw['slug']}")]

    def audience_facts(self, objects: Sequence[Seen]) -> list[Fact]:
        """A public spec opens its reference to anyone holding its public link."""
        return [
            door(seen.address, PUBLIC_SPEC_AUDIENCE)
            for seen in objects
            if seen.fields.get("visibility") == "public"
        ]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        url = raw.get("sourceURL")
        # A URL with credentials stays out of the files: it is read from the environment.
        source = {"url": EnvValue("SOURCE_URL") if holds_credentials(url) else url}
        fields = {"id": raw["id"], "slug": raw["slug"], "source": source}
        if raw.get("visibility") is not None:
            fields["visibility"] = raw["visibility"]
        return Exported("openapi", self.name, raw["id"], raw["slug"], fields)
