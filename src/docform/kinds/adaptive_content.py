"""Adaptive content of a site (``sites.<site>.adaptiveContent``): its switch (``enabled``, the
site's ``adaptiveContent`` in a site PATCH) and the schema of its visitors' claims
(``GET``/``PUT .../sites/{siteId}/adaptive-schema``, a whole replacement).

The conditions a site's sections, site spaces and external links show under are checked
against the schema the manifest writes when it loads, each at its own file:line, before any
call (`condition_problems`). The schema is read only for the sites whose entries write it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import Field, ValidationError

from docform.adaptive_schema import VisitorSchema, as_sent, condition_problems
from docform.answer_fields import need
from docform.engine.kind import AddressIndex, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.planning import site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.settings import SettingsKind
from docform.model.entry import ManifestModel, WrittenProblems


class AdaptiveContent(ManifestModel):
    """A site's adaptive content: a field left out is not managed."""

    enabled: bool | None = Field(None, description="Adaptive content on or off.")
    schema_: VisitorSchema | None = Field(
        None,
        alias="schema",
        description="The claims visitors carry (a JSON Schema); conditions are checked against it.",
    )


class AdaptiveContentKind(SettingsKind):
    """One adaptive content setting per managed site whose entry writes ``adaptiveContent``."""

    name = "adaptive_content"
    plural = "adaptive content settings"
    prune_setting = None
    declaration = Declaration(
        position=66,
        reads=Reads(
            objects={
                "/orgs/*/sites/*/adaptive-schema": {
                    "object": need(str),
                    "jsonSchema": need(dict),
                },
            },
        ),
    )
    references = ("site",)
    read_after = ("site",)
    cannot_delete = "write `adaptiveContent: {enabled: false}` on the site to switch it off"

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = [
            (site, desired is None or desired.entry.adaptiveContent.schema_ is not None)
            for site, desired in reader.managed_with_entries("site")
            if desired is None or desired.entry.adaptiveContent is not None
        ]
        schemas = await asyncio.gather(
            *(self._schema(reader, site["id"], wanted) for site, wanted in sites)
        )
        return [
            {
                "id": site["id"],
                "_site": site["id"],
                "enabled": bool((site.get("adaptiveContent") or {}).get("enabled")),
                "jsonSchema": schema,
            }
            for (site, _), schema in zip(sites, schemas, strict=True)
        ]

    async def _schema(self, reader: LiveReader, site: str, wanted: bool) -> Any:
        if not wanted:
            return None
        answer = await reader.get_or_none(self.name, self._schema_path(site))
        return None if answer is None else answer["jsonSchema"]

    def _schema_path(self, site: Any) -> str:
        return f"{site_prefix(self.org_id, site)}/adaptive-schema"

    def settings_desired(self, manifests: ManifestView) -> list[Desired]:
        found = []
        for site in manifests.section("sites").values():
            block: AdaptiveContent | None = site.adaptiveContent
            if block is None:
                continue
            fields: dict[str, Any] = {}
            if block.enabled is not None:
                fields["enabled"] = block.enabled
            if block.schema_ is not None:
                fields["schema"] = as_sent(block.schema_)
            found.append(
                Desired(
                    address=f"{site.address}.adaptiveContent",
                    key=(Ref(site.address),),
                    fields=fields,
                    location=str(site.location),
                    entry=block,
                )
            )
        return found

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None or not self.written_on(site):
            return None
        fields = {"enabled": raw["enabled"], "schema": _normalized(raw["jsonSchema"])}
        return Observed(
            id=raw["id"],
            key=(site,),
            fields=fields,
            title=f"{site.address} adaptive content",
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        return self._calls(resolve(desired.key[0]), desired.fields)

    def change_calls(
        self,
        action: str,
        observed: Observed,
        desired: Desired,
        changed: dict[str, Any],
        resolve: Resolve,
    ) -> list[Call]:
        return self._calls(observed.id, changed)

    def _calls(self, site: Any, fields: Mapping[str, Any]) -> list[Call]:
        # The schema first: switching adaptive content on evaluates conditions against it.
        calls = []
        if "schema" in fields:
            body = {"jsonSchema": fields["schema"]}
            calls.append(Call("PUT", self._schema_path(site), body))
        if "enabled" in fields:
            body = {"adaptiveContent": {"enabled": fields["enabled"]}}
            calls.append(Call("PATCH", site_prefix(self.org_id, site), body))
        return calls

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        fields: dict[str, Any] = {}
        if raw["enabled"]:
            fields["enabled"] = True
        if (raw["jsonSchema"] or {}).get("properties"):  # a schema without claims is none
            fields["schema"] = _normalized(raw["jsonSchema"])
        if not fields:
            return None
        site = LiveRef("site", raw["_site"])
        return Exported("sites", self.name, raw["_site"], "", fields, within=site,
                        nested_as="adaptiveContent", part=True)  # fmt: skip


def _normalized(schema: Any) -> Any:
    """A live schema as the manifest's compares (a schema docform cannot read stays as is)."""
    if schema is None:
        return None
    try:
        return as_sent(VisitorSchema.model_validate(schema))
    except ValidationError:
        return schema


def conditions_checked(site_name: str, site: Mapping[str, Any]) -> WrittenProblems:
    """Each condition of the site's structure that names a claim its written schema lacks."""
    schema = _mapping(_mapping(site.get("adaptiveContent")).get("schema"))
    if not schema:
        return
    for path, condition in _conditions(site):
        for message in condition_problems(condition, schema):
            yield (site_name, *path, "condition"), message


def _conditions(site: Mapping[str, Any]) -> Iterator[tuple[tuple[str, ...], str]]:
    for name, section in _mapping(site.get("sections")).items():
        yield from _condition_of(("sections", name), section)
        for space_name, space in _mapping(_mapping(section).get("spaces")).items():
            yield from _condition_of(("sections", name, "spaces", space_name), space)
    for name, space in _mapping(site.get("spaces")).items():
        yield from _condition_of(("spaces", name), space)
    for name, link in _mapping(site.get("externalLinks")).items():
        yield from _condition_of(("externalLinks", name), link)


def _condition_of(path: tuple[str, ...], entry: object) -> Iterator[tuple[tuple[str, ...], str]]:
    condition = _mapping(entry).get("condition")
    if isinstance(condition, str):
        yield path, condition


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
