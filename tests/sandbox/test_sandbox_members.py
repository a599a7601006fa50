"""Organization members in the sandbox: list filters and sorts, get, patch, delete, SSO, invites
(sandbox/routes/members.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN
from docform_sandbox.documents import member_document, user_document

OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def add_member(store, user_id, name, role, joined, last_seen, *, disabled=False):
    """A member whose email is at example.test, so `search=example.test` lists only these."""
    store.insert("user", user_document(user_id, f"{user_id}@example.test", name))
    doc = member_document(ORG, user_id, role, joined)
    doc["lastSeenAt"] = last_seen
    doc["disabled"] = disabled
    store.insert("member", doc, org=ORG)


EXTRA_MEMBERS = [
    # id, displayName, role, joinedAt, lastSeenAt, disabled
    ("u_dora", "dora Zed", "read", "2020-01-02T00:00:00.000Z", "2021-01-04T00:00:00.000Z", False),
    ("u_fred", "Fred Young", "edit", "2020-01-01T00:00:00.000Z", "2021-01-01T00:00:00.000Z", False),
    ("u_gina", "Gina Able", None, "2020-01-04T00:00:00.000Z", "2021-01-02T00:00:00.000Z", False),
    ("u_hank", "Hank Moss", "read", "2020-01-03T00:00:00.000Z", "2021-01-03T00:00:00.000Z", True),
]


@pytest.fixture
def extra_members(store):
    """Four more members with distinct join and last-seen times and names; Hank is disabled."""
    for user_id, name, role, joined, last_seen, disabled in EXTRA_MEMBERS:
        add_member(store, user_id, name, role, joined, last_seen, disabled=disabled)


def ids(body):
    return [item["id"] for item in body["items"]]


def error(response):
    return response.json()["error"]["message"]


# -- list -------------------------------------------------------------------------------------


def test_list_members_items_are_member_objects(api, store):
    body = api.get(f"orgs/{ORG}/members", params={"search": "bob"}).json()
    joined = store.get("member", f"{ORG}/u_bob")["joinedAt"]
    assert body["items"] == [
        {
            "object": "member",
            "id": "u_bob",
            "role": None,
            "user": {
                "object": "user",
                "id": "u_bob",
                "displayName": "Bob Guest",
                "email": "bob@acme.test",
                "photoURL": "https://avatars.sandbox.test/u_bob.png",
                "urls": {"location": "https://api.sandbox.test/v1/users/u_bob"},
            },
            "disabled": False,
            "joinedAt": joined,
            "lastSeenAt": joined,
            "sso": False,
            "spaces": 0,
            "teams": 0,
            "sites": 0,
        }
    ]


def test_list_members_counts_every_member(api):
    body = api.get(f"orgs/{ORG}/members").json()
    assert body["count"] == 3
    assert sorted(ids(body)) == ["u_alice", "u_bob", "u_erin"]


def test_list_members_default_is_newest_joined_first(api, extra_members):
    body = api.get(f"orgs/{ORG}/members", params={"search": "example.test"}).json()
    assert ids(body) == ["u_gina", "u_hank", "u_dora", "u_fred"]


def test_list_members_order_asc_is_oldest_joined_first(api, extra_members):
    params = {"search": "example.test", "order": "asc"}
    expected = ["u_fred", "u_dora", "u_hank", "u_gina"]
    assert ids(api.get(f"orgs/{ORG}/members", params=params).json()) == expected


def test_list_members_sort_by_name_ignores_case(api, extra_members):
    params = {"search": "example.test", "sort": "name", "order": "asc"}
    # Dora's lower-case name sorts after the capitals byte-wise, first without case.
    expected = ["u_dora", "u_fred", "u_gina", "u_hank"]
    assert ids(api.get(f"orgs/{ORG}/members", params=params).json()) == expected


def test_list_members_sort_by_last_seen_lists_only_active_members(api, extra_members):
    params = {"search": "example.test", "sort": "lastSeenAt"}
    body = api.get(f"orgs/{ORG}/members", params=params).json()
    assert ids(body) == ["u_dora", "u_gina", "u_fred"]
    assert body["count"] == 3


def test_list_members_filters_by_role(api):
    assert ids(api.get(f"orgs/{ORG}/members", params={"role": "edit"}).json()) == ["u_erin"]


def test_list_members_role_guest_lists_null_roles(api):
    assert ids(api.get(f"orgs/{ORG}/members", params={"role": "guest"}).json()) == ["u_bob"]


def test_list_members_search_matches_display_name_case_insensitively(api):
    assert ids(api.get(f"orgs/{ORG}/members", params={"search": "eRiN eD"}).json()) == ["u_erin"]


def test_list_members_search_matches_email(api):
    assert ids(api.get(f"orgs/{ORG}/members", params={"search": "ALICE@"}).json()) == ["u_alice"]


def test_list_members_search_without_match_is_empty(api):
    body = api.get(f"orgs/{ORG}/members", params={"search": "nobody"}).json()
    assert body == {"count": 0, "items": []}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_members_unknown_role_is_400(api):
    r = api.get(f"orgs/{ORG}/members", params={"role": "boss"})
    assert r.status_code == 400
    assert error(r) == (
        "role: must be one of 'admin', 'create', 'review', 'edit', 'comment', 'read', 'guest', "
        "not 'boss'"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_members_unknown_sort_is_400(api):
    r = api.get(f"orgs/{ORG}/members", params={"sort": "email"})
    assert r.status_code == 400
    assert error(r) == "sort: must be one of 'joinedAt', 'lastSeenAt', 'name', not 'email'"


@pytest.mark.parametrize("sort", ["joinedAt", "lastSeenAt", "name"])
def test_list_members_pages_return_each_member_once(api, extra_members, sort):
    seen, params = [], {"limit": 2, "sort": sort}
    while True:
        body = api.get(f"orgs/{ORG}/members", params=params).json()
        assert len(body["items"]) <= 2
        seen += ids(body)
        if "next" not in body:
            break
        params["page"] = body["next"]["page"]
    expected = 6 if sort == "lastSeenAt" else 7
    assert len(seen) == expected
    assert len(set(seen)) == expected


def test_list_members_second_page_follows_the_first_and_names_no_previous(api, extra_members):
    """The definition's list envelope is ``items``, ``count`` and ``next``: no ``previous``."""
    first = api.get(f"orgs/{ORG}/members", params={"limit": 2}).json()
    second = api.get(
        f"orgs/{ORG}/members", params={"limit": 2, "page": first["next"]["page"]}
    ).json()
    assert "previous" not in second and set(second) <= {"count", "items", "next"}
    assert set(ids(first)).isdisjoint(ids(second))


def test_list_members_of_another_org_is_403(api):
    r = api.get(f"orgs/{ORG}/members", headers=OTHER)
    assert r.status_code == 403


def test_list_members_of_unknown_org_is_404(api):
    r = api.get("orgs/org_missing/members")
    assert r.status_code == 404
    assert error(r) == "organization 'org_missing' not found"


# -- one member -------------------------------------------------------------------------------


def test_get_member(api):
    member = api.get(f"orgs/{ORG}/members/u_erin").json()
    assert (member["object"], member["id"], member["role"]) == ("member", "u_erin", "edit")
    assert member["user"]["displayName"] == "Erin Editor"


def test_get_unknown_member_is_404(api):
    r = api.get(f"orgs/{ORG}/members/u_carol")
    assert r.status_code == 404
    assert r.json() == {"error": {"code": 404, "message": "member 'u_carol' not found"}}


def test_member_counts_its_teams(api):
    api.put(f"orgs/{ORG}/teams", json={"title": "One", "members": ["u_erin"]})
    api.put(f"orgs/{ORG}/teams", json={"title": "Two", "members": ["u_erin"]})
    assert api.get(f"orgs/{ORG}/members/u_erin").json()["teams"] == 2


def test_patch_member_role(api):
    r = api.patch(f"orgs/{ORG}/members/u_bob", json={"role": "review"})
    assert r.status_code == 200
    assert r.json()["role"] == "review"
    assert api.get(f"orgs/{ORG}/members/u_bob").json()["role"] == "review"


def test_patch_member_role_null_makes_a_guest(api):
    r = api.patch(f"orgs/{ORG}/members/u_erin", json={"role": None})
    assert r.json()["role"] is None


def test_patch_member_without_role_changes_nothing(api):
    assert api.patch(f"orgs/{ORG}/members/u_erin", json={}).json()["role"] == "edit"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_member_unknown_role_is_400(api):
    r = api.patch(f"orgs/{ORG}/members/u_erin", json={"role": "boss"})
    assert r.status_code == 400
    assert error(r) == (
        "role: must be one of 'admin', 'create', 'review', 'edit', 'comment', 'read' or null, "
        "not 'boss'"
    )


def test_patch_unknown_member_is_404(api):
    assert api.patch(f"orgs/{ORG}/members/u_nobody", json={"role": "read"}).status_code == 404


def test_patch_member_needs_admin(api):
    r = api.patch(f"orgs/{ORG}/members/u_bob", json={"role": "admin"}, headers=EDITOR)
    assert r.status_code == 403
    assert error(r) == "changing organization 'org_acme' needs the admin role"


def test_delete_member_is_205(api):
    r = api.delete(f"orgs/{ORG}/members/u_bob")
    assert (r.status_code, r.content) == (205, b"")
    assert api.get(f"orgs/{ORG}/members/u_bob").status_code == 404


def test_a_member_not_admin_asking_to_remove_one_gets_202_and_removes_nothing(api, store):
    r = api.delete(f"orgs/{ORG}/members/u_bob", headers=EDITOR)
    assert (r.status_code, r.content) == (202, b"")
    assert api.get(f"orgs/{ORG}/members/u_bob").status_code == 200
    [request] = [o for o in store.all("member-removal-request")]
    assert (request["user"], request["requestedBy"]) == ("u_bob", "u_erin")
    again = api.delete(f"orgs/{ORG}/members/u_bob", headers=EDITOR)
    assert again.status_code == 202
    assert len(store.all("member-removal-request")) == 1


def test_delete_non_member_is_204(api):
    r = api.delete(f"orgs/{ORG}/members/u_nobody")
    assert r.status_code == 204
    assert r.content == b""


def test_delete_member_removes_its_team_memberships(api):
    team = api.put(f"orgs/{ORG}/teams", json={"title": "T", "members": ["u_bob", "u_erin"]})
    api.delete(f"orgs/{ORG}/members/u_bob")
    members = api.get(f"orgs/{ORG}/teams/{team.json()['id']}/members").json()
    assert [m["organization"]["id"] for m in members["items"]] == ["u_erin"]


def test_delete_member_of_another_org_is_403(api):
    assert api.delete(f"orgs/{ORG}/members/u_bob", headers=OTHER).status_code == 403
    assert api.get(f"orgs/{ORG}/members/u_bob").status_code == 200


def test_set_member_sso(api):
    r = api.post(f"orgs/{ORG}/members/u_erin/sso")
    assert r.status_code == 200
    assert r.json()["sso"] is True
    assert api.get(f"orgs/{ORG}/members/u_erin").json()["sso"] is True


def test_set_sso_of_unknown_member_is_404(api):
    assert api.post(f"orgs/{ORG}/members/u_nobody/sso").status_code == 404


# -- invites ----------------------------------------------------------------------------------


def invite(api, body, **kwargs):
    return api.post(f"orgs/{ORG}/invites", json=body, **kwargs)


def member_by_email(api, email):
    items = api.get(f"orgs/{ORG}/members", params={"search": email}).json()["items"]
    assert len(items) == 1
    return items[0]


def test_invite_new_email_creates_a_member_with_the_default_role(api):
    r = invite(api, {"emails": ["new.person@acme.test"]})
    assert r.status_code == 200
    member = member_by_email(api, "new.person@acme.test")
    assert r.json() == {"users": [member["id"]], "invited": 1}
    assert member["role"] == "read"
    assert member["user"]["displayName"] == "new.person"


def test_invite_uses_the_body_role(api):
    invite(api, {"emails": ["x@acme.test"], "role": "comment"})
    assert member_by_email(api, "x@acme.test")["role"] == "comment"


def test_invite_body_role_null_invites_a_guest(api):
    invite(api, {"emails": ["x@acme.test"], "role": None})
    assert member_by_email(api, "x@acme.test")["role"] is None


def test_invite_per_email_role_overrides_the_body_role(api):
    invite(
        api, {"emails": [{"email": "x@acme.test", "role": "admin"}, "y@acme.test"], "role": "edit"}
    )
    assert member_by_email(api, "x@acme.test")["role"] == "admin"
    assert member_by_email(api, "y@acme.test")["role"] == "edit"


def test_invite_sets_sso(api):
    invite(api, {"emails": ["x@acme.test"], "sso": True})
    assert member_by_email(api, "x@acme.test")["sso"] is True


def test_invite_existing_user_adds_that_user(api):
    r = invite(api, {"emails": ["Carol@Other.test"]})
    assert r.json() == {"users": ["u_carol"], "invited": 1}
    assert api.get(f"orgs/{ORG}/members/u_carol").json()["role"] == "read"


def test_invite_existing_member_changes_nothing(api):
    r = invite(api, {"emails": ["erin@acme.test", "x@acme.test"], "role": "admin"})
    assert r.json()["invited"] == 1
    assert api.get(f"orgs/{ORG}/members/u_erin").json()["role"] == "edit"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_invite_bad_email_is_400_naming_the_entry(api):
    r = invite(api, {"emails": ["ok@acme.test", "not-an-email"]})
    assert r.status_code == 400
    assert error(r) == "emails.1: 'not-an-email' is not an email address"
    assert api.get(f"orgs/{ORG}/members").json()["count"] == 3


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_invite_bad_email_in_object_is_400(api):
    r = invite(api, {"emails": [{"email": "a@b"}]})
    assert error(r) == "emails.0: 'a@b' is not an email address"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_invite_unknown_per_email_role_is_400(api):
    r = invite(api, {"emails": [{"email": "x@acme.test", "role": "boss"}]})
    assert r.status_code == 400
    assert error(r).startswith("emails.0.role: must be one of 'admin'")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_invite_unknown_body_role_is_400(api):
    r = invite(api, {"emails": ["x@acme.test"], "role": "boss"})
    assert r.status_code == 400
    assert error(r).startswith("role: must be one of 'admin'")


def test_invite_without_emails_is_400(api):
    r = invite(api, {"emails": []})
    assert r.status_code == 400
    assert error(r) == "emails: List should have at least 1 item after validation, not 0"


def test_invite_needs_admin(api):
    assert invite(api, {"emails": ["x@acme.test"]}, headers=EDITOR).status_code == 403
