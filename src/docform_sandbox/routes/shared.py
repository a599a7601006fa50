"""What several resource families share: merge rules, levels, the answer of a removal, the
objects a site holds in a list of its own."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from docform_sandbox.http import Ctx, bad_request, check_role, not_found

RULES_WITH_USERS = (
    "require_specific_reviewers",
    "require_one_of_specific_reviewers",
    "allow_bypass",
)
RULES_PLAIN = (
    "require_at_least_one_review",
    "require_at_least_one_approved_review",
    "require_all_reviews_approved",
    "require_up_to_date_change_request",
    "require_change_request_subject",
    "require_change_request_description",
    "require_author_to_merge",
)


def check_merge_rules(value: Any, field_name: str, *, allow_inherit: bool) -> None:
    """``{type: inherit}`` (spaces only), ``{type: none}`` or ``{type: rules, rules: [...]}``."""
    types = ("inherit", "rules", "none") if allow_inherit else ("rules", "none")
    if not isinstance(value, dict) or value.get("type") not in types:
        names = ", ".join(repr(t) for t in types)
        raise bad_request(f"{field_name}.type: must be one of {names}")
    if value["type"] != "rules":
        return
    rules = value.get("rules")
    if not isinstance(rules, list):
        raise bad_request(f"{field_name}.rules: must be a list")
    for i, rule in enumerate(rules):
        _check_rule(rule, f"{field_name}.rules.{i}")


def _check_rule(rule: Any, where: str) -> None:
    name = rule.get("rule") if isinstance(rule, dict) else None
    if name in RULES_WITH_USERS:
        users = rule.get("users")
        if not isinstance(users, list) or not all(isinstance(u, str) for u in users):
            raise bad_request(f"{where}.users: must be a list of user ids")
    elif name == "custom":
        if not isinstance(rule.get("expression"), str):
            raise bad_request(f"{where}.expression: required string for a custom rule")
    elif name not in RULES_PLAIN:
        raise bad_request(f"{where}.rule: unknown merge rule {name!r}")


def check_level(value: Any, field_name: str) -> None:
    """A default level: a role, null (guest) or 'inherit'."""
    check_role(value, field_name, allow_inherit=True)


def removed() -> Response:
    """The answer to a DELETE that removed something: 205, no body (204 means nothing was)."""
    return Response(status_code=205)


def held_by(ctx: Ctx, site: dict[str, Any], kind: str, param: str, noun: str) -> dict[str, Any]:
    """The object of ``kind`` the path parameter ``param`` names, which ``site`` holds (a share
    link, a context connection); 404 naming it as ``noun`` otherwise."""
    doc = ctx.store.get(kind, ctx.params[param])
    if doc is None or doc.get("site") != site["id"]:
        raise not_found(noun, ctx.params[param])
    return doc


def delete_held(ctx: Ctx, site: dict[str, Any], kind: str, param: str) -> Response | None:
    """Delete what `held_by` finds: 205 when ``site`` held it, 204 (None) when not."""
    doc = ctx.store.get(kind, ctx.params[param])
    if doc is None or doc.get("site") != site["id"]:
        return None
    ctx.store.delete(kind, doc["id"])
    return removed()
