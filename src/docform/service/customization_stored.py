"""A site's customization document as the service keeps it: `DEFAULTS`, docform's document for
a site never customized (the API states only ``insights.trackingCookie``'s and a social
account's ``display`` defaults; the rest is the sandbox's choice, and what ``managed: whole``
resets a field to), and what the service stores of a document it is sent (optional keys sent as
null are absent, page actions follow the AI mode).

Shared by the manifest (a block is laid over the defaults, and compared as stored) and the
sandbox (which answers with what it stores).
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

from docform.service.site_customization import Customization


def _themed(color: str) -> dict[str, str]:
    return {"light": color, "dark": color}


DEFAULTS: dict[str, Any] = {
    "styling": {
        "theme": "clean",
        "primaryColor": _themed("#346DDB"),
        "infoColor": _themed("#787878"),
        "successColor": _themed("#00C950"),
        "warningColor": _themed("#FE9A00"),
        "dangerColor": _themed("#FB2C36"),
        "corners": "rounded",
        "depth": "subtle",
        "links": "default",
        "font": "Inter",
        "monospaceFont": "IBMPlexMono",
        "background": "plain",
        "codeTheme": {
            "default": {"light": "default-light", "dark": "default-dark"},
            "openapi": {"light": "default-light", "dark": "default-dark"},
        },
        "sidebar": {"background": "default", "list": "default"},
        "search": "prominent",
        "icons": "regular",
    },
    "favicon": {},
    "header": {"preset": "default", "links": []},
    "footer": {"groups": []},
    "ai": {"mode": "search"},
    "internationalization": {"locale": "en"},
    "themes": {"default": "system", "toggeable": True},
    "feedback": {"enabled": False},
    "advancedCustomization": {"enabled": False},
    "pagination": {"enabled": True},
    "trademark": {"enabled": True},
    "pageActions": {"items": []},
    "externalLinks": {"target": "self"},
    "privacyPolicy": {},
    "socialPreview": {},
    "socialAccounts": [],
    "insights": {"trackingCookie": True},
}


def defaults() -> dict[str, Any]:
    """A fresh copy of `DEFAULTS`, safe to change."""
    return copy.deepcopy(DEFAULTS)


def laid_over(base: Any, top: Any) -> Any:
    """``top`` laid over ``base``: mappings merge key by key, anything else replaces."""
    if not isinstance(base, dict) or not isinstance(top, dict):
        return copy.deepcopy(top)
    merged = dict(base)
    for key, value in top.items():
        merged[key] = laid_over(base.get(key), value)
    return merged


def stored_page_actions(items: list[str], ai_mode: str) -> list[str]:
    """The page actions the service stores for ``items``: in a non-empty list the assistant
    follows ``ai.mode`` (first while the assistant is on, gone while it is off)."""
    if not items:
        return []
    rest = [item for item in items if item != "assistant"]
    if ai_mode != "assistant":
        return rest
    return items if "assistant" in items else ["assistant", *rest]


def as_stored(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (valid) as the service stores it: optional keys sent as null are absent,
    and page actions follow the AI mode."""
    stored = stored_fields(Customization.model_validate(document))
    actions = stored["pageActions"]["items"]
    stored["pageActions"] = {"items": stored_page_actions(actions, stored["ai"]["mode"])}
    return stored


def stored_fields(model: BaseModel) -> dict[str, Any]:
    """``model`` as a plain document without its optional keys that are null."""
    out: dict[str, Any] = {}
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if value is None and not field.is_required():
            continue
        out[name] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return stored_fields(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
