"""End to end: content access (``access:`` of spaces, collections and sites) planned, applied and
read back through the sandbox.

The seeded org_acme has u_alice (admin), u_erin (edit), u_bob (guest) and site_docs. Each test
arranges live teams, spaces and grants through the API, writes manifests, checks the plan's
addresses, actions and calls, applies, checks that a second plan is empty and reads the grants
back through the API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from docform_sandbox.seed import apply_seed, load_seed_file
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    open_store,
    plan_json,
    plan_request_count,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
SITE_PATH = f"{ORG_PATH}/sites/site_docs"
HEAD = """\
organization: {id: org_acme}
members: {alice@acme.test: admin, erin@acme.test: edit, bob@acme.test: guest}
teams: {platform: {title: Platform}, support: {title: Support}}
"""


def live_team(sandbox: Path, title: str) -> str:
    return live_api(sandbox, "PUT", f"{ORG_PATH}/teams", {"title": title})["id"]


def live_space(sandbox: Path, title: str) -> str:
    return live_api(sandbox, "POST", f"{ORG_PATH}/spaces", {"title": title})["id"]


def live_collection(sandbox: Path, title: str) -> str:
    return live_api(sandbox, "POST", f"{ORG_PATH}/collections", {"title": title})["id"]


def grant(sandbox: Path, base: str, role: str | None, **principals: list[str]) -> None:
    """Give ``role`` on the object at ``base`` (``/spaces/ID``) to ``teams=[...]`` or
    ``users=[...]``."""
    live_api(sandbox, "POST", f"{base}/permissions", {"role": role, **principals})


def grants(sandbox: Path, base: str) -> dict[str, dict[str, str | None]]:
    """The live grants of the object at ``base``: team titles and user emails to roles."""
    teams = live_api(sandbox, "GET", f"{base}/permissions/teams")["items"]
    users = live_api(sandbox, "GET", f"{base}/permissions/users")["items"]
    return {
        "teams": {item["team"]["title"]: item["permission"] for item in teams},
        "users": {item["user"]["email"]: item["permission"] for item in users},
    }


@pytest.fixture
def arranged(sandbox: Path) -> dict[str, str]:
    """Live teams Platform and Support and a space Handbook, with no grants yet."""
    return {
        "platform": live_team(sandbox, "Platform"),
        "support": live_team(sandbox, "Support"),
        "handbook": live_space(sandbox, "Handbook"),
    }


# -- granting ----------------------------------------------------------------------------------


def test_each_team_and_user_listed_is_granted_its_role_with_one_call(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    write_manifests(
        manifests,
        HEAD
        + "spaces:\n"
        + "  handbook:\n"
        + "    title: Handbook\n"
        + "    access: {teams: {platform: edit}, users: {erin@acme.test: admin}}\n",
    )
    plan = plan_json(manifests, sandbox)
    space = f"/spaces/{arranged['handbook']}/permissions"
    assert actions(plan) == [
        ("space.handbook.access.team.platform", "create"),
        ("space.handbook.access.user.erin@acme.test", "create"),
    ]
    assert calls(change(plan, "space.handbook.access.team.platform")) == [
        ("POST", space, {"role": "edit", "teams": [arranged["platform"]]})
    ]
    assert calls(change(plan, "space.handbook.access.user.erin@acme.test")) == [
        ("POST", space, {"role": "admin", "users": ["u_erin"]})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, f"/spaces/{arranged['handbook']}") == {
        "teams": {"Platform": "edit"},
        "users": {"erin@acme.test": "admin"},
    }


def test_a_guest_is_written_guest_and_granted_the_null_role(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {users: {bob@acme.test: guest}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    created = change(plan, "space.handbook.access.user.bob@acme.test", "create")
    assert calls(created) == [
        ("POST", f"/spaces/{arranged['handbook']}/permissions", {"role": None, "users": ["u_bob"]})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, f"/spaces/{arranged['handbook']}")["users"] == {"bob@acme.test": None}


@dataclass(frozen=True)
class CreatedWithATeam:
    """An object written new with a role for a team written new too."""

    key: str
    title: str
    team: str
    role: str
    list_route: str
    """Where the object is listed."""
    route: str
    """The object's own route, ``{}`` for its id."""


CREATED_WITH_A_TEAM = {
    "space": CreatedWithATeam(
        "handbook", "Handbook", "platform", "read", f"{ORG_PATH}/spaces", "/spaces/{}"
    ),
    "site": CreatedWithATeam(
        "help", "Help Center", "support", "admin", f"{ORG_PATH}/sites", f"{ORG_PATH}/sites/{{}}"
    ),
}


@pytest.mark.parametrize("where", list(CREATED_WITH_A_TEAM))
def test_a_grant_waits_for_its_new_object_and_its_new_team(
    sandbox: Path, manifests: Path, where: str
) -> None:
    new = CREATED_WITH_A_TEAM[where]
    access = f"access: {{teams: {{{new.team}: {new.role}}}}}"
    write_manifests(manifests, HEAD + f"{where}s:\n  {new.key}: {{title: {new.title}, {access}}}\n")
    plan = plan_json(manifests, sandbox)
    created = change(plan, f"{where}.{new.key}.access.team.{new.team}", "create")
    assert calls(created) == [
        (
            "POST",
            new.route.format(f"${{{where}.{new.key}.id}}") + "/permissions",
            {"role": new.role, "teams": [{"$placeholder": f"team.{new.team}.id"}]},
        )
    ]
    assert created["depends_on"] == [f"{where}.{new.key}#create", f"team.{new.team}#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    listed = live_api(sandbox, "GET", new.list_route)["items"]
    live_id = next(item["id"] for item in listed if item["title"] == new.title)
    assert grants(sandbox, new.route.format(live_id))["teams"] == {new.team.title(): new.role}


def test_a_member_invited_in_the_same_apply_is_granted_once_invited(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    write_manifests(
        manifests,
        HEAD.replace("bob@acme.test: guest", "bob@acme.test: guest, dave@acme.test: read")
        + "spaces:\n  handbook: {title: Handbook, access: {users: {dave@acme.test: edit}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    created = change(plan, "space.handbook.access.user.dave@acme.test", "create")
    assert created["depends_on"] == ["member.dave@acme.test#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, f"/spaces/{arranged['handbook']}")["users"] == {"dave@acme.test": "edit"}


# -- changing and removing ---------------------------------------------------------------------


def test_a_changed_role_is_patched(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    base = f"/spaces/{arranged['handbook']}"
    grant(sandbox, base, "edit", teams=[arranged["platform"]])
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {teams: {platform: read}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    changed = change(plan, "space.handbook.access.team.platform")
    assert changed["action"] == "update"
    assert [(f["path"], f["before"], f["after"]) for f in changed["fields"]] == [
        ("role", "edit", "read")
    ]
    assert calls(changed) == [
        ("PATCH", f"{base}/permissions/teams/{arranged['platform']}", {"role": "read"})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, base)["teams"] == {"Platform": "read"}


def test_a_grant_not_listed_is_removed(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    base = f"/spaces/{arranged['handbook']}"
    grant(sandbox, base, "edit", teams=[arranged["platform"], arranged["support"]])
    grant(sandbox, base, "admin", users=["u_erin"])
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {teams: {platform: edit}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [
        ("space.handbook.access.user.erin@acme.test", "delete"),
        ("space.handbook.access.team.support", "delete"),
    ]
    assert calls(change(plan, "space.handbook.access.team.support")) == [
        ("DELETE", f"{base}/permissions/teams/{arranged['support']}", None)
    ]
    assert calls(change(plan, "space.handbook.access.user.erin@acme.test")) == [
        ("DELETE", f"{base}/permissions/users/u_erin", None)
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, base) == {"teams": {"Platform": "edit"}, "users": {}}


def test_an_empty_access_removes_every_grant(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    base = f"/spaces/{arranged['handbook']}"
    grant(sandbox, base, "read", teams=[arranged["platform"]])
    grant(sandbox, base, None, users=["u_bob"])
    write_manifests(manifests, HEAD + "spaces:\n  handbook: {title: Handbook, access: {}}\n")
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, base) == {"teams": {}, "users": {}}


def test_a_grant_of_a_team_no_manifest_manages_is_removed_by_its_id(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    shadow = live_team(sandbox, "Shadow IT")
    base = f"/spaces/{arranged['handbook']}"
    grant(sandbox, base, "admin", teams=[shadow])
    write_manifests(manifests, HEAD + "spaces:\n  handbook: {title: Handbook, access: {}}\n")
    plan = plan_json(manifests, sandbox)
    removed = change(plan, f"space.handbook.access.team.~{shadow}", "delete")
    assert calls(removed) == [("DELETE", f"{base}/permissions/teams/{shadow}", None)]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_removed_grants_count_toward_the_deletion_limit(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    base = f"/spaces/{arranged['handbook']}"
    grant(sandbox, base, "edit", teams=[arranged["platform"], arranged["support"]])
    write_manifests(
        manifests,
        "docform: {limits: {maxDeletions: 1}}\n"
        + HEAD
        + "spaces:\n  handbook: {title: Handbook, access: {}}\n",
    )
    result = run(["plan", manifests, "--json"], sandbox)
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["rails"]["violations"] == [
        {
            "rail": "max-deletions",
            "message": "the plan deletes 2 objects, more than the 1 allowed per apply "
            "(--max-deletions N or limits.maxDeletions raises it)",
            "forceable": True,
            "address": None,
            "changes": [],
        }
    ]


def test_grants_of_an_entry_without_access_are_neither_read_nor_touched(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    base = f"/spaces/{arranged['handbook']}"
    grant(sandbox, base, "edit", teams=[arranged["support"]])
    write_manifests(manifests, HEAD + "spaces:\n  handbook: {title: Handbook}\n")
    without = plan_request_count(manifests, sandbox)
    assert_converged(manifests, sandbox)
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {teams: {support: edit}}}\n",
    )
    assert plan_request_count(manifests, sandbox) == without + 2  # its teams' and users' grants
    assert_converged(manifests, sandbox)


# -- collections and sites ---------------------------------------------------------------------


def test_access_on_a_collection(sandbox: Path, manifests: Path, arranged: dict[str, str]) -> None:
    engineering = live_collection(sandbox, "Engineering")
    write_manifests(
        manifests,
        HEAD
        + "collections:\n"
        + "  engineering:\n"
        + "    title: Engineering\n"
        + "    access: {teams: {support: comment}, users: {bob@acme.test: guest}}\n",
    )
    plan = plan_json(manifests, sandbox)
    base = f"/collections/{engineering}/permissions"
    assert calls(change(plan, "collection.engineering.access.team.support")) == [
        ("POST", base, {"role": "comment", "teams": [arranged["support"]]})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, f"/collections/{engineering}") == {
        "teams": {"Support": "comment"},
        "users": {"bob@acme.test": None},
    }


def test_access_on_a_site(sandbox: Path, manifests: Path, arranged: dict[str, str]) -> None:
    grant(sandbox, SITE_PATH, "edit", users=["u_erin"])
    write_manifests(
        manifests,
        HEAD
        + "sites:\n"
        + "  docs:\n"
        + "    id: site_docs\n"
        + "    access: {teams: {platform: admin}, users: {erin@acme.test: read}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs.access.team.platform")) == [
        ("POST", f"{SITE_PATH}/permissions", {"role": "admin", "teams": [arranged["platform"]]})
    ]
    assert calls(change(plan, "site.docs.access.user.erin@acme.test")) == [
        ("PATCH", f"{SITE_PATH}/permissions/users/u_erin", {"role": "read"})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, SITE_PATH) == {
        "teams": {"Platform": "admin"},
        "users": {"erin@acme.test": "read"},
    }


def test_a_site_grant_made_guest_is_granted_again(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    # A site's PATCH takes a role only: guest access is given by granting again.
    grant(sandbox, SITE_PATH, "edit", teams=[arranged["platform"]])
    write_manifests(
        manifests,
        HEAD + "sites:\n  docs: {id: site_docs, access: {teams: {platform: guest}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, "site.docs.access.team.platform", "update")) == [
        ("POST", f"{SITE_PATH}/permissions", {"role": None, "teams": [arranged["platform"]]})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, SITE_PATH)["teams"] == {"Platform": None}


# -- text, drift, validation -------------------------------------------------------------------


def test_the_text_plan_names_each_grant_and_its_role(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {users: {bob@acme.test: guest}}}\n",
    )
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 0, result.output
    assert (
        "  + space.handbook.access.user.bob@acme.test  (create)\n"
        "      + role: guest\n"
        f"      POST /spaces/{arranged['handbook']}/permissions "
        '{"role": null, "users": ["u_bob"]}\n'
    ) in result.stdout


def test_drift_reports_a_grant_given_outside_the_manifests(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {teams: {platform: edit}}}\n",
    )
    apply(manifests, sandbox)
    grant(sandbox, f"/spaces/{arranged['handbook']}", "admin", users=["u_erin"])
    result = run(["drift", manifests, "--json"], sandbox)
    assert result.exit_code == 2, result.output
    org = json.loads(result.stdout)["organizations"][0]
    assert [(c["address"], c["action"]) for c in org["changes"]] == [
        ("space.handbook.access.user.erin@acme.test", "delete")
    ]


@pytest.mark.parametrize(
    ("access", "message"),
    [
        (
            "{teams: {platfrom: edit}}",
            "main.yaml:5:48: spaces.handbook.access.teams.platfrom: unknown team 'platfrom' "
            "(did you mean 'platform'?)",
        ),
        (
            "{users: {eryn@acme.test: edit}}",
            "main.yaml:5:48: spaces.handbook.access.users.eryn@acme.test: unknown member "
            "'eryn@acme.test' (did you mean 'erin@acme.test'?)",
        ),
    ],
    ids=["team", "user"],
)
def test_access_to_an_unknown_team_or_member_is_a_located_error(
    manifests: Path, access: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_manifests(
        manifests, HEAD + f"spaces:\n  handbook: {{title: Handbook, access: {access}}}\n"
    )
    monkeypatch.chdir(manifests)
    result = run(["validate", "."], Path("unused.sqlite"))
    assert result.exit_code == 1
    assert result.stdout == message + "\n"


def test_a_team_role_is_not_a_content_role(
    manifests: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {teams: {platform: owner}}}\n",
    )
    monkeypatch.chdir(manifests)
    result = run(["validate", "."], Path("unused.sqlite"))
    assert result.exit_code == 1
    assert result.stdout == (
        "main.yaml:5:48: spaces.handbook.access.teams.platform: 'owner' is not one of: admin, "
        "create, edit, review, comment, read, guest\n"
    )


# -- export ------------------------------------------------------------------------------------


def test_export_writes_access_and_plans_nothing_after(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    write_manifests(
        manifests,
        HEAD
        + "collections:\n"
        + "  engineering: {title: Engineering, access: {teams: {support: comment}}}\n"
        + "spaces:\n"
        + "  handbook:\n"
        + "    title: Handbook\n"
        + "    collection: engineering\n"
        + "    access: {teams: {platform: edit}, users: {bob@acme.test: guest}}\n"
        + "  notes: {title: Notes}\n"
        + "sites:\n"
        + "  docs: {id: site_docs, access: {users: {erin@acme.test: admin}}}\n",
    )
    apply(manifests, sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    content = yaml.safe_load((exported / "content.yaml").read_text(encoding="utf-8"))
    assert content["collections"]["engineering"]["access"] == {"teams": {"support": "comment"}}
    assert content["spaces"]["handbook"]["access"] == {
        "teams": {"platform": "edit"},
        "users": {"bob@acme.test": "guest"},
    }
    assert "access" not in content["spaces"]["notes"]  # no grant: written as not managed
    sites = yaml.safe_load((exported / "sites.yaml").read_text(encoding="utf-8"))
    assert sites["sites"]["acme-docs"]["access"] == {"users": {"erin@acme.test": "admin"}}
    assert_converged(exported, sandbox)


def test_export_leaves_out_the_access_of_an_object_shared_with_a_user_without_an_email(
    sandbox: Path, tmp_path: Path, arranged: dict[str, str]
) -> None:
    # Written without that grant, the access would tell the next apply to remove it.
    seed = tmp_path / "dana.yaml"
    seed.write_text(
        "organizations: [{id: org_acme, title: Acme, "
        "members: [{id: u_dana, displayName: Dana, role: read}]}]\n",
        encoding="utf-8",
    )
    with open_store(sandbox) as store:
        apply_seed(store, load_seed_file(seed))
    base = f"/spaces/{arranged['handbook']}"
    grant(sandbox, base, "edit", teams=[arranged["platform"]])
    grant(sandbox, base, "read", users=["u_dana"])
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    content = yaml.safe_load((exported / "content.yaml").read_text(encoding="utf-8"))
    assert "access" not in content["spaces"]["handbook"]
    assert (
        "spaces.handbook.access left out (not managed): it refers to user without an email "
        "u_dana, which cannot be named in the manifests"
    ) in result.output


def test_docform_lock_records_the_objects_not_their_grants(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    write_manifests(
        manifests,
        HEAD + "spaces:\n  handbook: {title: Handbook, access: {teams: {platform: edit}}}\n",
    )
    apply(manifests, sandbox)
    lock = (manifests / "docform.lock").read_text(encoding="utf-8")
    assert f"space.handbook: {arranged['handbook']}" in lock
    assert ".access." not in lock


def test_ignore_sets_the_grants_of_an_object_aside(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    grant(sandbox, f"/spaces/{arranged['handbook']}", "admin", users=["u_erin"])
    write_manifests(
        manifests,
        'docform: {ignore: ["space.handbook.access.*"]}\n'
        + HEAD
        + "spaces:\n  handbook: {title: Handbook, access: {teams: {platform: edit}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert [(i["item"], i["address"]) for i in plan["ignored"]] == [
        ("unmanaged", "space.handbook.access.user.erin@acme.test"),
        ("change", "space.handbook.access.team.platform"),
    ]


def test_a_deleted_space_is_restored_before_its_grants_are_given(
    sandbox: Path, manifests: Path, arranged: dict[str, str]
) -> None:
    live_api(sandbox, "DELETE", f"/spaces/{arranged['handbook']}")
    write_manifests(
        manifests,
        HEAD
        + "spaces:\n"
        + f"  handbook: {{id: {arranged['handbook']}, title: Handbook, "
        + "access: {teams: {platform: edit}}}\n",
    )
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [
        ("space.handbook", "restore"),
        ("space.handbook.access.team.platform", "create"),
    ]
    assert change(plan, "space.handbook.access.team.platform")["depends_on"] == [
        "space.handbook#restore"
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert grants(sandbox, f"/spaces/{arranged['handbook']}")["teams"] == {"Platform": "edit"}
