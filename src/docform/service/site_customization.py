"""A site's customization document (``GET``/``PUT .../sites/{siteId}/customization``) as the
API defines it: its fields, their limits and enumerations, and the document a new site has.

Shared by the manifest (a site entry's ``customization:`` block is checked against it) and the
sandbox (which validates the PUT body with it). Keys the API requires are required here; the
document of a site never customized and what the service stores of a document are in
`docform.service.customization_stored`.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

COLOR_PATTERN = r"^#(?:[0-9a-fA-F]{3}){1,2}$"
URL_PATTERN = r"^https?://[^\s/?#]+[^\s]*$"

LANGUAGES = (
    "en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "zh-tw", "yue", "ko", "ar",
    "hi", "nl", "pl", "tr", "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id",
    "ms", "he", "uk", "sk", "bg", "hr", "lt", "lv", "et", "sl",
)  # fmt: skip
Language = Literal[
    "en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "zh-tw", "yue", "ko", "ar",
    "hi", "nl", "pl", "tr", "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id",
    "ms", "he", "uk", "sk", "bg", "hr", "lt", "lv", "et", "sl",
]  # fmt: skip

Color = Annotated[str, Field(pattern=COLOR_PATTERN)]
Url = Annotated[str, Field(pattern=URL_PATTERN, max_length=2048)]
Expression = Annotated[str, Field(max_length=1024)]
LocalizedString = dict[Language, str]
LocalizedString64 = dict[Language, Annotated[str, Field(max_length=64)]]
LocalizedString128 = dict[Language, Annotated[str, Field(max_length=128)]]
LocalizedString256 = dict[Language, Annotated[str, Field(max_length=256)]]

CODE_THEMES = (
    "default-light", "default-dark", "monochrome-light", "monochrome-dark", "andromeeda",
    "aurora-x", "ayu-dark", "catppuccin-frappe", "catppuccin-latte", "catppuccin-macchiato",
    "catppuccin-mocha", "dark-plus", "dracula", "dracula-soft", "everforest-dark",
    "everforest-light", "github-dark", "github-dark-default", "github-dark-dimmed",
    "github-dark-high-contrast", "github-light", "github-light-default",
    "github-light-high-contrast", "gruvbox-dark-hard", "gruvbox-dark-medium", "gruvbox-dark-soft",
    "gruvbox-light-hard", "gruvbox-light-medium", "gruvbox-light-soft", "houston",
    "kanagawa-dragon", "kanagawa-lotus", "kanagawa-wave", "laserwave", "light-plus",
    "material-theme", "material-theme-darker", "material-theme-lighter", "material-theme-ocean",
    "material-theme-palenight", "min-dark", "min-light", "monokai", "night-owl", "nord",
    "one-dark-pro", "one-light", "plastic", "poimandres", "red", "rose-pine", "rose-pine-dawn",
    "rose-pine-moon", "slack-dark", "slack-ochin", "snazzy-light", "solarized-dark",
    "solarized-light", "synthwave-84", "tokyo-night", "vesper", "vitesse-black", "vitesse-dark",
    "vitesse-light",
)  # fmt: skip


def _check_code_theme(value: str) -> str:
    if value not in CODE_THEMES:
        close = difflib.get_close_matches(value, CODE_THEMES, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ValueError(f"'{value}' is not a code theme{hint}")
    return value


CodeTheme = Annotated[
    str, AfterValidator(_check_code_theme), Field(json_schema_extra={"enum": list(CODE_THEMES)})
]
DefaultFont = Literal[
    "ABCFavorit", "Inter", "Roboto", "RobotoSlab", "OpenSans", "SourceSansPro", "Lato", "Ubuntu",
    "Raleway", "Merriweather", "Overpass", "NotoSans", "IBMPlexSerif", "Poppins", "FiraSans",
]  # fmt: skip
DefaultMonospaceFont = Literal[
    "FiraCode", "IBMPlexMono", "JetBrainsMono", "SourceCodePro", "RobotoMono", "SpaceMono",
    "DMMono", "Inconsolata",
]  # fmt: skip
PageAction = Literal["assistant", "external-ai", "markdown", "mcp", "git", "pdf"]
Platform = Literal[
    "twitter", "instagram", "facebook", "linkedin", "github", "discord", "slack", "youtube",
    "tiktok", "reddit", "bluesky", "mastodon", "threads", "medium",
]  # fmt: skip
Locale = Literal["en", "fr", "es", "zh", "ja", "de", "nl", "no", "pt-br", "ru"]


class Strict(BaseModel):
    """A mapping of the document: unknown keys are refused (the API has none)."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class ThemedColor(Strict):
    light: Color
    dark: Color


class ThemedUrl(Strict):
    light: Url
    dark: Url


class ContentRef(Strict):
    """Where a link goes: ``kind`` says which of the other keys it holds."""

    kind: Literal[
        "file", "url", "page", "anchor", "user", "collection", "space", "reusable-content",
        "tag", "openapi",
    ]  # fmt: skip
    url: Url | None = None
    file: str | None = None
    page: str | None = None
    anchor: str | None = None
    user: str | None = None
    collection: str | None = None
    space: str | None = None
    reusableContent: str | None = None
    tag: str | None = None
    spec: str | None = None

    @model_validator(mode="after")
    def _holds_its_kind(self) -> ContentRef:
        needed = {"reusable-content": "reusableContent", "openapi": "spec"}.get(
            self.kind, self.kind
        )
        if getattr(self, needed) is None:
            raise ValueError(f"a link of kind '{self.kind}' needs `{needed}`")
        return self


class ContentLink(Strict):
    title: str = Field(max_length=64)
    localizedTitle: LocalizedString64 | None = None
    to: ContentRef


class FontSource(Strict):
    url: Url
    format: Literal["woff2", "woff"] | None = None


class FontFace(Strict):
    weight: int = Field(ge=1, le=1000)
    sources: list[FontSource] = Field(min_length=1)


class FontDefinition(Strict):
    id: str
    custom: bool
    fontFamily: str = Field(min_length=1, max_length=50)
    fontFaces: list[FontFace] = Field(min_length=1)


class CodeThemePair(Strict):
    light: CodeTheme
    dark: CodeTheme


class CodeThemes(Strict):
    default: CodeThemePair
    openapi: CodeThemePair


class Sidebar(Strict):
    background: Literal["default", "filled"]
    list: Literal["default", "pill", "line"]


class Tint(Strict):
    color: ThemedColor


class Styling(Strict):
    theme: Literal["clean", "muted", "bold", "gradient"]
    primaryColor: ThemedColor
    infoColor: ThemedColor
    successColor: ThemedColor
    warningColor: ThemedColor
    dangerColor: ThemedColor
    tint: Tint | None = None
    corners: Literal["straight", "rounded", "circular"]
    depth: Literal["subtle", "flat"]
    links: Literal["default", "accent"]
    font: DefaultFont | FontDefinition
    headingFont: DefaultFont | FontDefinition | None = None
    monospaceFont: DefaultMonospaceFont | FontDefinition
    background: Literal["plain", "match"]
    codeTheme: CodeThemes
    sidebar: Sidebar
    search: Literal["prominent", "subtle"]
    icons: Literal["regular", "solid", "duotone", "light", "thin"]


class Favicon(Strict):
    """An icon, an emoji, or neither (the default icon)."""

    icon: ThemedUrl | None = None
    emoji: str | None = Field(None, max_length=50)

    @model_validator(mode="after")
    def _one_of(self) -> Favicon:
        if self.icon is not None and self.emoji is not None:
            raise ValueError("a favicon is an icon or an emoji, not both")
        return self


class HeaderItem(Strict):
    title: str
    localizedTitle: LocalizedString | None = None
    style: Literal["link", "button-primary", "button-secondary"] | None = None
    to: ContentRef | None
    links: list[ContentLink]
    condition: Expression | None = None


class Header(Strict):
    preset: Literal["default", "bold", "contrast", "custom", "none"]
    logo: ThemedUrl | None = None
    primaryLink: ContentRef | None = None
    backgroundColor: ThemedColor | None = None
    linkColor: ThemedColor | None = None
    links: list[HeaderItem]


class FooterGroup(Strict):
    title: str
    localizedTitle: LocalizedString | None = None
    links: list[ContentLink]


class Footer(Strict):
    logo: ThemedUrl | None = None
    groups: list[FooterGroup]
    copyright: str | None = Field(None, max_length=512)


class Announcement(Strict):
    enabled: bool
    message: str = Field(min_length=2, max_length=128)
    localizedMessage: LocalizedString128 | None = None
    link: ContentLink | None = None
    style: Literal["info", "warning", "danger", "success"]


class Ai(Strict):
    mode: Literal["none", "search", "assistant"]
    greeting: str | None = Field(None, max_length=256)
    localizedGreeting: LocalizedString128 | None = None
    suggestions: list[Annotated[str, Field(min_length=3, max_length=64)]] | None = Field(
        None, max_length=5
    )
    instructions: str | None = Field(None, max_length=10000)


class SocialDisplay(Strict):
    footer: bool = True
    header: bool = False


class SocialAccount(Strict):
    platform: Platform
    handle: str = Field(min_length=1, max_length=128, pattern=r"^[^@]")
    display: SocialDisplay


class Enabled(Strict):
    enabled: bool


class Internationalization(Strict):
    locale: Locale


class Themes(Strict):
    default: Literal["light", "dark", "system"]
    toggeable: bool


class PageActions(Strict):
    items: list[PageAction]


class ExternalLinks(Strict):
    target: Literal["self", "blank"]


class OptionalUrl(Strict):
    url: Url | None = None


class Insights(Strict):
    trackingCookie: bool


class Customization(Strict):
    """The whole document a PUT sends (an answer adds ``updatedAt``)."""

    title: str | None = Field(None, min_length=2, max_length=128)
    localizedTitle: LocalizedString128 | None = None
    styling: Styling
    favicon: Favicon
    header: Header
    footer: Footer
    ai: Ai
    announcement: Announcement | None = None
    internationalization: Internationalization
    themes: Themes
    feedback: Enabled
    advancedCustomization: Enabled
    pagination: Enabled
    trademark: Enabled
    pageActions: PageActions
    externalLinks: ExternalLinks
    privacyPolicy: OptionalUrl
    socialPreview: OptionalUrl
    socialAccounts: list[SocialAccount] = Field(max_length=10)
    insights: Insights


def document_schema() -> dict[str, Any]:
    """The JSON Schema of the whole document, self-contained (no ``$ref``)."""
    schema = Customization.model_json_schema()
    inlined: dict[str, Any] = inline_schema(schema, schema.pop("$defs", {}))
    return inlined


def inline_schema(schema: Any, definitions: dict[str, Any]) -> Any:
    """``schema`` with each ``$ref`` to ``definitions`` replaced by what it names."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return inline_schema(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
        # A schema's own "title" names a pydantic class; a property named title stays.
        return {
            k: inline_schema(v, definitions)
            for k, v in schema.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [inline_schema(v, definitions) for v in schema]
    return schema
