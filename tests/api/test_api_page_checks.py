"""A page is first checked whole (api/shape_batches.py) and walked item by item only for the
message: the whole-page check never lets through what the walk refuses, and the message names
the item, wherever it is in the page."""

from __future__ import annotations

import pytest

from planning import live_api, open_store, run, write_manifests

MANIFEST = "organization: {id: org_acme}\n"
BAD_TITLES = {
    "true": (True, "is true or false (True), not a string"),
    "a number": (1, "is a number (1), not a string"),
    "null": (None, "is null, not a string"),
    "an object": ({"en": "x"}, "is an object, not a string"),
}


@pytest.mark.parametrize("name", BAD_TITLES)
@pytest.mark.contract_exempt(
    "the sandbox holds a team whose title is not a string, to check docform names it", answers=True
)
def test_a_team_with_a_title_of_the_wrong_type_after_good_ones_is_named(tmp_path, sandbox, name):
    value, problem = BAD_TITLES[name]
    for title in ("One", "Two"):
        live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": title})
    with open_store(sandbox) as store:
        team = {"id": "t_odd", "organization": "org_acme", "title": value}
        store.insert("team", {**team, "createdAt": "2030-01-01T00:00:00.000Z"}, org="org_acme")
    ids = [t["id"] for t in live_api(sandbox, "GET", "/orgs/org_acme/teams")["items"]]
    result = run(["plan", write_manifests(tmp_path / "m", MANIFEST)], sandbox)
    assert result.exit_code == 1
    assert (
        "GET /orgs/org_acme/teams failed: the answer does not fit the API: "
        f"items[{ids.index('t_odd')}].title {problem}."
    ) in result.stderr
