"""Policies docform ships, ready to enable with ``builtin: NAME`` and their parameters.

Each is an ordinary CEL rule over the documented inputs (docs/policies.md), so what a built-in
checks can be read here and copied into a policy of one's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Builtin:
    description: str
    rule: str
    message: str
    each: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    """Every parameter with its default: a policy may set these and no others."""


_SHARE_OF = "(k in params.kinds ? double(params.kinds[k]) : double(params.share))"
_OVER_SHARE = (
    "k in plan.live_counts && plan.live_counts[k] >= params.floor && "
    f"double(plan.deletions[k]) > {_SHARE_OF} * double(plan.live_counts[k])"
)
_ADMINS = "('admin' in tally.desired.member.role ? tally.desired.member.role['admin'] : 0)"

BUILTINS: dict[str, Builtin] = {
    "minimum-admins": Builtin(
        description="The organization keeps at least `count` admins.",
        rule=f"{_ADMINS} >= params.count",
        message=f"'the organization would have ' + string({_ADMINS})"
        " + ' admins, fewer than ' + string(params.count)",
        params={"count": 2},
    ),
    "admins-use-sso": Builtin(
        description="Every admin signs in with SSO.",
        each="member",
        rule="object.fields.role != 'admin' || (has(object.fields.sso) && object.fields.sso)",
        message="'admin ' + object.title + ' does not sign in with SSO (sso: true)'",
    ),
    "max-deletion-share": Builtin(
        description="No apply deletes more than a share of the live objects of a kind (per "
        "kind in `kinds`, else `share`; kinds with fewer than `floor` live objects are exempt), "
        "unless the pull request carries the label `label`.",
        rule=f"params.label in plan.labels || !plan.deletions.exists(k, {_OVER_SHARE})",
        message=f"'the plan deletes more than the allowed share of '"
        f" + plan.deletions.filter(k, {_OVER_SHARE}).join(', ')"
        " + ' (label the pull request ' + params.label + ' to allow it)'",
        params={"share": 0.3, "kinds": {}, "floor": 10, "label": "mass-delete"},
    ),
    "public-sites-allowed": Builtin(
        description="A site is public only when it is in the allow-list `allow` (site addresses).",
        each="site",
        rule="!has(object.fields.visibility) || object.fields.visibility != 'public' || "
        "object.address in params.allow",
        message="'site ' + object.title + ' is public but not in the allow-list of '"
        " + 'public-sites-allowed'",
        params={"allow": []},
    ),
    "share-link-age": Builtin(
        description="No active share link is older than `maxDays` days (each opens a private "
        "site to whoever holds its URL): rotate it by deleting and creating it.",
        each="share_link",
        rule="!has(object.createdAt) || (has(object.fields.active) && !object.fields.active) "
        "|| now - timestamp(object.createdAt) <= duration(string(params.maxDays * 24) + 'h')",
        message="'share link ' + object.address + ' is older than ' + string(params.maxDays)"
        " + ' days: rotate it (delete it and create a new one)'",
        params={"maxDays": 90},
    ),
    "spaces-in-collections": Builtin(
        description="Every space belongs to a collection.",
        each="space",
        rule="has(object.fields.collection) && object.fields.collection != null",
        message="'space ' + object.title + ' belongs to no collection'",
    ),
}
