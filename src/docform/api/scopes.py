"""What a plan's calls need of the API token: a role, the kind of token the service accepts for
each route, and the OAuth scope it names for a route where it names one (docs/service.md,
"Tokens"), so that a platform team can issue the least token that works (``docform plan
--explain-token``) and a plan can tell which of its changes a token of another kind cannot make
(`docform.engine.token_kinds`).

The service's bearer tokens are of five kinds: a user's (``user``, and its ``user-internal`` and
``user-staff`` variants) and an integration's (``integration``, ``integration-installation``);
OAuth tokens carry scopes. A route the service gives no list of its own accepts the five bearer
kinds and no OAuth token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

USER = ("user",)
INTEGRATIONS = ("integration", "integration-installation")
USER_OR_INTEGRATIONS = (*USER, *INTEGRATIONS)
BEARER = ("user", "user-internal", "user-staff", *INTEGRATIONS)
#: How the kinds a route accepts are named to people.
KIND_WORDS = {
    USER: "a user's token only",
    INTEGRATIONS: "an integration's token only",
    USER_OR_INTEGRATIONS: "a user's or an integration's token",
    BEARER: "any bearer token",
}


@dataclass(frozen=True)
class RouteNeed:
    """What the service accepts for one route: the token kinds, and the OAuth scope (None: no
    OAuth token is accepted)."""

    kinds: tuple[str, ...]
    scope: str | None

    @property
    def user_only(self) -> bool:
        """Whether an integration's token is refused (401) here."""
        return "integration" not in self.kinds


DEFAULT = RouteNeed(BEARER, None)
_SITE = r"/orgs/[^/]+/sites/[^/]+"
_CUSTOMIZATION = rf"{_SITE}/customization|{_SITE}/site-spaces/[^/]+/customization"
_INSTALLATION = r"/integrations/[^/]+/installations/[^/]+"
_GET = ("GET",)
_WRITES = ("POST", "PUT", "PATCH", "DELETE")
_ANY = ("GET", *_WRITES)
#: (methods, route, kinds, scope), first match wins; routes as `docform.api.stats.route_of`
#: writes them. Routes no row matches take `DEFAULT`.
ROUTES: tuple[tuple[tuple[str, ...], re.Pattern[str], RouteNeed], ...] = tuple(
    (methods, re.compile(f"^(?:{route})$"), RouteNeed(kinds, scope))
    for methods, route, kinds, scope in (
        (_GET, rf"{_SITE}/(publishing/auth|share-links)", USER, "site:auth:read"),
        (_WRITES, rf"{_SITE}/(publishing/auth|publishing/auth/regenerate|share-links.*)", USER,
         "site:auth:write"),
        (("POST",), rf"{_SITE}/(publish|unpublish)", USER, "site:publish"),
        (_GET, r"/orgs/[^/]+/link-invites(/[^/]+)?", USER, "organization:members:read"),
        (_WRITES, r"/orgs/[^/]+/link-invites(/[^/]+)?", USER, "organization:members:write"),
        (_GET, rf"{_SITE}/adaptive-schema", USER_OR_INTEGRATIONS, "site:read"),
        (_WRITES, rf"{_SITE}/adaptive-schema", USER_OR_INTEGRATIONS, "site:write"),
        (_ANY, rf"/git/installations(/.*)?|{_SITE}/spaces/git/installations", USER, None),
        (_GET, rf"/orgs/[^/]+/sites|{_SITE}/(structure|integrations)|{_CUSTOMIZATION}", USER,
         "site:read"),
        (_WRITES, rf"/orgs/[^/]+/sites|{_SITE}|{_SITE}/structure/sort|{_CUSTOMIZATION}"
         rf"|{_SITE}/external-links(/[^/]+)?", USER, "site:write"),
        (_GET, r"/spaces/[^/]+/(git/info|integrations)", USER, "space:read"),
        (_GET, r"/orgs/[^/]+/(audit-events(/[^/]+)?|audit-event-actions)", USER, None),
        (_ANY, r"/orgs/[^/]+/(fonts|translations-glossary)(/[^/]+)?|/custom-hostnames/[^/]+",
         USER, None),
        (("POST",), r"/integrations/[^/]+/installations", USER, "integration:installations:write"),
        (_GET, r"/orgs/[^/]+/integrations/[^/]+/installation_status", USER, "integration:read"),
        (_GET, r"/integrations/[^/]+/installations", INTEGRATIONS, None),
        (("DELETE",), _INSTALLATION, USER, None),
        (("DELETE",), rf"{_INSTALLATION}/(spaces|sites)/[^/]+", BEARER, None),
        (_GET, rf"{_INSTALLATION}(/(spaces|sites)(/[^/]+)?)?", USER_OR_INTEGRATIONS,
         "integration:installations:read"),
        (_WRITES, rf"{_INSTALLATION}(/(spaces|sites)(/[^/]+)?)?", USER_OR_INTEGRATIONS,
         "integration:installations:write"),
        (_GET, r"/orgs/[^/]+/integrations(/installations-status)?", USER_OR_INTEGRATIONS,
         "integration:read"),
    )
)  # fmt: skip
#: Scopes whose reads show secrets (a private key, share URLs, invite ids): for admins only.
ADMIN_READS = frozenset({"site:auth:read", "organization:members:read"})
#: Reads without such a scope whose answers show secrets too: an integration installation's
#: configuration (at every level) and a GitLab sync's access token. For admins only.
SECRET_READS = re.compile(
    r"^(?:/orgs/[^/]+/installations|/integrations/[^/]+/installations(/[^/]+(/(spaces|sites)"
    rf"(/[^/]+)?)?)?|/git/installations/[^/]+|{_SITE}/spaces/git/installations)$"
)
_PLACEHOLDER = re.compile(r"\$\{[^}]+\}")


def need_of(method: str, route: str) -> RouteNeed:
    """What the service accepts for ``METHOD route`` (a path, or a route with ``{id}``s or a
    plan's ``${...}`` placeholders)."""
    # Placeholders first: a query's "?" is the first one outside them.
    path = _PLACEHOLDER.sub("{id}", route).split("?", 1)[0]
    for methods, pattern, need in ROUTES:
        if method in methods and pattern.match(path):
            return need
    return DEFAULT


def user_token_only(method: str, route: str) -> bool:
    """Whether the service refuses an integration's token for ``METHOD route``."""
    return need_of(method, route).user_only


def scope_of(method: str, route: str) -> str | None:
    """The OAuth scope the service names for ``METHOD route``, or None when it names none."""
    return need_of(method, route).scope


@dataclass
class TokenNeeds:
    """The role, token kinds and scopes the calls of one plan (its reads and changes) need."""

    role: str
    why: str
    scopes: dict[str, list[str]] = field(default_factory=dict)
    """Scope -> the routes (``METHOD /path``) that need it."""
    unscoped: list[str] = field(default_factory=list)
    """Routes the service names no OAuth scope for: a bearer token."""
    kinds: dict[str, list[str]] = field(default_factory=dict)
    """How `KIND_WORDS` names the token kinds accepted -> the routes accepting only those."""

    @property
    def kind(self) -> str:
        """The one kind of token that makes every call of the plan, in words."""
        user, integration = KIND_WORDS[USER], KIND_WORDS[INTEGRATIONS]
        if user in self.kinds and integration in self.kinds:
            return "no one token: some calls take a user's token only, others an integration's"
        if user in self.kinds:
            return "a user's token (an integration's is refused for some calls)"
        if integration in self.kinds:
            return "an integration's token (a user's is refused for some calls)"
        return "a user's or an integration's token"

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "why": self.why,
            "kind": self.kind,
            "kinds": {words: list(routes) for words, routes in self.kinds.items()},
            "scopes": {scope: list(routes) for scope, routes in self.scopes.items()},
            "unscoped": list(self.unscoped),
        }

    def lines(self) -> list[str]:
        out = ["What the token needs for this plan:", f"  role: {self.role} ({self.why})"]
        out.append(f"  kind: {self.kind}")
        for words, routes in self.kinds.items():
            out.append(f"    {words}: {', '.join(routes)}")
        if self.scopes:
            out.append("  OAuth scopes, where the service names one for a call of this plan:")
            width = max(len(scope) for scope in self.scopes)
            for scope, routes in self.scopes.items():
                out.append(f"    {scope.ljust(width)}  {', '.join(routes)}")
        if self.unscoped:
            out.append("  no OAuth scope (a bearer token only): " + ", ".join(self.unscoped))
        return out


def _shows_secrets(route: str) -> bool:
    method, _, path = route.partition(" ")
    return method == "GET" and SECRET_READS.match(_PLACEHOLDER.sub("{id}", path)) is not None


def token_needs(reads: Iterable[str], writes: Iterable[str]) -> TokenNeeds:
    """What a token needs to make ``reads`` and ``writes`` (routes, ``METHOD /path``)."""
    writes = sorted(set(writes))
    routes = sorted(set(reads)) + writes
    scopes: dict[str, list[str]] = {}
    unscoped: list[str] = []
    kinds: dict[str, list[str]] = {}
    for route in routes:
        method, _, path = route.partition(" ")
        need = need_of(method, path)
        if need.kinds != BEARER and route not in kinds.setdefault(KIND_WORDS[need.kinds], []):
            kinds[KIND_WORDS[need.kinds]].append(route)
        if need.scope is None:
            unscoped.append(route)
        elif route not in scopes.setdefault(need.scope, []):
            scopes[need.scope].append(route)
    if writes:
        role, why = "admin", "the plan changes the organization; changes need its admin role"
    elif ADMIN_READS & set(scopes) or any(_shows_secrets(route) for route in routes):
        role, why = (
            "admin",
            (
                "reading visitor sign-in, share links, link invites, integration installations or "
                "Git Sync shows secrets"
            ),
        )
    else:
        role, why = "any member", "the plan only reads"
    scopes, kinds = dict(sorted(scopes.items())), dict(sorted(kinds.items()))
    return TokenNeeds(role, why, scopes, unscoped, kinds)
