"""Content permissions in the sandbox: grants of roles to teams and users on spaces, collections
and sites, their lists, changes and removals, and who ends up with access
(sandbox/routes/permissions.py, sandbox/grants.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN

OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}
SITE_PERMISSIONS = f"orgs/{ORG}/sites/site_docs/permissions"
KINDS = ["space", "collection", "site"]


def error(response, status):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == status
    return body["error"]["message"]


def created(response):
    assert response.status_code in (200, 201), response.text
    return response.json()


def titled(title, parent):
    """A create's body; the definition gives ``parent`` no null: a top-level object has none."""
    return {"title": title} if parent is None else {"title": title, "parent": parent}


def new_collection(api, title="Guides", parent=None):
    return created(api.post(f"orgs/{ORG}/collections", json=titled(title, parent)))


def new_space(api, title="Handbook", parent=None):
    return created(api.post(f"orgs/{ORG}/spaces", json=titled(title, parent)))


def new_team(api, title="Platform", members=()):
    body = {"title": title, "members": list(members)}
    return created(api.put(f"orgs/{ORG}/teams", json=body))


def permissions_of(api, kind):
    """The permissions path of a new object of ``kind`` (the seeded site for a site)."""
    if kind == "space":
        return f"spaces/{new_space(api)['id']}/permissions"
    if kind == "collection":
        return f"collections/{new_collection(api)['id']}/permissions"
    return SITE_PERMISSIONS


def grant(api, path, **body):
    response = api.post(path, json=body)
    assert (response.status_code, response.content) == (204, b""), response.text
    return response


def listed(api, path, principal):
    """{team or user id: role} of one grants list."""
    body = api.get(f"{path}/{principal}s").json()
    assert body["count"] == len(body["items"])
    return {item[principal]["id"]: item["permission"] for item in body["items"]}


def access(api, path, **params):
    """[(user id, role)] of an aggregate list, in its order."""
    body = api.get(f"{path}/aggregate", params=params).json()
    return [(item["user"]["id"], item["permission"]) for item in body["items"]]


# -- grant and list ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_team_granted_a_role_is_listed_with_the_team(api, kind):
    path = permissions_of(api, kind)
    team = new_team(api, members=["u_erin"])
    grant(api, path, role="edit", teams=[team["id"]])
    body = api.get(f"{path}/teams").json()
    assert body["count"] == 1
    (item,) = body["items"]
    assert item["permission"] == "edit"
    assert {k: item["team"][k] for k in ("object", "id", "title", "members")} == {
        "object": "team",
        "id": team["id"],
        "title": "Platform",
        "members": 1,
    }
    assert listed(api, path, "user") == {}


@pytest.mark.parametrize("kind", KINDS)
def test_users_granted_a_role_are_listed_with_their_user(api, kind):
    path = permissions_of(api, kind)
    grant(api, path, role="review", users=["u_erin", "u_bob"])
    items = api.get(f"{path}/users").json()["items"]
    assert {item["user"]["id"]: item["permission"] for item in items} == {
        "u_erin": "review",
        "u_bob": "review",
    }
    erin = next(item["user"] for item in items if item["user"]["id"] == "u_erin")
    assert (erin["object"], erin["email"], erin["displayName"]) == (
        "user",
        "erin@acme.test",
        "Erin Editor",
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_guest_grant_is_listed_with_a_null_role(api, kind):
    path = permissions_of(api, kind)
    grant(api, path, role=None, users=["u_bob"])
    assert listed(api, path, "user") == {"u_bob": None}


def test_granting_again_replaces_the_role(api):
    grant(api, SITE_PERMISSIONS, role="read", users=["u_erin"])
    grant(api, SITE_PERMISSIONS, role="admin", users=["u_erin"])
    assert listed(api, SITE_PERMISSIONS, "user") == {"u_erin": "admin"}


@pytest.mark.contract_exempt("the sandbox honours an order parameter the definition lacks")
def test_grant_lists_page_with_cursors(api):
    teams = [new_team(api, f"Team {n}")["id"] for n in range(5)]
    grant(api, SITE_PERMISSIONS, role="read", teams=teams)
    first = api.get(f"{SITE_PERMISSIONS}/teams", params={"limit": 3, "order": "asc"}).json()
    assert (first["count"], len(first["items"])) == (5, 3)
    params = {"limit": 3, "order": "asc", "page": first["next"]["page"]}
    second = api.get(f"{SITE_PERMISSIONS}/teams", params=params).json()
    assert "next" not in second
    assert [i["team"]["id"] for i in first["items"] + second["items"]] == teams


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"teams": ["t"]}, "role: Field required"),
        ({"role": "owner", "users": ["u_erin"]}, "role: Input should be 'admin', 'create', "
         "'review', 'edit', 'comment' or 'read'"),
        ({"role": "edit"}, "body: give either teams or users (each a list of 1 or more ids)"),
        ({"role": "edit", "teams": ["t"], "users": ["u_erin"]},
         "body: give either teams or users (each a list of 1 or more ids)"),
        ({"role": "edit", "users": []},
         "users: List should have at least 1 item after validation, not 0"),
        ({"role": "edit", "users": ["u_erin", "u_carol"]},
         "users.1: no member 'u_carol' in this organization"),
        ({"role": "edit", "teams": ["nope"]}, "teams.0: no team 'nope' in this organization"),
    ],
)  # fmt: skip
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_bad_grant_is_400_naming_the_field_and_changes_nothing(api, body, message):
    assert error(api.post(SITE_PERMISSIONS, json=body), 400) == message
    assert listed(api, SITE_PERMISSIONS, "user") == {}
    assert listed(api, SITE_PERMISSIONS, "team") == {}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_team_of_another_organization_cannot_be_granted(api):
    theirs = created(api.put("orgs/org_other/teams", json={"title": "Theirs"}, headers=OTHER))
    body = {"role": "read", "teams": [theirs["id"]]}
    assert error(api.post(SITE_PERMISSIONS, json=body), 400) == (
        f"teams.0: no team '{theirs['id']}' in this organization"
    )


# -- change and remove ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_patch_changes_the_role_of_a_team_and_of_a_user(api, kind):
    path = permissions_of(api, kind)
    team = new_team(api)
    grant(api, path, role="read", teams=[team["id"]])
    grant(api, path, role="read", users=["u_erin"])
    answer = api.patch(f"{path}/teams/{team['id']}", json={"role": "admin"})
    assert (answer.status_code, answer.content) == (204, b"")
    assert api.patch(f"{path}/users/u_erin", json={"role": "comment"}).status_code == 204
    assert listed(api, path, "team") == {team["id"]: "admin"}
    assert listed(api, path, "user") == {"u_erin": "comment"}


def test_patch_without_a_role_changes_nothing(api):
    grant(api, SITE_PERMISSIONS, role="read", users=["u_erin"])
    assert api.patch(f"{SITE_PERMISSIONS}/users/u_erin", json={}).status_code == 204
    assert listed(api, SITE_PERMISSIONS, "user") == {"u_erin": "read"}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_to_guest_is_accepted_on_a_space_but_not_on_a_site(api):
    space = permissions_of(api, "space")
    for path in (space, SITE_PERMISSIONS):
        grant(api, path, role="read", users=["u_erin"])
    assert api.patch(f"{space}/users/u_erin", json={"role": None}).status_code == 204
    assert listed(api, space, "user") == {"u_erin": None}
    answer = api.patch(f"{SITE_PERMISSIONS}/users/u_erin", json={"role": None})
    assert error(answer, 400) == "role: must be a role, not null"


def test_patch_of_a_team_without_a_grant_is_404(api):
    team = new_team(api)
    answer = api.patch(f"{SITE_PERMISSIONS}/teams/{team['id']}", json={"role": "read"})
    assert error(answer, 404) == f"team '{team['id']}' has no permission on site 'site_docs'"
    answer = api.patch(f"{SITE_PERMISSIONS}/users/nobody", json={"role": "read"})
    assert error(answer, 404) == "user 'nobody' has no permission on site 'site_docs'"


@pytest.mark.parametrize("kind", KINDS)
def test_delete_answers_205_when_it_removed_a_grant_and_204_when_there_was_none(api, kind):
    path = permissions_of(api, kind)
    team = new_team(api)
    grant(api, path, role="edit", teams=[team["id"]])
    grant(api, path, role="edit", users=["u_erin"])
    for grant_path in (f"{path}/teams/{team['id']}", f"{path}/users/u_erin"):
        first, again = api.delete(grant_path), api.delete(grant_path)
        assert (first.status_code, first.content) == (205, b"")
        assert (again.status_code, again.content) == (204, b"")
    assert listed(api, path, "team") == {}
    assert listed(api, path, "user") == {}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_removing_a_team_from_a_space_it_reaches_through_its_collection_is_400(api):
    collection = new_collection(api)
    space = new_space(api, parent=collection["id"])
    team = new_team(api)
    grant(api, f"collections/{collection['id']}/permissions", role="edit", teams=[team["id"]])
    answer = api.delete(f"spaces/{space['id']}/permissions/teams/{team['id']}")
    assert error(answer, 400) == (
        f"team does not have access to space '{space['id']}' itself: team '{team['id']}' has "
        f"its role through collection '{collection['id']}'; remove it there"
    )


# -- who ends up with access ---------------------------------------------------------------------


def test_aggregate_joins_organization_roles_team_and_user_grants_and_collections(api):
    """Alice is an org admin, Erin an org editor, Bob a guest who reaches the space only
    through a team's grant on the collection holding it."""
    collection = new_collection(api)
    space = new_space(api, parent=collection["id"])
    team = new_team(api, members=["u_bob", "u_erin"])
    grant(api, f"collections/{collection['id']}/permissions", role="comment", teams=[team["id"]])
    path = f"spaces/{space['id']}/permissions"
    assert access(api, path) == [("u_alice", "admin"), ("u_bob", "comment"), ("u_erin", "edit")]
    grant(api, path, role="create", users=["u_erin"])
    assert access(api, path) == [("u_alice", "admin"), ("u_bob", "comment"), ("u_erin", "create")]
    assert access(api, path, role="create") == [("u_erin", "create")]


def test_aggregate_lists_a_guest_grant_as_null_and_filters_guests(api):
    grant(api, SITE_PERMISSIONS, role=None, users=["u_bob"])
    assert access(api, SITE_PERMISSIONS) == [
        ("u_alice", "admin"),
        ("u_bob", None),
        ("u_erin", "edit"),
    ]
    assert access(api, SITE_PERMISSIONS, role="guest") == [("u_bob", None)]


def test_aggregate_leaves_out_members_without_access(api):
    """Bob is a guest of the organization and was granted nothing."""
    assert access(api, SITE_PERMISSIONS) == [("u_alice", "admin"), ("u_erin", "edit")]


@pytest.mark.contract_exempt("sorts by role, which the definition's sort does not list")
def test_site_aggregate_searches_filters_by_team_and_sorts(api):
    team = new_team(api, members=["u_bob", "u_alice"])
    grant(api, SITE_PERMISSIONS, role="read", teams=[team["id"]])
    assert access(api, SITE_PERMISSIONS, search="ERIN@") == [("u_erin", "edit")]
    assert access(api, SITE_PERMISSIONS, team=team["id"]) == [
        ("u_alice", "admin"),
        ("u_bob", "read"),
    ]
    assert access(api, SITE_PERMISSIONS, sort="role", order="desc") == [
        ("u_bob", "read"),
        ("u_erin", "edit"),
        ("u_alice", "admin"),
    ]
    assert access(api, SITE_PERMISSIONS, order="desc") == [
        ("u_erin", "edit"),
        ("u_bob", "read"),
        ("u_alice", "admin"),
    ]


def test_aggregate_pages_with_cursors(api):
    first = api.get(f"{SITE_PERMISSIONS}/aggregate", params={"limit": 1}).json()
    assert (first["count"], [i["user"]["id"] for i in first["items"]]) == (2, ["u_alice"])
    params = {"limit": 1, "page": first["next"]["page"]}
    second = api.get(f"{SITE_PERMISSIONS}/aggregate", params=params).json()
    assert [i["user"]["id"] for i in second["items"]] == ["u_erin"]
    assert "next" not in second


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"role": "owner"}, "role: must be a role or 'guest', not 'owner'"),
        ({"team": "nope"}, "team: no team 'nope' in this organization"),
        ({"sort": "email"}, "sort: Input should be 'name' or 'role'"),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_bad_aggregate_query_is_400(api, params, message):
    assert error(api.get(f"{SITE_PERMISSIONS}/aggregate", params=params), 400) == message


# -- who may, and what goes with what ------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_member_may_read_grants_but_only_an_admin_change_them(api, kind):
    path = permissions_of(api, kind)
    assert api.get(f"{path}/users", headers=EDITOR).status_code == 200
    answer = api.post(path, json={"role": "admin", "users": ["u_erin"]}, headers=EDITOR)
    assert error(answer, 403) == f"changing organization '{ORG}' needs the admin role"
    assert error(api.delete(f"{path}/users/u_erin", headers=EDITOR), 403) == (
        f"changing organization '{ORG}' needs the admin role"
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_another_organizations_token_is_403(api, kind):
    path = permissions_of(api, kind)
    for listing in ("teams", "users", "aggregate"):
        answer = api.get(f"{path}/{listing}", headers=OTHER)
        assert error(answer, 403) == f"you are not a member of organization '{ORG}'"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_unknown_and_deleted_objects_are_404(api):
    space = new_space(api)
    assert api.delete(f"spaces/{space['id']}").status_code == 204
    assert error(api.get(f"spaces/{space['id']}/permissions/users"), 404) == (
        f"space '{space['id']}' not found"
    )
    assert error(api.get("collections/nope/permissions/teams"), 404) == (
        "collection 'nope' not found"
    )
    assert error(api.get(f"orgs/{ORG}/sites/nope/permissions/users"), 404) == (
        "site 'nope' not found"
    )


def test_a_deleted_team_loses_its_grants_and_a_team_counts_its_spaces(api):
    team = new_team(api)
    spaces = [permissions_of(api, "space") for _ in range(2)]
    for path in (*spaces, SITE_PERMISSIONS):
        grant(api, path, role="read", teams=[team["id"]])
    assert api.get(f"orgs/{ORG}/teams/{team['id']}").json()["spaces"] == 2
    assert api.delete(f"orgs/{ORG}/teams/{team['id']}").status_code == 204
    assert listed(api, SITE_PERMISSIONS, "team") == {}


def test_a_member_counts_the_spaces_and_sites_granted_to_them_not_to_their_teams(api):
    team = new_team(api, members=["u_erin"])
    spaces = [new_space(api, title=f"Space {i}") for i in range(3)]
    for space in spaces[:2]:
        grant(api, f"spaces/{space['id']}/permissions", role="read", users=["u_erin"])
    grant(api, f"spaces/{spaces[2]['id']}/permissions", role="read", teams=[team["id"]])
    grant(api, permissions_of(api, "collection"), role="read", users=["u_erin"])
    grant(api, SITE_PERMISSIONS, role=None, users=["u_erin"])
    assert api.delete(f"spaces/{spaces[0]['id']}").status_code == 204
    member = api.get(f"orgs/{ORG}/members/u_erin").json()
    assert (member["spaces"], member["sites"]) == (1, 1)


def test_a_member_who_leaves_loses_their_grants(api):
    grant(api, SITE_PERMISSIONS, role="admin", users=["u_erin"])
    assert api.delete(f"orgs/{ORG}/members/u_erin").status_code == 205
    assert listed(api, SITE_PERMISSIONS, "user") == {}


def test_deleting_a_collection_or_a_site_deletes_the_grants_on_it(api, store):
    collection = new_collection(api)
    grant(api, f"collections/{collection['id']}/permissions", role="read", users=["u_erin"])
    grant(api, SITE_PERMISSIONS, role="read", users=["u_erin"])
    assert store.count("content-permission") == 2
    assert api.delete(f"collections/{collection['id']}").status_code == 204
    assert api.delete(f"orgs/{ORG}/sites/site_docs").status_code == 205
    assert store.count("content-permission") == 0
