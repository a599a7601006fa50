"""Seeding a sandbox from YAML: organizations, users with their roles, teams, sites (with
who may access them and their redirects) and tokens.

The format (documented in the README, "Sandbox seed files")::

    organizations:
      - id: org_acme
        title: Acme
        emailDomains: [acme.test]          # optional organization fields
        customHostname: acme.test.example  # the organization's custom hostname
        members:
          - {id: u_alice, email: alice@acme.test, displayName: Alice, role: admin}
          - {id: u_bob, email: bob@acme.test, displayName: Bob, role: null}   # a guest
        teams:
          - {id: team_writers, title: Writers, members: [u_alice]}
        sites:
          - id: site_docs
            title: Acme Docs
            visibility: public
            published: true
            hostname: docs.acme.test          # a custom hostname the app connected to it
            access: {teams: {team_writers: edit}, users: {u_bob: null}}
            redirects:
              - {source: /old/*, url: https://acme.test/docs, permanent: true}
    tokens:
      - {token: tok_alice, user: u_alice}

Seeding is idempotent: an object whose id already exists is left as it is (a grant: the team
or user already has one on the site; a redirect: the site has one from that source), so a
served sandbox can be restarted with the same ``--seed`` without losing what clients changed.

A site created by a route is stored as `site_document` makes it here; the users and members
both store are `docform_sandbox.documents`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from docform.errors import DocformError
from docform_sandbox.access import member_key
from docform_sandbox.documents import (
    MAX_REDIRECT_SOURCE,
    REDIRECT_SOURCE,
    Role,
    member_document,
    user_document,
)
from docform_sandbox.grants import GRANT, TEAM, USER, Principal, Target, grant_document, grant_id
from docform_sandbox.http import new_id, timestamp
from docform_sandbox.store import Store

ID_PATTERN = r"^[a-zA-Z0-9_-]+$"


class SeedError(DocformError):
    """A seed file that cannot be loaded; the message names the file and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeedMember(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    email: str | None = None  # a user without an email, as the service allows
    displayName: str | None = None
    role: Role | None
    sso: bool = False


class SeedTeam(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1, max_length=64)
    members: list[str] = []


class SeedAccess(_Strict):
    """Roles granted on a site: team ids and user ids to a role, or null (guest)."""

    teams: dict[str, Role | None] = {}
    users: dict[str, Role | None] = {}


class SeedRedirect(_Strict):
    """A redirect to an external URL (a seed holds no sections or site spaces to point at)."""

    source: str = Field(max_length=MAX_REDIRECT_SOURCE, pattern=f"^{REDIRECT_SOURCE.pattern}$")
    url: str = Field(pattern=r"^https?://\S+$", max_length=2048)
    permanent: bool = False
    draft: bool = False
    captureWildcard: bool = False

    @model_validator(mode="after")
    def _wildcard_to_capture(self) -> SeedRedirect:
        if self.captureWildcard and not self.source.endswith("*"):
            raise ValueError("captureWildcard: needs a source ending in '*' (a wildcard)")
        return self


class SeedSite(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=2, max_length=128)
    visibility: Literal["public", "unlisted", "share-link", "visitor-auth"] = "public"
    type: Literal["basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"] = (
        "premium"
    )
    basename: str | None = None
    published: bool = False
    # A custom hostname the service's app connected to the site (no API operation does).
    hostname: str | None = None
    access: SeedAccess = Field(default_factory=lambda: SeedAccess())
    redirects: list[SeedRedirect] = []


class SeedOrganization(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=2, max_length=255)
    emailDomains: list[str] = []
    hostname: str | None = None
    # A custom hostname the service's app connected to the organization's public content.
    customHostname: str | None = None
    defaultRole: Role | None = "read"
    sso: bool = False
    ai: bool = False
    inviteLinks: bool = False
    # Whether the organization's plan includes the audit log: false answers 403 to its reads.
    auditLogs: bool = True
    # Whether removing a member only sends a request to the admins (202), an admin's call too.
    memberRemovalApproval: bool = False
    members: list[SeedMember] = []
    teams: list[SeedTeam] = []
    sites: list[SeedSite] = []

    @model_validator(mode="after")
    def _known_references(self) -> SeedOrganization:
        """Teams hold members of this organization; sites grant roles to its teams and members."""
        members, teams = {m.id for m in self.members}, {t.id for t in self.teams}
        for i, team in enumerate(self.teams):
            for user in team.members:
                if user not in members:
                    raise ValueError(f"teams.{i}.members: '{user}' is not a member of {self.id}")
        for i, site in enumerate(self.sites):
            for name, known, given in (
                ("teams", teams, site.access.teams),
                ("users", members, site.access.users),
            ):
                for unknown in sorted(set(given) - known):
                    raise ValueError(f"sites.{i}.access.{name}: no '{unknown}' in {self.id}")
        return self


class SeedToken(_Strict):
    """A user's token, or (``kind: integration``) an integration's: an admin of every
    organization that operations taking a user's token only refuse."""

    token: str = Field(min_length=8)
    user: str | None = None
    kind: Literal["user", "integration"] = "user"

    @model_validator(mode="after")
    def _user_of_kind(self) -> SeedToken:
        if (self.user is None) != (self.kind == "integration"):
            raise ValueError("a user's token names its user; an integration's names none")
        return self


class Seed(_Strict):
    organizations: list[SeedOrganization] = []
    tokens: list[SeedToken] = []
    _source: str = PrivateAttr("seed")


def load_seed_file(path: str | Path) -> Seed:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SeedError(f"{path}: cannot read the seed file: {exc}") from None
    try:
        seed = Seed.model_validate(raw or {})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'top level'}: {e['msg']}" for e in exc.errors()
        )
        raise SeedError(f"{path}: {problems}") from None
    seed._source = str(path)
    return seed


def apply_seed(store: Store, seed: Seed) -> None:
    """Create what the seed describes and does not exist yet."""
    users = {m.id for org in seed.organizations for m in org.members}
    for i, token in enumerate(seed.tokens):
        if token.user is None:
            continue
        if token.user not in users and store.get("user", token.user) is None:
            raise SeedError(
                f"{seed._source}: tokens.{i}.user: token for unknown user '{token.user}'"
            )
    with store.transaction():
        for org in seed.organizations:
            _seed_org(store, org)
        for token in seed.tokens:
            if store.get("token", token.token) is None:
                record = {"id": token.token, "user": token.user}
                if token.kind == "integration":
                    record["kind"] = token.kind
                store.insert("token", record)


def _seed_org(store: Store, org: SeedOrganization) -> None:
    now = timestamp(store.now())
    if store.get("organization", org.id) is None:
        store.insert("organization", _org_document(org, now), org=org.id)
    for member in org.members:
        if store.get("user", member.id) is None:
            store.insert("user", user_document(member.id, member.email, member.displayName))
        key = member_key(org.id, member.id)
        if store.get("member", key) is None:
            doc = member_document(org.id, member.id, member.role, now, sso=member.sso)
            store.insert("member", doc, org=org.id)
    for team in org.teams:
        _seed_team(store, org.id, team, now)
    for site in org.sites:
        if store.get("site", site.id) is None:
            store.insert("site", site_document(org.id, site, now), org=org.id)
        _seed_site_access(store, Target("site", site.id, org.id), site.access, now)
        for redirect in site.redirects:
            _seed_redirect(store, org.id, site.id, redirect, now)
    _seed_hostnames(store, org)


def _seed_hostnames(store: Store, org: SeedOrganization) -> None:
    """Each custom hostname, connected as the app does unless it already serves its target."""
    from docform_sandbox.routes.custom_hostnames import HOSTNAME, connect

    wanted = [(org.customHostname, None)] + [(site.hostname, site.id) for site in org.sites]
    for hostname, site_id in wanted:
        if hostname is not None and store.get(HOSTNAME, hostname) is None:
            connect(store, org.id, hostname, site_id)


def _seed_team(store: Store, org_id: str, team: SeedTeam, now: str) -> None:
    if store.get("team", team.id) is None:
        doc = {"id": team.id, "organization": org_id, "title": team.title, "createdAt": now}
        store.insert("team", doc, org=org_id)
    for user in team.members:
        # The key routes/teams.py gives a membership: team id, slash, user id.
        key = f"{team.id}/{user}"
        if store.get("team-member", key) is None:
            doc = {"id": key, "team": team.id, "user": user, "role": "member"}
            store.insert("team-member", doc, org=org_id, parent=team.id)


def _seed_site_access(store: Store, site: Target, access: SeedAccess, now: str) -> None:
    given: list[tuple[Principal, dict[str, str | None]]] = [
        (TEAM, dict(access.teams)),
        (USER, dict(access.users)),
    ]
    for principal, roles in given:
        for principal_id, role in roles.items():
            if store.get(GRANT, grant_id(site, principal, principal_id)) is None:
                doc = grant_document(site, principal, principal_id, role, now)
                store.insert(GRANT, doc, org=site.org, parent=site.key)


def _seed_redirect(
    store: Store, org_id: str, site_id: str, redirect: SeedRedirect, now: str
) -> None:
    same_source = [
        ("parent = ?", [site_id]),
        ("json_extract(data, '$.source') = ?", [redirect.source]),
    ]
    if store.count("site-redirect", same_source):
        return
    doc = {
        "id": new_id(),
        "source": redirect.source,
        "destination": {"kind": "external", "url": redirect.url},
        "captureWildcard": redirect.captureWildcard,
        "permanent": redirect.permanent,
        "draft": redirect.draft,
        "createdAt": now,
    }
    store.insert("site-redirect", doc, org=org_id, parent=site_id)


def _org_document(org: SeedOrganization, now: str) -> dict[str, Any]:
    return {
        "id": org.id,
        "title": org.title,
        "createdAt": now,
        "emailDomains": org.emailDomains,
        "hostname": org.hostname or f"{org.id.replace('_', '-').lower()}.sandbox.test",
        "type": "business",
        "useCase": "internalDocs",
        "defaultRole": org.defaultRole,
        "sso": org.sso,
        "ai": org.ai,
        "inviteLinks": org.inviteLinks,
        "auditLogs": org.auditLogs,
        "memberRemovalApproval": org.memberRemovalApproval,
        "plan": "free_2024",
        "mergeRules": {"type": "none"},
    }


def site_document(org_id: str, site: SeedSite, now: str) -> dict[str, Any]:
    return {
        "id": site.id,
        "organization": org_id,
        "type": site.type,
        "title": site.title,
        "basename": site.basename or site.id.replace("_", "-").lower(),
        "visibility": site.visibility,
        "defaultLevel": None,
        "published": site.published,
        "createdAt": now,
    }
