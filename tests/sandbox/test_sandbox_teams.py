"""Teams and team members in the sandbox: create, list filters, get, rename, delete, and the
membership calls (sandbox/routes/teams.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN

OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def create_team(api, title="Platform", members=None, **kwargs):
    body = {"title": title} if members is None else {"title": title, "members": members}
    r = api.put(f"orgs/{ORG}/teams", json=body, **kwargs)
    assert r.status_code == 201, r.text
    return r.json()


def roles_in(api, team_id):
    """{user id: team role} of a team's members."""
    items = api.get(f"orgs/{ORG}/teams/{team_id}/members").json()["items"]
    return {item["organization"]["id"]: item["team"]["role"] for item in items}


def error(response):
    return response.json()["error"]["message"]


@pytest.fixture
def team(api):
    """A team with Erin as a plain member."""
    return create_team(api, "Platform", ["u_erin"])


# -- teams ------------------------------------------------------------------------------------


def test_create_team_answers_201_with_a_team(api, store):
    team = create_team(api, "Platform", ["u_erin", "u_bob"])
    stored = store.get("team", team["id"])
    assert team == {
        "object": "team",
        "id": team["id"],
        "title": "Platform",
        "members": 2,
        "spaces": 0,
        "createdAt": stored["createdAt"],
        "permissions": {"admin": True, "view": True},
    }


def test_create_team_members_join_as_members(api):
    team = create_team(api, "Platform", ["u_erin", "u_bob"])
    assert roles_in(api, team["id"]) == {"u_erin": "member", "u_bob": "member"}


def test_create_team_without_members_is_empty(api):
    assert create_team(api)["members"] == 0


def test_create_team_title_of_64_characters_is_accepted(api):
    assert create_team(api, "x" * 64)["title"] == "x" * 64


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_team_title_of_65_characters_is_400(api):
    r = api.put(f"orgs/{ORG}/teams", json={"title": "x" * 65})
    assert r.status_code == 400
    assert r.json() == {
        "error": {"code": 400, "message": "title: String should have at most 64 characters"}
    }


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_team_empty_title_is_400(api):
    r = api.put(f"orgs/{ORG}/teams", json={"title": ""})
    assert error(r) == "title: String should have at least 1 character"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_team_without_title_is_400(api):
    r = api.put(f"orgs/{ORG}/teams", json={"members": []})
    assert r.status_code == 400
    assert error(r) == "title: Field required"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_team_with_a_non_member_is_400_and_creates_nothing(api):
    r = api.put(f"orgs/{ORG}/teams", json={"title": "T", "members": ["u_erin", "u_carol"]})
    assert r.status_code == 400
    assert error(r) == "members.1: 'u_carol' is not a member of this organization"
    assert api.get(f"orgs/{ORG}/teams").json()["count"] == 0


def test_create_team_needs_admin(api):
    r = api.put(f"orgs/{ORG}/teams", json={"title": "T"}, headers=EDITOR)
    assert r.status_code == 403


def test_list_teams_newest_first(api):
    first, second = create_team(api, "First"), create_team(api, "Second")
    body = api.get(f"orgs/{ORG}/teams").json()
    assert body["count"] == 2
    assert [t["id"] for t in body["items"]] == [second["id"], first["id"]]


@pytest.mark.contract_exempt("the sandbox honours an order parameter the definition lacks")
def test_list_teams_order_asc(api):
    first, second = create_team(api, "First"), create_team(api, "Second")
    body = api.get(f"orgs/{ORG}/teams", params={"order": "asc"}).json()
    assert [t["id"] for t in body["items"]] == [first["id"], second["id"]]


def test_list_teams_filters_by_title_case_insensitively(api):
    create_team(api, "Platform")
    data = create_team(api, "Data Platform")
    create_team(api, "Support")
    body = api.get(f"orgs/{ORG}/teams", params={"title": "DATA"}).json()
    assert [t["id"] for t in body["items"]] == [data["id"]]


def test_list_teams_filters_by_owner(api):
    owned = create_team(api, "Owned", ["u_erin"])
    create_team(api, "Member only", ["u_erin"])
    api.put(f"orgs/{ORG}/teams/{owned['id']}/members/u_erin", json={"role": "owner"})
    body = api.get(f"orgs/{ORG}/teams", params={"owner": "u_erin"}).json()
    assert [t["id"] for t in body["items"]] == [owned["id"]]


def test_list_teams_pages(api):
    made = {create_team(api, f"Team {i}")["id"] for i in range(3)}
    first = api.get(f"orgs/{ORG}/teams", params={"limit": 2}).json()
    second = api.get(f"orgs/{ORG}/teams", params={"limit": 2, "page": first["next"]["page"]})
    assert {t["id"] for t in first["items"] + second.json()["items"]} == made
    assert "next" not in second.json()


def test_list_teams_of_another_org_is_403(api):
    assert api.get(f"orgs/{ORG}/teams", headers=OTHER).status_code == 403


def test_get_team(api, team):
    assert api.get(f"orgs/{ORG}/teams/{team['id']}").json() == team


def test_get_unknown_team_is_404(api):
    r = api.get(f"orgs/{ORG}/teams/t_missing")
    assert r.status_code == 404
    assert r.json() == {"error": {"code": 404, "message": "team 't_missing' not found"}}


def test_get_team_of_another_org_is_404(api):
    other = api.put("orgs/org_other/teams", json={"title": "Theirs"}, headers=OTHER).json()
    assert api.get(f"orgs/{ORG}/teams/{other['id']}").status_code == 404


def test_get_team_with_another_orgs_token_is_403(api, team):
    assert api.get(f"orgs/{ORG}/teams/{team['id']}", headers=OTHER).status_code == 403


def test_team_permissions_for_a_plain_member_are_view_only(api, team):
    body = api.get(f"orgs/{ORG}/teams/{team['id']}", headers=EDITOR).json()
    assert body["permissions"] == {"admin": False, "view": True}


def test_team_permissions_for_a_team_owner_include_admin(api, team):
    api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_erin", json={"role": "owner"})
    body = api.get(f"orgs/{ORG}/teams/{team['id']}", headers=EDITOR).json()
    assert body["permissions"] == {"admin": True, "view": True}


def test_patch_team_title(api, team):
    r = api.patch(f"orgs/{ORG}/teams/{team['id']}", json={"title": "Infra"})
    assert r.status_code == 200
    assert r.json()["title"] == "Infra"
    assert api.get(f"orgs/{ORG}/teams/{team['id']}").json()["title"] == "Infra"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_team_title_of_65_characters_is_400(api, team):
    r = api.patch(f"orgs/{ORG}/teams/{team['id']}", json={"title": "x" * 65})
    assert error(r) == "title: String should have at most 64 characters"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_team_title_null_is_400(api, team):
    r = api.patch(f"orgs/{ORG}/teams/{team['id']}", json={"title": None})
    assert r.status_code == 400
    assert error(r) == "title: must be a string of 1 to 64 characters"


def test_patch_unknown_team_is_404(api):
    assert api.patch(f"orgs/{ORG}/teams/t_missing", json={"title": "X"}).status_code == 404


def test_patch_team_needs_admin(api, team):
    r = api.patch(f"orgs/{ORG}/teams/{team['id']}", json={"title": "X"}, headers=EDITOR)
    assert r.status_code == 403


def test_delete_team(api, team):
    assert api.delete(f"orgs/{ORG}/teams/{team['id']}").status_code == 204
    assert api.get(f"orgs/{ORG}/teams/{team['id']}").status_code == 404


def test_delete_team_removes_its_memberships(api, store, team):
    api.delete(f"orgs/{ORG}/teams/{team['id']}")
    assert store.count("team-member", [("parent = ?", [team["id"]])]) == 0
    assert api.get(f"orgs/{ORG}/members/u_erin").json()["teams"] == 0


def test_delete_absent_team_is_204(api):
    r = api.delete(f"orgs/{ORG}/teams/t_missing")
    assert r.status_code == 204
    assert r.content == b""


def test_delete_team_of_another_org_leaves_it(api):
    other = api.put("orgs/org_other/teams", json={"title": "Theirs"}, headers=OTHER).json()
    assert api.delete(f"orgs/{ORG}/teams/{other['id']}").status_code == 204
    assert api.get(f"orgs/org_other/teams/{other['id']}", headers=OTHER).status_code == 200


def test_delete_team_needs_admin(api, team):
    assert api.delete(f"orgs/{ORG}/teams/{team['id']}", headers=EDITOR).status_code == 403


# -- team members -----------------------------------------------------------------------------


def test_list_team_members_items(api, team):
    body = api.get(f"orgs/{ORG}/teams/{team['id']}/members").json()
    assert body["count"] == 1
    item = body["items"][0]
    assert item["team"] == {"role": "member"}
    assert item["permissions"] == {"view": True}
    assert item["organization"] == api.get(f"orgs/{ORG}/members/u_erin").json()


def test_list_team_members_pages_in_joining_order(api):
    team = create_team(api, "T", ["u_alice", "u_erin", "u_bob"])
    first = api.get(f"orgs/{ORG}/teams/{team['id']}/members", params={"limit": 2}).json()
    params = {"limit": 2, "page": first["next"]["page"]}
    second = api.get(f"orgs/{ORG}/teams/{team['id']}/members", params=params).json()
    users = [i["organization"]["id"] for i in first["items"] + second["items"]]
    assert users == ["u_alice", "u_erin", "u_bob"]


def test_list_members_of_unknown_team_is_404(api):
    assert api.get(f"orgs/{ORG}/teams/t_missing/members").status_code == 404


def test_change_team_members_adds_removes_and_changes_roles_at_once(api, team):
    r = api.put(
        f"orgs/{ORG}/teams/{team['id']}/members",
        json={
            "add": ["u_alice", "bob@acme.test"],
            "remove": ["u_erin"],
            "memberships": {"u_alice": {"role": "owner"}},
        },
    )
    assert r.status_code == 204
    assert roles_in(api, team["id"]) == {"u_alice": "owner", "u_bob": "member"}


def test_change_team_members_role_change_of_an_existing_member(api, team):
    api.put(
        f"orgs/{ORG}/teams/{team['id']}/members",
        json={"memberships": {"ERIN@acme.test": {"role": "owner"}}},
    )
    assert roles_in(api, team["id"]) == {"u_erin": "owner"}


def test_change_team_members_memberships_adds_missing_users(api, team):
    api.put(
        f"orgs/{ORG}/teams/{team['id']}/members",
        json={"memberships": {"u_bob": {"role": "member"}}},
    )
    assert roles_in(api, team["id"]) == {"u_erin": "member", "u_bob": "member"}


def test_change_team_members_add_keeps_an_existing_role(api, team):
    api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_erin", json={"role": "owner"})
    api.put(f"orgs/{ORG}/teams/{team['id']}/members", json={"add": ["u_erin"]})
    assert roles_in(api, team["id"]) == {"u_erin": "owner"}


def test_change_team_members_user_in_add_and_remove_ends_removed(api, team):
    api.put(
        f"orgs/{ORG}/teams/{team['id']}/members",
        json={"add": ["u_bob"], "remove": ["bob@acme.test"]},
    )
    assert roles_in(api, team["id"]) == {"u_erin": "member"}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_change_team_members_unknown_user_is_400_and_changes_nothing(api, team):
    r = api.put(
        f"orgs/{ORG}/teams/{team['id']}/members",
        json={"add": ["u_bob", "carol@other.test"], "remove": ["u_erin"]},
    )
    assert r.status_code == 400
    assert error(r) == "add.1: 'carol@other.test' is not a member of this organization"
    assert roles_in(api, team["id"]) == {"u_erin": "member"}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_change_team_members_unknown_user_in_remove_is_400(api, team):
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members", json={"remove": ["u_nobody"]})
    assert error(r) == "remove.0: 'u_nobody' is not a member of this organization"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_change_team_members_unknown_user_in_memberships_is_400(api, team):
    body = {"add": ["u_bob"], "memberships": {"u_nobody": {"role": "owner"}}}
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members", json=body)
    assert error(r) == "memberships.u_nobody: 'u_nobody' is not a member of this organization"
    assert roles_in(api, team["id"]) == {"u_erin": "member"}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_change_team_members_unknown_role_is_400(api, team):
    body = {"memberships": {"u_erin": {"role": "boss"}}}
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members", json=body)
    assert r.status_code == 400
    assert error(r) == "memberships.u_erin.role: Input should be 'owner' or 'member'"


def test_change_members_of_unknown_team_is_404(api):
    r = api.put(f"orgs/{ORG}/teams/t_missing/members", json={"add": ["u_bob"]})
    assert r.status_code == 404


def test_change_team_members_needs_admin_or_team_owner(api, team):
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members", json={"add": ["u_bob"]}, headers=EDITOR)
    assert r.status_code == 403
    assert error(r) == f"changing the members of team '{team['id']}' needs the owner role"


def test_team_owner_may_change_team_members(api, team):
    api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_erin", json={"role": "owner"})
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members", json={"add": ["u_bob"]}, headers=EDITOR)
    assert r.status_code == 204
    assert roles_in(api, team["id"]) == {"u_erin": "owner", "u_bob": "member"}


def test_change_team_members_with_another_orgs_token_is_403(api, team):
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members", json={"add": ["u_bob"]}, headers=OTHER)
    assert r.status_code == 403


def test_put_team_member_adds_as_member_by_default(api, team):
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_bob", json={})
    assert r.status_code == 204
    assert roles_in(api, team["id"]) == {"u_erin": "member", "u_bob": "member"}


def test_put_team_member_with_role_owner(api, team):
    api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_bob", json={"role": "owner"})
    assert roles_in(api, team["id"])["u_bob"] == "owner"


def test_put_team_member_updates_the_role(api, team):
    api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_erin", json={"role": "owner"})
    api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_erin", json={"role": "member"})
    assert roles_in(api, team["id"]) == {"u_erin": "member"}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_put_team_member_unknown_role_is_400(api, team):
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_bob", json={"role": "admin"})
    assert r.status_code == 400
    assert error(r) == "role: Input should be 'owner' or 'member'"


def test_put_team_member_who_is_not_an_org_member_is_404(api, team):
    r = api.put(f"orgs/{ORG}/teams/{team['id']}/members/u_carol", json={})
    assert r.status_code == 404
    assert error(r) == "member 'u_carol' not found"


def test_put_member_of_unknown_team_is_404(api):
    r = api.put(f"orgs/{ORG}/teams/t_missing/members/u_bob", json={})
    assert error(r) == "team 't_missing' not found"


def test_delete_team_member(api, team):
    assert api.delete(f"orgs/{ORG}/teams/{team['id']}/members/u_erin").status_code == 204
    assert roles_in(api, team["id"]) == {}


def test_delete_team_member_who_is_not_in_the_team_is_204(api, team):
    assert api.delete(f"orgs/{ORG}/teams/{team['id']}/members/u_bob").status_code == 204
    assert roles_in(api, team["id"]) == {"u_erin": "member"}


def test_delete_team_member_needs_admin_or_team_owner(api, team):
    r = api.delete(f"orgs/{ORG}/teams/{team['id']}/members/u_erin", headers=EDITOR)
    assert r.status_code == 403
