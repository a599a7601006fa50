"""Small pieces several kinds use to export live objects as manifest fields (`export_entry`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from docform.export.model import LiveRef


def role_entry(role: str | None) -> str:
    """A live role or level as the manifest writes it: the API's null is ``guest``."""
    return "guest" if role is None else role


def set_fields(
    raw: Mapping[str, Any], names: Iterable[str], defaults: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The fields of ``names`` that ``raw`` sets, in that order, leaving out nulls, empty
    strings and values equal to the API's ``defaults`` (a field left out is not managed)."""
    defaults = defaults or {}
    out: dict[str, Any] = {}
    for name in names:
        value = raw.get(name)
        if value is None or value == "" or (name in defaults and defaults[name] == value):
            continue
        out[name] = value
    return out


def merge_rules_entry(raw: Any) -> dict[str, Any] | None:
    """Live merge rules in the manifest's shape, user ids as member references."""
    if not isinstance(raw, Mapping) or raw.get("type") is None:
        return None
    out: dict[str, Any] = {"type": raw["type"]}
    if raw.get("rules") is not None:
        out["rules"] = [_rule_entry(rule) for rule in raw["rules"]]
    return out


def _rule_entry(rule: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in rule.items() if v is not None}
    if "users" in out:
        out["users"] = [LiveRef("member", user) for user in out["users"]]
    return out
