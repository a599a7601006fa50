"""A site's customization (``sites.<site>.customization``): its branding, header, footer, AI
and page settings, one document per site (``GET``/``PUT .../sites/{siteId}/customization``).

The PUT replaces the whole document: a field it leaves out goes back to its default. So docform
never sends the manifest's block alone: it sends the live document with the changed fields set,
and a plan lists only the fields that change (``styling.primaryColor.light: "#346DDB" ->
"#0B5FFF"``). With ``managed: whole`` every field the block leaves out is compared with its
default, so the plan shows each reset. Values are compared as the service stores them (page
actions follow the AI mode; a null optional field is absent), so a converged site shows no
change. Read only for the sites whose entries write the block (one GET each).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from docform.engine.kind import AddressIndex, ChangeContext, Desired, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.marks import SITE, site_id, site_of, site_setting
from docform.kind_framework.planning import site_ref
from docform.kind_framework.rest import site_prefix
from docform.kind_framework.settings import SettingsKind
from docform.kinds.customization_block import (
    LEAVES,
    CustomizationBlock,
    fields_of,
    has_leaf,
    leaf_name,
    value_at,
    with_fields,
)
from docform.service.customization_stored import (
    DEFAULTS,
    as_stored,
    defaults,
    laid_over,
    stored_fields,
    stored_page_actions,
)

PAGE_ACTIONS = "pageActions.items"
FONTS = ("font", "headingFont", "monospaceFont")
#: Keys of an answer that are not part of the document a PUT sends (``id`` and the site's
#: mark, which `CustomizationKind.read` adds, the document having no id of its own).
ANSWER_ONLY = ("updatedAt", "hasOverrides", "id", SITE)


class FollowsAiMode(list[str]):
    """Page actions written without the AI mode: the service keeps the assistant first while
    the live mode is the assistant and drops it otherwise, which a non-empty live list shows.
    Sent and shown as the list written; `CustomizationKind.same_field` compares it."""

    def as_stored_beside(self, live: list[str]) -> list[str]:
        """The list as the service stores it under the AI mode ``live`` shows."""
        return stored_page_actions(list(self), "assistant" if "assistant" in live else "none")


class CustomizationKind(SettingsKind):
    """One customization per managed site whose entry writes ``customization:``."""

    name = "customization"
    plural = "site customizations"
    prune_setting = None
    declaration = Declaration(
        position=65,
        reads=Reads(
            fields={
                "/orgs/*/sites/*/customization": (
                    "styling",
                    "header",
                    "footer",
                    "ai",
                    "pageActions",
                ),
            },
        ),
    )
    references = ("site",)
    read_after = ("site",)
    cannot_delete = "write `customization: {managed: whole}` on the site to reset it"
    # A font's faces are one per weight: the browser picks by weight, not by place. Every other
    # list is shown in its order (links, footer groups, page actions: the first is the button).
    order_free = frozenset(f"styling.{font}.fontFaces" for font in FONTS)

    def same_field(self, name: str, want: Any, have: Any) -> bool:
        if isinstance(want, FollowsAiMode) and isinstance(have, list):
            want = want.as_stored_beside(have)
        return super().same_field(name, want, have)

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        sites = [
            site["id"]
            for site, desired in reader.managed_with_entries("site")
            if desired is None or desired.entry.customization is not None
        ]
        answers = await asyncio.gather(
            *(reader.get_or_none(self.name, self._path(site)) for site in sites)
        )
        return [
            site_setting(answer, site)
            for site, answer in zip(sites, answers, strict=True)
            if answer is not None
        ]

    def _path(self, site: Any) -> str:
        return f"{site_prefix(self.org_id, site)}/customization"

    def settings_desired(self, manifests: ManifestView) -> list[Desired]:
        return [
            self._desired(site.address, site.customization, str(site.location))
            for site in manifests.section("sites").values()
            if site.customization is not None
        ]

    def _desired(self, site: str, block: CustomizationBlock, location: str) -> Desired:
        return Desired(
            address=f"{site}.customization",
            key=(Ref(site),),
            fields=wanted_fields(block),
            location=location,
            entry=block,
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        site = site_ref(index, raw)
        if site is None or not self.written_on(site):
            return None
        return Observed(
            id=site_id(raw),
            key=(site,),
            fields=fields_of(document_of(raw)),
            title=f"{site.address} customization",
            raw=raw,
        )

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        # A site created in this apply has the default document.
        site = resolve(desired.key[0])
        block: CustomizationBlock = desired.entry
        return [Call("PUT", self._path(site), laid_over(DEFAULTS, block.written))]

    def change_calls(self, change: ChangeContext) -> list[Call]:
        body = with_fields(document_of(change.observed.raw), change.changed)
        return [Call("PUT", self._path(change.observed.id), body)]

    def export_entry(self, raw: Mapping[str, Any]) -> Exported | None:
        """The fields that differ from the defaults, as a part of the site's entry."""
        changed = changed_from_defaults(document_of(raw))
        if not changed:
            return None
        return Exported(
            "sites",
            self.name,
            site_id(raw),
            "",
            changed,
            within=site_of(raw),
            nested_as="customization",
            part=True,
        )


def document_of(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The document a PUT would send back: the answer without its answer-only keys."""
    return {k: v for k, v in raw.items() if k not in ANSWER_ONLY}


def wanted_fields(block: CustomizationBlock) -> dict[str, Any]:
    """The fields the block manages, as the service will store them."""
    if block.managed == "whole":
        return fields_of(as_stored(laid_over(DEFAULTS, block.written)))
    full = stored_fields(block)
    wanted = {
        leaf_name(leaf): value_at(full, leaf) for leaf in LEAVES if has_leaf(block.written, leaf)
    }
    if PAGE_ACTIONS in wanted:
        items = wanted[PAGE_ACTIONS]
        mode = value_at(block.written, ("ai", "mode"))
        wanted[PAGE_ACTIONS] = (
            stored_page_actions(items, mode) if mode is not None else FollowsAiMode(items)
        )
    return wanted


def changed_from_defaults(document: dict[str, Any]) -> dict[str, Any]:
    """The parts of ``document`` that differ from `DEFAULTS`, as a block writes them."""
    base = defaults()
    block: dict[str, Any] = {}
    for leaf in LEAVES:
        value = value_at(document, leaf)
        if value == value_at(base, leaf) or (value is None and not has_leaf(base, leaf)):
            continue
        at = block
        for key in leaf[:-1]:
            at = at.setdefault(key, {})
        at[leaf[-1]] = value
    return block
