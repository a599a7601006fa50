"""Per-site-space overrides of a site's customization (``PATCH .../site-spaces/{siteSpaceId}/
customization``): the override document, whose keys are each optional, a value setting one and
null clearing it, and how overrides merge (into stored ones, and over the site's document).

Shared by the manifest (a site space's ``customization:`` block) and the sandbox.
"""

from __future__ import annotations

import copy
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from docform.service.site_customization import (
    Announcement,
    CodeThemePair,
    ContentRef,
    Favicon,
    FooterGroup,
    HeaderItem,
    Locale,
    LocalizedString128,
    Strict,
    ThemedColor,
    ThemedUrl,
    Tint,
    Url,
)

SITE_ONLY = "a site space cannot override it: set it in the site's customization"


class OverrideGroup(Strict):
    """A part of an override whose keys are set one by one (a PATCH merges it)."""


class SidebarOverride(OverrideGroup):
    background: Literal["default", "filled"] | None = None
    list: Literal["default", "pill", "line"] | None = None


class CodeThemeOverride(OverrideGroup):
    default: CodeThemePair | None = None
    openapi: CodeThemePair | None = None


class StylingOverride(OverrideGroup):
    unknown_key_hints: ClassVar[Mapping[str, str]] = {
        key: SITE_ONLY for key in ("font", "headingFont", "monospaceFont")
    }

    theme: Literal["clean", "muted", "bold", "gradient"] | None = None
    primaryColor: ThemedColor | None = None
    infoColor: ThemedColor | None = None
    successColor: ThemedColor | None = None
    warningColor: ThemedColor | None = None
    dangerColor: ThemedColor | None = None
    tint: Tint | None = None
    corners: Literal["straight", "rounded", "circular"] | None = None
    depth: Literal["subtle", "flat"] | None = None
    links: Literal["default", "accent"] | None = None
    icons: Literal["regular", "solid", "duotone", "light", "thin"] | None = None
    search: Literal["prominent", "subtle"] | None = None
    background: Literal["plain", "match"] | None = None
    sidebar: SidebarOverride | None = None
    codeTheme: CodeThemeOverride | None = None


class HeaderOverride(OverrideGroup):
    preset: Literal["default", "bold", "contrast", "custom", "none"] | None = None
    logo: ThemedUrl | None = None
    primaryLink: ContentRef | None = None
    backgroundColor: ThemedColor | None = None
    linkColor: ThemedColor | None = None
    links: list[HeaderItem] | None = None


class FooterOverride(OverrideGroup):
    logo: ThemedUrl | None = None
    groups: list[FooterGroup] | None = None
    copyright: str | None = Field(None, max_length=512)


class ThemesOverride(OverrideGroup):
    default: Literal["light", "dark", "system"] | None = None
    toggeable: bool | None = None


class EnabledOverride(OverrideGroup):
    enabled: bool | None


class LocaleOverride(OverrideGroup):
    locale: Locale | None


class TargetOverride(OverrideGroup):
    target: Literal["self", "blank"] | None


class UrlOverride(OverrideGroup):
    url: Url | None = None


class Override(OverrideGroup):
    """What a site space shows differently from its site: a key left out keeps its override,
    a value sets it, null clears it (the site's value again). Fonts, AI, advanced
    customization, page actions, social accounts and insights are the site's only."""

    unknown_key_hints: ClassVar[Mapping[str, str]] = {
        key: SITE_ONLY
        for key in ("ai", "advancedCustomization", "pageActions", "socialAccounts", "insights")
    }

    title: str | None = Field(None, min_length=2, max_length=128)
    localizedTitle: LocalizedString128 | None = None
    styling: StylingOverride | None = None
    internationalization: LocaleOverride | None = None
    favicon: Favicon | None = None
    announcement: Announcement | None = None
    header: HeaderOverride | None = None
    footer: FooterOverride | None = None
    themes: ThemesOverride | None = None
    feedback: EnabledOverride | None = None
    pagination: EnabledOverride | None = None
    trademark: EnabledOverride | None = None
    externalLinks: TargetOverride | None = None
    privacyPolicy: UrlOverride | None = None
    socialPreview: UrlOverride | None = None


def merged_overrides(
    stored: dict[str, Any], patch: dict[str, Any], model: type[BaseModel] = Override
) -> dict[str, Any]:
    """``patch`` merged into ``stored`` (overrides, or the site's document for the effective
    one): the parts of an override (`OverrideGroup`) nest, anything else is replaced whole, and
    null clears a key."""
    out = copy.deepcopy(stored)
    for key, value in patch.items():
        group = override_group(model, key)
        if value is None:
            out.pop(key, None)
        elif group is not None and isinstance(value, dict):
            # Nested nulls clear inside the part; a part left with nothing is gone.
            merged = merged_overrides(_mapping(out.get(key)), value, group)
            if merged:
                out[key] = merged
            else:
                out.pop(key, None)
        else:
            out[key] = copy.deepcopy(value)
    return out


def override_group(model: type[BaseModel], key: str) -> type[OverrideGroup] | None:
    """The part of an override ``key`` names in ``model``, if it is one."""
    field = model.model_fields.get(key)
    if field is None:
        return None
    for candidate in typing.get_args(field.annotation) or (field.annotation,):
        if isinstance(candidate, type) and issubclass(candidate, OverrideGroup):
            return candidate
    return None


def override_leaves(
    model: type[BaseModel] = Override, prefix: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    """The fields of an override, one by one (the parts walked down to their keys)."""
    found: list[tuple[str, ...]] = []
    for name in model.model_fields:
        group = override_group(model, name)
        if group is None:
            found.append((*prefix, name))
        else:
            found += override_leaves(group, (*prefix, name))
    return found


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
