"""Ids from answers go into paths only as one safe segment (untrusted/paths.py): a live id that
would climb out of its route is refused when read, so no call is ever made with it."""

from __future__ import annotations

import re

import pytest

from docform.untrusted.paths import UnsafePathError, api_path, id_misfit
from planning import live_api, open_store, run, write_manifests

PRUNE_TEAMS = "docform: {prune: {teams: true}}\norganization: {id: org_acme}\n"


def test_a_live_team_id_climbing_into_another_organization_deletes_nothing(tmp_path, sandbox):
    victim = live_api(sandbox, "PUT", "/orgs/org_other/teams", {"title": "Victim"})["id"]
    hostile = f"../../org_other/teams/{victim}"
    with open_store(sandbox) as store:
        team = {"id": hostile, "organization": "org_acme", "title": "Hostile"}
        store.insert("team", {**team, "createdAt": "2024-01-01T00:00:00.000Z"}, org="org_acme")
    result = run(["apply", write_manifests(tmp_path / "m", PRUNE_TEAMS), "--yes"], sandbox)
    assert result.exit_code == 1
    assert (
        "GET /orgs/org_acme/teams failed: the answer holds an id docform cannot use: "
        f"items[0].id is '{hostile[:37]}...', not a single path segment (letters, digits and "
        "- _ . ~ only, and not . or ..)."
    ) in result.stderr
    teams = live_api(sandbox, "GET", "/orgs/org_other/teams")["items"]
    assert [t["id"] for t in teams] == [victim]


@pytest.mark.parametrize("value", ["..", ".", "a/b", "t1?x=1", "t 1", "t%2e", "", "é"])
def test_ids_that_are_not_one_safe_segment_are_named(value):
    assert id_misfit(value) == (
        f"is {value!r}, not a single path segment (letters, digits and - _ . ~ only, and not "
        ". or ..)"
    )


@pytest.mark.parametrize("value", ["org_acme", "u_alice", "Ab3-x_y", "v1.2", "a~b"])
def test_ordinary_ids_are_safe_segments(value):
    assert id_misfit(value) is None
    assert api_path(f"/orgs/{value}") == f"/orgs/{value}"


@pytest.mark.parametrize("path", ["/orgs/a/../b", "/orgs//b", "/orgs/./b", "/orgs/a/.."])
def test_paths_with_empty_or_dot_segments_are_never_sent(path):
    with pytest.raises(UnsafePathError, match=re.escape("holds an empty, '.' or '..' segment")):
        api_path(path)


def test_characters_that_end_a_path_are_escaped_within_their_segment():
    assert api_path("/orgs/a#c d%/teams") == "/orgs/a%23c%20d%25/teams"


def test_a_query_written_after_the_path_is_kept():
    assert api_path("/orgs/org_acme/spaces?limit=1000") == "/orgs/org_acme/spaces?limit=1000"
