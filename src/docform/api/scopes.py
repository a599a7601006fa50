"""What a plan's calls need of the API token: a role, and the OAuth scope the service names for
each route where it names one (docs/service.md, "Tokens"), so that a platform team can issue the
least token that works (``docform plan --explain-token``).

Routes the service gives no scope of their own take a user token (or the other bearer kinds);
docform says which, rather than guess a scope.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_SITE = r"/orgs/[^/]+/sites/[^/]+"
_WRITES = ("POST", "PUT", "PATCH", "DELETE")
#: (methods, route, scope), first match wins; routes as `docform.api.stats.route_of` writes them.
SCOPES: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = tuple(
    (methods, re.compile(f"^(?:{route})$"), scope)
    for methods, route, scope in (
        (("GET",), rf"{_SITE}/(publishing/auth|share-links)", "site:auth:read"),
        (_WRITES, rf"{_SITE}/(publishing/auth|publishing/auth/regenerate|share-links.*)",
         "site:auth:write"),
        (("POST",), rf"{_SITE}/(publish|unpublish)", "site:publish"),
        (("GET",), r"/orgs/[^/]+/link-invites(/[^/]+)?", "organization:members:read"),
        (_WRITES, r"/orgs/[^/]+/link-invites(/[^/]+)?", "organization:members:write"),
        (("GET",), rf"/orgs/[^/]+/sites|{_SITE}/structure", "site:read"),
        (_WRITES, rf"/orgs/[^/]+/sites|{_SITE}|{_SITE}/structure/sort", "site:write"),
    )
)  # fmt: skip
#: Scopes whose reads show secrets (a private key, share URLs, invite ids): for admins only.
ADMIN_READS = frozenset({"site:auth:read", "organization:members:read"})
_PLACEHOLDER = re.compile(r"\$\{[^}]+\}")


def scope_of(method: str, route: str) -> str | None:
    """The OAuth scope the service names for ``METHOD route``, or None when it names none."""
    path = _PLACEHOLDER.sub("{id}", route.split("?", 1)[0])
    for methods, pattern, scope in SCOPES:
        if method in methods and pattern.match(path):
            return scope
    return None


@dataclass
class TokenNeeds:
    """The role and scopes the calls of one plan (its reads and its changes) need."""

    role: str
    why: str
    scopes: dict[str, list[str]] = field(default_factory=dict)
    """Scope -> the routes (``METHOD /path``) that need it."""
    unscoped: list[str] = field(default_factory=list)
    """Routes the service names no OAuth scope for: a user token."""

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "why": self.why,
            "scopes": {scope: list(routes) for scope, routes in self.scopes.items()},
            "unscoped": list(self.unscoped),
        }

    def lines(self) -> list[str]:
        out = ["What the token needs for this plan:", f"  role: {self.role} ({self.why})"]
        if self.scopes:
            out.append("  OAuth scopes, where the service names one for a call of this plan:")
            width = max(len(scope) for scope in self.scopes)
            for scope, routes in self.scopes.items():
                out.append(f"    {scope.ljust(width)}  {', '.join(routes)}")
        if self.unscoped:
            out.append("  no OAuth scope of their own (a user token): " + ", ".join(self.unscoped))
        return out


def token_needs(reads: Iterable[str], writes: Iterable[str]) -> TokenNeeds:
    """What a token needs to make ``reads`` and ``writes`` (routes, ``METHOD /path``)."""
    writes = sorted(set(writes))
    routes = sorted(set(reads)) + writes
    scopes: dict[str, list[str]] = {}
    unscoped: list[str] = []
    for route in routes:
        method, _, path = route.partition(" ")
        scope = scope_of(method, path)
        if scope is None:
            unscoped.append(route)
        elif route not in scopes.setdefault(scope, []):
            scopes[scope].append(route)
    if writes:
        role, why = "admin", "the plan changes the organization; changes need its admin role"
    elif ADMIN_READS & set(scopes):
        role, why = "admin", "reading visitor sign-in, share links or link invites shows secrets"
    else:
        role, why = "any member", "the plan only reads"
    return TokenNeeds(role, why, dict(sorted(scopes.items())), unscoped)
