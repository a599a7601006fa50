"""The benchmark's ideal (benchmarks/ideal.py), its generated organization (org_shape.py,
org_changes.py) and its checks (report.py): the numbers ``benchmarks/run.py --check`` holds
docform to."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))

from ideal import apply_graph, ideal, pages, read_graph
from org_changes import MIX, change_org
from org_shape import FULL, QUICK, Shape, build_org
from report import TARGETS, Checks, check_command


def test_a_list_page_holds_1000_items_and_an_empty_list_is_one_request() -> None:
    assert [pages(0), pages(1), pages(1000), pages(1001), pages(10_000)] == [1, 1, 1, 2, 10]


def test_reading_the_full_organization_takes_1688_requests() -> None:
    team_sizes = [20] * FULL.teams
    graph = read_graph(FULL, team_sizes)
    # org 1, members 10 pages, teams 1 + 1000 member lists, collections 1, spaces 5, sites 1,
    # section groups, sections, site spaces and redirects 1 each, the site's customization and
    # structure (its external links) 1 each, its custom hostname 1, its context connections 1,
    # its MCP servers 1, its agent channels 1, its agent settings 1, OpenAPI 1, SAML 1,
    # translations 1, custom fonts 1, the glossary 1, installations 1, the spaces and sites of
    # each of the 4 installations and what each of their integrations declares (its entry
    # writes a configuration, whose secrets it names), each of the 40 synced spaces' Git Sync,
    # and the teams' and the users' grants of each of the 300 objects that write access
    assert len(graph) == 1688


def test_one_list_and_a_list_per_item_take_one_round_plus_the_items_over_the_parallelism() -> None:
    shape = Shape(members=1, teams=980, collections=1, spaces=1, section_groups=1, sections=1,
                  site_spaces=1, redirects=1, openapi=1, saml=1, access=0, integrations=0,
                  synced_spaces=0)  # fmt: skip
    best = ideal(read_graph(shape, [5] * 980), parallelism=16)
    # 980 team member lists after the team list take 62 rounds with 12 slots to spare; the 23
    # other requests fill the first round's gaps and those.
    assert (best.requests, best.rounds) == (1003, 63)


def test_pages_that_follow_each_other_bound_the_rounds_from_below() -> None:
    shape = Shape(members=10_000, teams=1, collections=1, spaces=1, section_groups=1, sections=1,
                  site_spaces=1, redirects=1, openapi=1, saml=1, access=0, integrations=0,
                  synced_spaces=0)  # fmt: skip
    best = ideal(read_graph(shape, [5]), parallelism=16)
    # Ten member pages, one after another, then the site's custom hostname, read once the
    # organization is matched (which needs its members).
    assert best.rounds == 11
    assert best.seconds(50) == 0.55


def test_an_apply_ideal_counts_every_call_and_runs_each_change_in_order() -> None:
    _, expected = change_org(_org_with_space_ids(QUICK), 200)
    best = ideal(apply_graph(expected), parallelism=8)
    creates_of_teams = sum(1 for e in expected if e.calls == 2)
    assert best.requests == 200 + creates_of_teams
    assert best.rounds == -(-best.requests // 8)


def test_the_changed_organization_differs_by_the_mix_asked_for() -> None:
    _, expected = change_org(_org_with_space_ids(QUICK), 200)
    actions = [e.action for e in expected]
    assert len(expected) == len({(e.address, e.action) for e in expected}) == 200
    for action, share in MIX.items():
        if action != "create":
            assert actions.count(action) == int(200 * share)


def test_the_organization_has_the_shape_asked_for() -> None:
    org = build_org(QUICK)
    assert len(org.members) == QUICK.members == 1000
    assert len(org.teams) == QUICK.teams
    assert len(org.spaces) == QUICK.spaces
    assert len(org.site["sections"]) == QUICK.sections
    site_spaces = sum(len(s["spaces"]) for s in org.site["sections"].values())
    assert site_spaces == QUICK.site_spaces
    assert len(org.site["redirects"]) == QUICK.redirects == 40
    depth = {name: _depth(org.collections, name) for name in org.collections}
    assert max(depth.values()) <= 4
    entries = [*org.spaces.values(), *org.collections.values()]
    assert sum(1 for entry in entries if "access" in entry) == QUICK.access == 30


def _org_with_space_ids(shape: Shape):
    org = build_org(shape)
    for i, space in enumerate(org.spaces.values()):
        space["id"] = f"sp{i}"
    return org


def _depth(collections: dict, name: str) -> int:
    parent = collections[name].get("parent")
    return 1 if parent is None else 1 + _depth(collections, parent)


def test_the_command_s_peak_memory_is_checked_against_the_target() -> None:
    def checked(exit_code: int, peak_mb: float) -> list[str]:
        checks = Checks()
        process = {"wall_s": 1.0, "cpu_s": 1.0, "peak_mb": peak_mb}
        check_command(checks, {"exit": exit_code, "said": ["Apply complete."], "process": process})
        return checks.failures

    limit = TARGETS["peak_mb"]
    assert checked(0, limit - 1) == []
    assert checked(0, limit + 1) == [
        f"docform apply peaked at {limit + 1:.0f} MB, over the target of {limit:g} MB"
    ]
    assert checked(1, limit - 1) == ["docform apply exited 1: Apply complete."]
