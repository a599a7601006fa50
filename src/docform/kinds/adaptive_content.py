"""Adaptive content of a site (``sites.<site>.adaptiveContent``): its switch (``enabled``, the
site's ``adaptiveContent`` in a site PATCH) and the schema of its visitors' claims
(``GET``/``PUT .../sites/{siteId}/adaptive-schema``, a whole replacement).

The conditions a site's sections, site spaces, external links and header items show under are
checked against the schema the manifest writes when it loads, each at its own file:line, before
any call (`condition_problems`). A site whose manifest writes conditions but no schema has its
live schema read and its conditions checked against it when planning (`observe`), still before
any call; a site with no live claims at all gets a warning instead. The schema is read only for
those sites and for the ones whose entries write it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from pydantic import Field, ValidationError

from docform.engine.capabilities import WarnsAcrossKinds
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.objects import Matching
from docform.engine.plan import Call, Change
from docform.errors import DocformError
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import site_id, site_of, site_setting
from docform.kind_framework.planning import site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.settings import SettingsKind
from docform.model.entry import Location, ManifestModel, WrittenProblems
from docform.service.adaptive_schema import (
    CLAIM_REFERENCE,
    VisitorSchema,
    as_sent,
    claim_names,
    condition_problems,
    conditions_of,
    header_conditions,
)


class AdaptiveContent(ManifestModel):
    """A site's adaptive content: a field left out is not managed."""

    enabled: bool | None = Field(None, description="Adaptive content on or off.")
    schema_: VisitorSchema | None = Field(
        None,
        alias="schema",
        description="The claims visitors carry (a JSON Schema); conditions are checked against it.",
    )


class AdaptiveContentKind(SettingsKind, WarnsAcrossKinds):
    """One adaptive content setting per managed site whose entry writes ``adaptiveContent``."""

    name = "adaptive_content"
    plural = "adaptive content settings"
    prune_setting = None
    declaration = Declaration(
        position=66,
        reads=Reads(
            fields={"/orgs/*/sites/*/adaptive-schema": ("object", "jsonSchema")},
        ),
    )
    references = ("site",)
    read_after = ("site",)
    cannot_delete = "write `adaptiveContent: {enabled: false}` on the site to switch it off"

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._unchecked: dict[str, list[WrittenCondition]] = {}
        """The conditions of each site whose manifest writes no schema: checked against the
        live one when it is read (`observe`)."""
        self._without_schema: dict[str, list[WrittenCondition]] = {}
        """The conditions naming claims of a site that has no live schema: a warning."""

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = [
            (site, desired is None or _schema_written(desired.entry) or _schema_read(desired.entry))
            for site, desired in reader.managed_with_entries("site")
            if desired is None
            or desired.entry.adaptiveContent is not None
            or _schema_read(desired.entry)
        ]
        schemas = await asyncio.gather(
            *(self._schema(reader, site["id"], wanted) for site, wanted in sites)
        )
        return [
            site_setting(
                {
                    "enabled": bool((site.get("adaptiveContent") or {}).get("enabled")),
                    "jsonSchema": schema,
                },
                site["id"],
            )
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
        sites = manifests.section("sites").values()
        self._unchecked = {
            site.address: list(site_conditions(site)) for site in sites if _schema_read(site)
        }
        self._without_schema = {}
        found = []
        for site in sites:
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
        if site is None:
            return None
        self._check_live(site.address, raw["jsonSchema"])
        if not self.written_on(site):
            return None
        fields = {"enabled": raw["enabled"], "schema": _normalized(raw["jsonSchema"])}
        return Observed(
            id=raw["id"],
            key=(site,),
            fields=fields,
            title=f"{site.address} adaptive content",
            raw=raw,
        )

    def _check_live(self, site: str, schema: Any) -> None:
        conditions = self._unchecked.get(site, [])
        if claim_names(schema or {}):
            refuse_broken_conditions(conditions, schema)
            return
        naming = [c for c in conditions if CLAIM_REFERENCE.search(c.condition)]
        if naming:
            self._without_schema[site] = naming

    def warnings_across_kinds(
        self, matchings: Mapping[str, Matching], changes: Sequence[Change]
    ) -> list[str]:
        return [
            f"{site}: {len(found)} condition(s) name visitor claims (the first at "
            f"{found[0].location}: {found[0].what}), but the site has no adaptive schema to "
            "check them against: write the claims under adaptiveContent.schema"
            for site, found in self._without_schema.items()
        ]

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        return self._calls(resolve(desired.key[0]), desired.fields)

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return self._calls(change.observed.id, change.changed)

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
        site = site_of(raw)
        return Exported("sites", self.name, site_id(raw), "", fields, within=site,
                        nested_as="adaptiveContent", part=True)  # fmt: skip


def _normalized(schema: Any) -> Any:
    """A live schema as the manifest's compares (a schema docform cannot read stays as is)."""
    if schema is None:
        return None
    try:
        return as_sent(VisitorSchema.model_validate(schema))
    except ValidationError:
        return schema


class WrittenCondition(NamedTuple):
    """A condition as a manifest writes it, and where."""

    location: Location
    what: str
    condition: str


def _schema_written(site: Any) -> bool:
    return site.adaptiveContent is not None and site.adaptiveContent.schema_ is not None


def _schema_read(site: Any) -> bool:
    """Whether planning reads the site's live schema for its conditions: the manifest writes
    conditions but no schema of its own (a written one is checked as the manifests load)."""
    return not _schema_written(site) and any(site_conditions(site))


def site_conditions(site: Any) -> Iterator[WrittenCondition]:
    """Every condition a site entry and the entries in it write."""
    for entry in (site, *site.children()):
        for path, condition in conditions_of(entry):
            what = f"{entry.address}: {_dotted(path)}"
            yield WrittenCondition(entry.location_of(path), what, condition)


def _dotted(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path)[1:]


def refuse_broken_conditions(conditions: Iterable[WrittenCondition], schema: Any) -> None:
    """Stop the plan, before any call, at each condition naming a claim the site's live
    adaptive schema lacks."""
    found = [
        f"{c.location}: {c.what}: {message}"
        for c in conditions
        for message in condition_problems(c.condition, schema or {}, "the site's live")
    ]
    if found:
        raise DocformError(
            "\n".join(found) + "\nThe manifests write no adaptive schema for this site, so "
            "conditions are checked against the live one: fix the condition, or write the "
            "claim under adaptiveContent.schema"
        )


def conditions_checked(site_name: str, site: Mapping[str, Any]) -> WrittenProblems:
    """Each condition of the site's structure that names a claim its written schema lacks."""
    schema = _mapping(_mapping(site.get("adaptiveContent")).get("schema"))
    if not schema:
        return
    for path, condition in _conditions(site):
        for message in condition_problems(condition, schema):
            yield (site_name, *path, "condition"), message


def _conditions(site: Mapping[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Each condition a site writes as ``(path of what holds it, condition)``."""
    yield from _header_items(("customization",), site.get("customization"))
    for name, section in _mapping(site.get("sections")).items():
        yield from _condition_of(("sections", name), section)
        for space_name, space in _mapping(_mapping(section).get("spaces")).items():
            yield from _site_space_conditions(("sections", name, "spaces", space_name), space)
    for name, space in _mapping(site.get("spaces")).items():
        yield from _site_space_conditions(("spaces", name), space)
    for name, link in _mapping(site.get("externalLinks")).items():
        yield from _condition_of(("externalLinks", name), link)


def _site_space_conditions(
    path: tuple[str, ...], space: object
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    yield from _condition_of(path, space)
    yield from _header_items((*path, "customization"), _mapping(space).get("customization"))


def _header_items(
    within: tuple[str, ...], document: object
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """The conditions of the header items of a customization block at ``within``, each with
    the path of its item (``condition`` is added by the caller)."""
    for path, condition in header_conditions(document):
        yield (*within, *path[:-1]), condition


def _condition_of(
    path: tuple[str, ...], entry: object
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    condition = _mapping(entry).get("condition")
    if isinstance(condition, str):
        yield path, condition


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
