"""Seed files holding teams, published sites, who may access them and their redirects, read
back through the API (sandbox/seed.py)."""

import pytest

from conftest import SyncApi
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.seed import SeedError, apply_seed, load_seed_file
from docform_sandbox.store import Store

SEED = """\
organizations:
  - id: org_demo
    title: Demo
    members:
      - {id: u_ada, email: ada@demo.test, displayName: Ada, role: admin}
      - {id: u_ed, email: ed@demo.test, displayName: Ed, role: edit}
      - {id: u_gus, email: gus@partner.test, displayName: Gus, role: null}
    teams:
      - {id: team_writers, title: Writers, members: [u_ed, u_gus]}
    sites:
      - id: site_handbook
        title: Handbook
        published: true
        access: {teams: {team_writers: edit}, users: {u_gus: null}}
        redirects:
          - {source: /old/*, url: https://demo.test/handbook, permanent: true}
          - {source: /faq, url: https://demo.test/faq}
tokens:
  - {token: tok_ada_0123456789, user: u_ada}
"""
SITE = "orgs/org_demo/sites/site_handbook"


def write(tmp_path, text):
    path = tmp_path / "seed.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def demo(tmp_path):
    """Raw HTTP, as Ada, to a sandbox seeded with ``SEED``; and a way to seed it again."""
    store = Store(tmp_path / "demo.sqlite")
    seed = load_seed_file(write(tmp_path, SEED))
    apply_seed(store, seed)
    client = SyncApi(create_app(store, SandboxConfig()), "tok_ada_0123456789")
    yield client, lambda: apply_seed(store, seed)
    client.close()
    store.close()


def test_a_seeded_team_has_its_members(demo):
    api, _ = demo
    team = api.get("orgs/org_demo/teams/team_writers").json()
    assert (team["title"], team["members"]) == ("Writers", 2)


def test_a_seeded_site_is_published_with_its_grants(demo):
    api, _ = demo
    assert api.get(SITE).json()["published"] is True
    teams = api.get(f"{SITE}/permissions/teams").json()["items"]
    assert [(i["team"]["id"], i["permission"]) for i in teams] == [("team_writers", "edit")]
    users = api.get(f"{SITE}/permissions/users").json()["items"]
    assert [(i["user"]["id"], i["permission"]) for i in users] == [("u_gus", None)]


def test_seeded_redirects_point_at_their_urls(demo):
    api, _ = demo
    items = api.get(f"{SITE}/redirects", params={"orderBy": "source"}).json()["items"]
    assert [(i["source"], i["destination"], i["permanent"]) for i in items] == [
        ("/faq", {"kind": "external", "url": "https://demo.test/faq"}, False),
        ("/old/*", {"kind": "external", "url": "https://demo.test/handbook"}, True),
    ]


def test_seeding_again_keeps_changed_grants_and_adds_no_redirect(demo):
    api, seed_again = demo
    assert (
        api.patch(f"{SITE}/permissions/teams/team_writers", json={"role": "read"}).status_code
        == 204
    )
    seed_again()
    teams = api.get(f"{SITE}/permissions/teams").json()["items"]
    assert [i["permission"] for i in teams] == ["read"]
    assert api.get(f"{SITE}/redirects").json()["count"] == 2


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("members: [u_ed, u_gus]", "members: [u_ed, u_zed]",
         "organizations.0: Value error, teams.0.members: 'u_zed' is not a member of org_demo"),
        ("users: {u_gus: null}", "users: {u_zed: null}",
         "organizations.0: Value error, sites.0.access.users: no 'u_zed' in org_demo"),
        ("teams: {team_writers: edit}", "teams: {team_readers: edit}",
         "organizations.0: Value error, sites.0.access.teams: no 'team_readers' in org_demo"),
        ("source: /faq,", "source: /faq, captureWildcard: true,",
         "organizations.0.sites.0.redirects.1: Value error, captureWildcard: needs a source "
         "ending in '*' (a wildcard)"),
        ("users: {u_gus: null}", "users: {u_gus: owner}",
         "organizations.0.sites.0.access.users.u_gus: Input should be 'admin', 'create', "
         "'review', 'edit', 'comment' or 'read'"),
    ],
)  # fmt: skip
def test_a_seed_with_a_bad_reference_is_refused_naming_where(tmp_path, old, new, message):
    path = write(tmp_path, SEED.replace(old, new))
    with pytest.raises(SeedError) as caught:
        load_seed_file(path)
    assert str(caught.value) == f"{path}: {message}"


def test_a_redirect_source_off_its_pattern_is_refused(tmp_path):
    path = write(tmp_path, SEED.replace("source: /faq", "source: faq"))
    with pytest.raises(SeedError) as caught:
        load_seed_file(path)
    assert str(caught.value).startswith(
        f"{path}: organizations.0.sites.0.redirects.1.source: String should match pattern"
    )
