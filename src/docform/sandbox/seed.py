"""Seeding a sandbox from YAML: organizations, users with their roles, sites and tokens.

The format (documented in the README, "Sandbox seed files")::

    organizations:
      - id: org_acme
        title: Acme
        emailDomains: [acme.test]          # optional organization fields
        members:
          - {id: u_alice, email: alice@acme.test, displayName: Alice, role: admin}
          - {id: u_bob, email: bob@acme.test, displayName: Bob, role: null}   # a guest
        sites:
          - {id: site_docs, title: Acme Docs, visibility: public}
    tokens:
      - {token: tok_alice, user: u_alice}

Seeding is idempotent: an object whose id already exists is left as it is, so a served sandbox
can be restarted with the same ``--seed`` without losing what clients changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from docform.errors import DocformError
from docform.sandbox.access import member_key
from docform.sandbox.http import ROLES, timestamp
from docform.sandbox.store import Store

ID_PATTERN = r"^[a-zA-Z0-9_-]+$"
Role = Literal["admin", "create", "review", "edit", "comment", "read"]


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


class SeedSite(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=2, max_length=128)
    visibility: Literal["public", "unlisted", "share-link", "visitor-auth"] = "public"
    type: Literal["basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"] = (
        "premium"
    )
    basename: str | None = None


class SeedOrganization(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=2, max_length=255)
    emailDomains: list[str] = []
    hostname: str | None = None
    defaultRole: Role | None = "read"
    sso: bool = False
    ai: bool = False
    inviteLinks: bool = False
    members: list[SeedMember] = []
    sites: list[SeedSite] = []


class SeedToken(_Strict):
    token: str = Field(min_length=8)
    user: str


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
        if token.user not in users and store.get("user", token.user) is None:
            raise SeedError(
                f"{seed._source}: tokens.{i}.user: token for unknown user '{token.user}'"
            )
    with store.transaction():
        for org in seed.organizations:
            _seed_org(store, org)
        for token in seed.tokens:
            if store.get("token", token.token) is None:
                store.insert("token", {"id": token.token, "user": token.user})


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
    for site in org.sites:
        if store.get("site", site.id) is None:
            store.insert("site", site_document(org.id, site, now), org=org.id)


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
        "plan": "free_2024",
        "mergeRules": {"type": "none"},
    }


def user_document(user_id: str, email: str | None, display_name: str | None) -> dict[str, Any]:
    doc = {"id": user_id}
    if email is not None:
        doc["email"] = email
    doc["displayName"] = display_name or (email.split("@", 1)[0] if email else user_id)
    doc["photoURL"] = f"https://avatars.sandbox.test/{user_id}.png"
    return doc


def member_document(
    org_id: str, user_id: str, role: str | None, now: str, *, sso: bool = False
) -> dict[str, Any]:
    assert role is None or role in ROLES
    return {
        "id": member_key(org_id, user_id),
        "organization": org_id,
        "user": user_id,
        "role": role,
        "disabled": False,
        "joinedAt": now,
        "lastSeenAt": now,
        "sso": sso,
    }


def site_document(org_id: str, site: SeedSite, now: str) -> dict[str, Any]:
    return {
        "id": site.id,
        "organization": org_id,
        "type": site.type,
        "title": site.title,
        "hostname": f"{org_id.replace('_', '-').lower()}.sandbox.test",
        "basename": site.basename or site.id.replace("_", "-").lower(),
        "visibility": site.visibility,
        "defaultLevel": None,
        "createdAt": now,
    }
