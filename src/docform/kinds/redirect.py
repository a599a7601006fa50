"""Site redirects (``sites.<site>.redirects``), keyed by their source path within the site.

A redirect sends visitors of a path of the site to a section, a site space, one page of a site
space, or another address. Only the sites whose entry writes ``redirects:`` have theirs read,
compared and pruned: one paged list per such site, and none for a site without the key.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field, model_validator

from docform.engine.capabilities import ReadsBystanders
from docform.engine.field_rules import Unique
from docform.engine.kind import (
    AddressIndex,
    Bystander,
    ChangeContext,
    Desired,
    Gone,
    Kind,
    Observed,
    Ref,
    Resolve,
)
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef, WithinRef
from docform.kind_framework.declaration import Declaration, Nested, Reads
from docform.kind_framework.marks import site_id, site_of, under_site
from docform.kind_framework.planning import entry_desired, site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.site_bystanders import redirects_to
from docform.model.entry import ID_PATTERN, Entry, ManifestModel, Unknown
from docform.model.fields import MAX_URL, URL_PATTERN, Name, escape_invisible
from docform.service.answer_description import within

# A source, as the service's definition has it (SiteRedirectSourcePath): "/" then one or more
# segments of unreserved characters or %XX escapes between single slashes, no trailing slash,
# optionally ending in "*" or "/*" (a wildcard, at the end only).
_SEGMENT = r"(?:[A-Za-z0-9._~+-]|%[0-9A-Fa-f]{2})+"
SOURCE_PATTERN = re.compile(rf"/{_SEGMENT}(?:/{_SEGMENT})*(?:/\*|\*)?")
MAX_SOURCE = 512
SOURCE_RULE = (
    "a path starting with '/' of one or more segments of the characters A-Z a-z 0-9 - . _ ~ + "
    "or %XX escapes between single slashes, no trailing '/', optionally ending in '*' or '/*'"
)
FLAGS = ("permanent", "captureWildcard", "draft")
CREDENTIALS = re.compile(r"^https?://[^/?#]*@")


def _check_source(source: str) -> str:
    if not SOURCE_PATTERN.fullmatch(source):
        raise ValueError(f"'{escape_invisible(source)}' is not a redirect source: {SOURCE_RULE}")
    return source


RedirectSource = Annotated[
    str,
    Field(max_length=MAX_SOURCE, json_schema_extra={"pattern": f"^{SOURCE_PATTERN.pattern}$"}),
    AfterValidator(_check_source),
]


def _check_url(url: str) -> None:
    if not URL_PATTERN.match(url):
        raise ValueError(
            f"'{escape_invisible(url)}' is not an http:// or https:// URL; a section of the "
            "site is written {section: NAME}, a site space {section: NAME, space: NAME}"
        )
    if CREDENTIALS.match(url):
        raise ValueError(
            "a redirect's URL is sent to every visitor, so it must not hold credentials "
            "(user:password@)"
        )


class RedirectTarget(ManifestModel):
    """Where a redirect leads: an http(s) URL (written as the string itself), or a section, a
    site space or one page of a site space of the same site, by manifest name."""

    model_config = ManifestModel.model_config | {
        "json_schema_extra": lambda schema, model: _target_schema(schema, model)
    }

    section: Name | None = Field(None, description="A section of this site.")
    space: Name | None = Field(
        None, description="A site space of that section (or of the site, without sections)."
    )
    page: str | None = Field(
        None, pattern=ID_PATTERN, max_length=100, description="A page's live id."
    )
    url: str | None = Field(None, max_length=MAX_URL)

    @model_validator(mode="before")
    @classmethod
    def _url_as_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            _check_url(value)
            return {"url": value}
        if isinstance(value, Mapping) and "url" in value:
            raise ValueError("an external URL is written as the value itself: `to: URL`")
        return value

    @model_validator(mode="after")
    def _names_one_place(self) -> RedirectTarget:
        if self.url is not None:  # checked as the string it was written as
            return self
        if self.page is not None and self.space is None:
            raise ValueError(
                "a page belongs to a site space: name it too, "
                "{section: NAME, space: NAME, page: ID}"
            )
        if self.section is None and self.space is None:
            raise ValueError("names no destination: write {section: NAME}, a site space or a URL")
        return self

    def address(self, site: str) -> str:
        """The plan address of the section or site space this leads to (within ``site``)."""
        inner = f".section.{self.section}" if self.section else ""
        return f"site.{site}{inner}.space.{self.space}" if self.space else f"site.{site}{inner}"


def _target_schema(schema: dict[str, Any], model: Any) -> None:
    """Editors see the URL string too (the model reads a string as ``{url: ...}``)."""
    manifest_schema = ManifestModel.model_config.get("json_schema_extra")
    if callable(manifest_schema):
        # pydantic types the hook as taking one argument or two; ManifestModel's takes two.
        manifest_schema(schema, model)  # type: ignore[call-arg]
    schema["properties"].pop("url", None)
    as_url = {"type": "string", "pattern": "^https?://", "maxLength": MAX_URL}
    object_schema = dict(schema)
    schema.clear()
    schema["anyOf"] = [as_url, object_schema]


DESTINATION_FIELDS = ("kind", "siteSectionId", "siteSpaceId", "pageId", "url")


class RedirectEntry(Entry):
    """One redirect of a site, written under its source path."""

    kind = "redirect"
    key_is_unique = True
    key_label = "source"
    former_key_fields = ("source",)

    to: RedirectTarget = Field(
        description="An http(s) URL, or {section}, {section, space} or {space} of this site, "
        "any of them with page: ID."
    )
    permanent: bool | None = Field(None, description="Served as a permanent redirect.")
    captureWildcard: bool | None = Field(
        None, description="Carry what the source's trailing '*' matched over to the destination."
    )
    draft: bool | None = Field(None, description="Not live yet.")

    @property
    def address(self) -> str:
        return f"site.{self.scope[0]}.redirect.{self.name}"

    def natural_key(self) -> str:
        # NOTE: a site has at most one redirect from a source (the API answers 409).
        return self.name


class RedirectFields:
    """The field of a redirect that carries a rule: its source, unique in its site."""

    source: Annotated[str, Unique()]


class RedirectKind(Kind, ReadsBystanders):
    """Redirects of the managed sites that write ``redirects:``, keyed by source."""

    name = "redirect"
    declaration = Declaration(
        position=100,
        nested=Nested(RedirectEntry),
        prune_description="Redirects of managed sites that write redirects.",
        reads=Reads(
            fields={
                "/orgs/*/sites/*/redirects": (
                    "id",
                    "source",
                    # `kind` says which of the others it holds
                    *within(
                        "destination", ("kind", "siteSectionId", "siteSpaceId", "pageId", "url")
                    ),
                    "captureWildcard",
                    "permanent",
                    "draft",
                ),
            },
            list_names=("redirects",),
        ),
    )
    references = ("site", "section", "site_space")
    read_after = ("site",)
    fields = RedirectFields
    deleted_with: ClassVar[Mapping[str, str]] = {"to": "pointing at nothing"}
    unmanaged_go_with_container = True
    reached_by = frozenset({"section", "site_space"})

    async def read_bystanders(self, reader: LiveReader, gone: Sequence[Gone]) -> list[Bystander]:
        unread = [s["id"] for s, d in reader.managed_with_entries("site") if not _reads(d)]
        return await redirects_to(reader, self.name, self.org_id, gone, unread)

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = [
            site["id"] for site, desired in reader.managed_with_entries("site") if _reads(desired)
        ]
        lists = await asyncio.gather(
            *(reader.list(self.name, f"{site_prefix(self.org_id, s)}/redirects") for s in sites)
        )
        return [
            under_site(item, site)
            for site, items in zip(sites, lists, strict=True)
            for item in items
        ]

    def desired(self, manifests: ManifestView) -> list[Desired]:
        return [
            self._desired(site.address, site.name, entry)
            for site in manifests.section("sites").values()
            for entry in (site.redirects or {}).values()
        ]

    def _desired(self, site_address: str, site_name: str, e: RedirectEntry) -> Desired:
        fields: dict[str, Any] = {"source": e.name, "to": _target_value(e.to, site_name)}
        fields |= e.model_dump(include=set(FLAGS), exclude_unset=True)
        return entry_desired(e, fields, e.name, scope=(Ref(site_address),))

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None:
            return None
        fields = {"source": raw["source"], "to": _observed_target(raw["destination"], index)}
        fields |= {flag: raw.get(flag) for flag in FLAGS}
        return Observed(
            id=raw["id"], key=(site, raw["source"]), fields=fields, title=raw["source"], raw=raw
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        # The key's first part is the site: created in this apply, or live.
        prefix = site_prefix(self.org_id, resolve(desired.key[0]))
        body = {"source": desired.fields["source"], "destination": _destination(desired, resolve)}
        body |= {flag: desired.fields[flag] for flag in FLAGS if flag in desired.fields}
        return [Call("POST", f"{prefix}/redirects", body)]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        prefix = site_prefix(self.org_id, site_id(change.observed.raw))
        body = {name: value for name, value in change.changed.items() if name != "to"}
        if "to" in change.changed:
            body["destination"] = _destination(change.desired, change.resolve)
        return [Call("PATCH", f"{prefix}/redirects/{change.observed.id}", body)]

    def delete_calls(self, observed: Observed) -> list[Call]:
        prefix = site_prefix(self.org_id, site_id(observed.raw))
        return [Call("DELETE", f"{prefix}/redirects/{observed.id}")]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        fields: dict[str, Any] = {"id": raw["id"], "to": _exported_target(raw["destination"])}
        fields |= {flag: True for flag in FLAGS if raw.get(flag)}
        return Exported(
            "sites", self.name, raw["id"], raw["source"], fields, name=raw["source"],
            within=site_of(raw), nested_as="redirects",
        )  # fmt: skip


def _target_value(target: RedirectTarget, site: str) -> str | Ref | dict[str, Ref | str]:
    """What a plan compares and shows: the URL, the section or site space (a reference), or
    ``{space, page}``."""
    if target.url is not None:
        return target.url
    place = Ref(target.address(site))
    return {"space": place, "page": target.page} if target.page else place


def _reads(site: Desired | None) -> bool:
    """Whether planning reads the redirects of a managed site: when its entry writes them
    (every site's when exporting, with no entries)."""
    return site is None or site.entry.redirects is not None


def _observed_target(destination: Mapping[str, Any], index: AddressIndex) -> object:
    kind = destination.get("kind")
    if kind == "site-section":
        return index.ref("section", destination.get("siteSectionId"))
    if kind == "site-space":
        return index.ref("site_space", destination.get("siteSpaceId"))
    if kind == "site-page":
        space = index.ref("site_space", destination.get("siteSpaceId"))
        return {"space": space, "page": destination.get("pageId")}
    return destination.get("url")


def _destination(desired: Desired, resolve: Resolve) -> dict[str, Any]:
    """The API's ``destination`` of a desired redirect, references resolved to live ids."""
    target: RedirectTarget = desired.entry.to
    value = desired.fields["to"]
    if target.url is not None:
        return {"kind": "external", "url": target.url}
    if target.page is not None:
        space = resolve(value["space"])
        return {"kind": "site-page", "siteSpaceId": space, "pageId": target.page}
    if target.space is not None:
        return {"kind": "site-space", "siteSpaceId": resolve(value)}
    return {"kind": "site-section", "siteSectionId": resolve(value)}


def _exported_target(destination: Mapping[str, Any]) -> object:
    kind = destination.get("kind")
    if kind == "site-section":
        return {"section": LiveRef("section", destination["siteSectionId"])}
    if kind in ("site-space", "site-page"):
        site_space = LiveRef("site_space", destination["siteSpaceId"])
        # A site space's name is unique in its section: name the section too (none at the root).
        target = {"section": WithinRef(site_space, "section"), "space": site_space}
        if kind == "site-page":
            target["page"] = destination["pageId"]
        return target
    return destination.get("url")


# -- checks between entries (run by the manifest's reference checker) ---------------------------


def redirect_problems(
    site: Mapping[str, Any], unknown: Unknown
) -> Iterator[tuple[tuple[str, ...], str]]:
    """``(path within the site, message)`` for each redirect whose ``to`` names a section or
    site space the site does not list, or that captures a wildcard its source does not have."""
    sections = _mapping(site.get("sections"))
    for source, redirect in _mapping(site.get("redirects")).items():
        path = ("redirects", source)
        if _mapping(redirect).get("captureWildcard") is True and not source.endswith("*"):
            yield (*path, "captureWildcard"), "needs a source ending in '*' (a wildcard)"
        to = _mapping(_mapping(redirect).get("to"))
        if to:
            spaces = _mapping(site.get("spaces"))
            yield from _target_problems((*path, "to"), to, sections, spaces, unknown)


def _target_problems(
    path: tuple[str, ...],
    to: Mapping[str, Any],
    sections: Mapping[str, Any],
    root_spaces: Mapping[str, Any],
    unknown: Unknown,
) -> Iterator[tuple[tuple[str, ...], str]]:
    section, space = to.get("section"), to.get("space")
    spaces = root_spaces
    if isinstance(section, str):
        if section not in sections:
            yield (*path, "section"), unknown("section", section, list(sections))
            return
        spaces = _mapping(_mapping(sections[section]).get("spaces"))
    elif sections and isinstance(space, str):
        message = "this site lists its site spaces in sections: write {section: NAME, space: "
        yield (*path, "space"), f"{message}{space}}}"
        return
    if isinstance(space, str) and space not in spaces:
        yield (*path, "space"), unknown("site space", space, list(spaces))


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
