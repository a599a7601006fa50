"""The shape of the benchmark organization, as manifest documents, and the changes made to it.

Everything is derived from a seeded random generator, so one shape and seed always give the
same organization: the manifests `generate.py` writes, the sandbox it builds, and the ideal
request counts `ideal.py` computes all describe the same thing.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

ORG_ID = "org_bench"
SITE_ID = "site_bench"
EMAIL_DOMAIN = "bench.test"
MAX_COLLECTION_DEPTH = 4
MEMBER_ROLES = ("read", "read", "read", "comment", "edit", "edit", "create", "review")
ACCESS_ROLES = ("read", "comment", "edit", "edit", "review", "admin", "guest")


@dataclass(frozen=True)
class Shape:
    """How many objects of each kind the organization holds."""

    members: int = 10_000
    teams: int = 1_000
    team_size: int = 20
    collections: int = 500
    spaces: int = 5_000
    section_groups: int = 30
    sections: int = 300
    site_spaces: int = 1_000
    redirects: int = 400
    openapi: int = 200
    saml: int = 5
    access: int = 300
    """Spaces and collections whose entries write ``access`` (a few teams and members each)."""
    integrations: int = 4
    """Integrations installed on the organization, each on a few spaces and on the site (the
    sandbox knows 12)."""
    synced_spaces: int = 40
    """Spaces synced with a Git repository."""

    def scaled(self, factor: float) -> Shape:
        """The same shape ``factor`` times the size (at least one of each kind)."""
        return replace(
            self,
            **{
                name: max(1, round(value * factor))
                for name, value in asdict(self).items()
                if name != "team_size"
            },
        )

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


FULL = Shape()
QUICK = FULL.scaled(0.1)


@dataclass
class Org:
    """The organization as manifest sections (name -> entry), in the order they are written."""

    shape: Shape
    members: dict[str, str] = field(default_factory=dict)
    teams: dict[str, dict[str, Any]] = field(default_factory=dict)
    collections: dict[str, dict[str, Any]] = field(default_factory=dict)
    spaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    site: dict[str, Any] = field(default_factory=dict)
    openapi: dict[str, dict[str, Any]] = field(default_factory=dict)
    saml: dict[str, dict[str, Any]] = field(default_factory=dict)
    fonts: dict[str, dict[str, Any]] = field(default_factory=dict)
    glossary: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The custom hostname the site is served on (connected in the app: the seed does it).
    hostname: str = f"docs.{EMAIL_DOMAIN}"
    integrations: dict[str, dict[str, Any]] = field(default_factory=dict)
    git_sync: dict[str, dict[str, Any]] = field(default_factory=dict)

    def on_site(self) -> set[str]:
        """Names of the spaces the site uses, shown by a site space or holding its style guide
        (they are never deleted or moved)."""
        shown = {
            site_space["space"]
            for section in self.site["sections"].values()
            for site_space in section["spaces"].values()
        }
        return shown | {self.site["styleguide"]["space"]}


def email(i: int) -> str:
    return f"user{i:05d}@{EMAIL_DOMAIN}"


def build_org(shape: Shape, seed: int = 7) -> Org:
    """The organization of ``shape``: the same one for the same seed."""
    rng = random.Random(seed)
    org = Org(shape)
    org.members = {email(i): rng.choice(MEMBER_ROLES) for i in range(shape.members)}
    org.members[email(0)] = "admin"
    org.teams = dict(_teams(shape, rng))
    org.collections = dict(_collections(shape, rng))
    org.spaces = dict(_spaces(shape, rng, list(org.collections)))
    org.site = _site(shape, rng, list(org.spaces))
    # A generator of its own, so that the other kinds stay what they were before access.
    _give_access(org, random.Random(f"{seed}-access"))
    org.openapi = {
        f"api{i:03d}": {
            "slug": f"api-{i:03d}",
            "source": {"url": f"https://specs.{EMAIL_DOMAIN}/api-{i:03d}.yaml"},
            "visibility": rng.choice(("private", "public")),
        }
        for i in range(shape.openapi)
    }
    team_names = list(org.teams)
    org.saml = {
        f"idp{i}": {
            "label": f"IdP {i}",
            "entityID": f"https://idp{i}.{EMAIL_DOMAIN}/entity",
            "ssoURL": f"https://idp{i}.{EMAIL_DOMAIN}/sso",
            "certificate": {"file": "certs/idp.pem"},
            "defaultTeam": team_names[i % len(team_names)],
            "defaultRole": "read",
        }
        for i in range(shape.saml)
    }
    org.fonts = {
        "brand": {
            "family": "Bench Sans",
            "faces": [
                {"weight": weight, "storageKey": f"fonts/bench-sans-{weight}.woff2"}
                for weight in (400, 700)
            ],
        }
    }
    org.glossary = {
        term.lower(): {"language": "en", "term": term, "translations": {"fr": french}}
        for term, french in (("Workspace", "Espace de travail"), ("Space", "Espace"))
    }
    _integrate_and_sync(org)
    return org


def _teams(shape: Shape, rng: random.Random) -> Iterator[tuple[str, dict[str, Any]]]:
    half = shape.team_size // 2
    for i in range(shape.teams):
        size = min(shape.members, rng.randint(shape.team_size - half, shape.team_size + half))
        people = rng.sample(range(shape.members), size)
        members = {email(p): "member" for p in people}
        members[email(people[0])] = "owner"
        yield f"team{i:04d}", {"title": f"Team {i:04d}", "members": members}


def _collections(shape: Shape, rng: random.Random) -> Iterator[tuple[str, dict[str, Any]]]:
    """A fifth of the collections at the root, the others under one at depth 1 to 3."""
    depth: dict[str, int] = {}
    roots = max(1, shape.collections // 5)
    for i in range(shape.collections):
        name = f"coll{i:03d}"
        entry: dict[str, Any] = {"title": f"Collection {i:03d}", "description": f"Area {i}"}
        parents = [n for n, d in depth.items() if d < MAX_COLLECTION_DEPTH]
        if i >= roots and parents:
            parent = rng.choice(parents)
            entry["parent"] = parent
            depth[name] = depth[parent] + 1
        else:
            depth[name] = 1
        yield name, entry


def _spaces(
    shape: Shape, rng: random.Random, collections: list[str]
) -> Iterator[tuple[str, dict[str, Any]]]:
    for i in range(shape.spaces):
        entry: dict[str, Any] = {"title": f"Space {i:04d}", "editMode": "live"}
        if i % 10:  # one space in ten lives at the root of the organization
            entry["collection"] = rng.choice(collections)
        yield f"space{i:04d}", entry


def _site(shape: Shape, rng: random.Random, spaces: list[str]) -> dict[str, Any]:
    """Sections spread evenly over the groups, site spaces over the sections, each site space
    showing its own space."""
    shown = iter(rng.sample(spaces, min(shape.site_spaces, len(spaces))))
    sections: dict[str, dict[str, Any]] = {}
    for i in range(shape.sections):
        sections[f"sec{i:03d}"] = {"title": f"Section {i:03d}", "path": f"s{i:03d}", "spaces": {}}
    names = list(sections)
    for i, space in enumerate(shown):
        section = sections[names[i % len(names)]]
        section["spaces"][f"v{i:04d}"] = {"space": space, "path": f"v{i:04d}"}
    for section in sections.values():
        if not section["spaces"]:  # a section shows at least one space
            section["spaces"]["main"] = {"space": spaces[0], "path": "main"}
    groups = {
        f"group{g:02d}": {
            "title": f"Group {g:02d}",
            "sections": names[g :: shape.section_groups],
        }
        for g in range(shape.section_groups)
    }
    return {
        "id": SITE_ID,
        "title": "Bench Docs",
        "published": True,  # read from the site list: no request of its own
        "proxy": "bench.test/docs",
        "advertising": {"enabled": True, "topic": "webdev"},  # read from the site list too
        "styleguide": {"space": spaces[0]},  # as is its style guide
        "contextConnections": {
            "blog": {
                "connector": "builtin:website",
                "setupSettings": {"url": "https://blog.bench.test"},
                "usageSettings": {"changeRequests": False, "search": True, "searchBoost": "x1.0"},
            }
        },
        # No headers: the benchmark's manifests name no environment variable.
        "mcpServers": {"tools": {"url": "https://mcp.bench.test/sse"}},
        "channels": {
            "slack": {"type": "builtin:slack", "setupSettings": {"allowedChannels": ["docs"]}}
        },
        "agentSettings": {"scans": {"topics": "never"}, "findings": {"changeRequests": "never"}},
        "sectionGroups": groups,
        "sections": sections,
        "redirects": dict(_redirects(shape, sections)),
        "customization": {
            "styling": {"primaryColor": {"light": "#0B5FFF", "dark": "#5C8DFF"}},
            "footer": {"copyright": "Bench Corp"},
            "announcement": {"enabled": True, "message": "Benchmark", "style": "info"},
        },
        "externalLinks": _links(names, list(groups)),
    }


def _links(sections: list[str], groups: list[str]) -> dict[str, dict[str, Any]]:
    """A link placed at the top level after a group, one in a group after one of its
    sections, and one whose place is not managed."""
    links: dict[str, dict[str, Any]] = {
        "status": {"title": "Status", "url": "https://status.bench.test", "after": groups[0]},
        "blog": {"title": "Blog", "url": "https://blog.bench.test"},
    }
    if len(groups) > 1:
        links["changelog"] = {
            "title": "Changelog",
            "url": "https://bench.test/changelog",
            "group": groups[1],
            "after": sections[1],
        }
    return links


def _redirects(
    shape: Shape, sections: dict[str, dict[str, Any]]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Old paths of a migration, in turn to a section, a site space, a page and another site;
    one in five a wildcard carried over, one in three permanent."""
    names = list(sections)
    for i in range(shape.redirects):
        section = names[i % len(names)]
        site_space = next(iter(sections[section]["spaces"]))
        to: Any = [
            {"section": section},
            {"section": section, "space": site_space},
            {"section": section, "space": site_space, "page": f"page{i:04d}"},
            f"https://archive.{EMAIL_DOMAIN}/{i:04d}",
        ][i % 4]
        entry: dict[str, Any] = {"to": to}
        source = f"/old/r{i:04d}"
        if i % 5 == 0:
            source += "/*"
            entry["captureWildcard"] = True
        if i % 3 == 0:
            entry["permanent"] = True
        yield source, entry


def _give_access(org: Org, rng: random.Random) -> None:
    """``access`` on ``shape.access`` spaces and collections: one to three teams and up to two
    members each, with a role or guest."""
    objects = [org.spaces[n] for n in org.spaces] + [org.collections[n] for n in org.collections]
    teams, members = list(org.teams), list(org.members)
    for entry in rng.sample(objects, min(org.shape.access, len(objects))):
        granted = rng.sample(teams, min(len(teams), rng.randint(1, 3)))
        access: dict[str, Any] = {"teams": {t: rng.choice(ACCESS_ROLES) for t in granted}}
        users = rng.sample(members, min(len(members), rng.randint(0, 2)))
        if users:
            access["users"] = {u: rng.choice(ACCESS_ROLES) for u in users}
        entry["access"] = access


INTEGRATIONS = ("segment", "googleanalytics", "intercom", "algolia", "plausible", "hotjar",
                "mixpanel", "fathom", "slack", "heap", "amplitude", "posthog")  # fmt: skip
SPACES_PER_INTEGRATION = 5


def _integrate_and_sync(org: Org) -> None:
    """Integrations on the organization, some spaces and the site, and synced spaces: all among
    the spaces a site space shows, which the changes never delete or move."""
    shown = sorted(org.on_site())
    for i in range(org.shape.integrations):
        covered = shown[i * SPACES_PER_INTEGRATION : (i + 1) * SPACES_PER_INTEGRATION]
        org.integrations[f"int{i}"] = {
            "integration": INTEGRATIONS[i],
            "configuration": {"trackingId": f"T-{i:04d}", "sampleRate": 10 + i},
            "siteSelection": "selected",
            "spaces": {name: {} for name in covered},
            "sites": {"docs": {"configuration": {"trackPages": True}}},
        }
    for i, name in enumerate(shown[-org.shape.synced_spaces :]):
        org.git_sync[name] = {
            "space": name,
            "provider": "github",
            "repository": 1000 + i,
            "branch": "main",
            "projectDirectory": f"docs/{name}",
            "priority": "service",
        }
