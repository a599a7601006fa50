"""End to end: a site's top level in the order ``navigation:`` writes (sections outside groups,
section groups and external links, interleaved), planned, applied, drifted and checked at load
through the CLI against a seeded in-process sandbox (site_docs). Property: from any top-level
order, any other converges in one apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from live_objects import top_level
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    plan_request_count,
    run,
    seeded_sandbox,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"
TITLES = {
    "guides": "Guides",
    "reference": "Reference",
    "platform": "Platform",
    "status": "Status",
    "blog": "Blog",
    "api": "Api",
}


def manifests(
    directory: Path,
    navigation: list[str] | None,
    *,
    grouped: list[str] | None = None,
    links: dict[str, Any] | None = None,
) -> Path:
    """site_docs with sections guides, reference and api, group platform holding ``grouped``
    (``["api"]`` unless given), links status and blog at the top level (unless ``links``)."""
    site: dict[str, Any] = {
        "id": "site_docs",
        "navigation": navigation,
        "sectionGroups": {
            "platform": {"title": "Platform", "sections": ["api"] if grouped is None else grouped}
        },
        "sections": {
            name: {
                "title": TITLES[name],
                "path": name,
                "spaces": {"main": {"space": "handbook", "path": "handbook"}},
            }
            for name in ("guides", "reference", "api")
        },
        "externalLinks": links
        if links is not None
        else {
            "status": {"title": "Status", "url": "https://status.acme.test"},
            "blog": {"title": "Blog", "url": "https://blog.acme.test"},
        },
    }
    if navigation is None:
        del site["navigation"]
    document = {
        "organization": {"id": "org_acme"},
        "spaces": {"handbook": {"title": "Handbook"}},
        "sites": {"docs": site},
    }
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


def titles(names: list[str]) -> list[str]:
    return [TITLES[name] for name in names]


def sort_by_hand(sandbox: Path, title: str, before_title: str) -> None:
    items = {i["title"]: i for i in live_api(sandbox, "GET", f"{DOCS}/structure")["structure"]}
    types = {"site-section": "site-section", "site-section-group": "site-section-group"}
    pointer = {i: {"type": types.get(items[i]["object"], items[i]["object"]), "id": items[i]["id"]}
               for i in (title, before_title)}  # fmt: skip
    sort = {"item": pointer[title], "position": {"before": pointer[before_title]}}
    live_api(sandbox, "PATCH", f"{DOCS}/structure/sort", sort)


ORDER = ["guides", "platform", "status", "reference", "blog"]


def test_a_group_and_links_placed_among_sections_by_the_list(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", ORDER)
    apply(directory, sandbox)
    assert top_level(sandbox) == titles(ORDER)
    assert_converged(directory, sandbox)
    moved = ["platform", "reference", "blog", "guides", "status"]
    directory = manifests(tmp_path / "n", moved)
    plan = plan_json(directory, sandbox)
    reorders = [(a, action) for a, action in actions(plan) if action == "reorder"]
    assert reorders and all(change(plan, a, "reorder")["kind"] == "navigation" for a, _ in reorders)
    for address, _ in reorders:
        [(method, path, _)] = calls(change(plan, address, "reorder"))
        assert (method, path) == ("PATCH", f"{DOCS}/structure/sort")
    apply(directory, sandbox)
    assert top_level(sandbox) == titles(moved)
    assert_converged(directory, sandbox)


def test_drift_sees_a_group_moved_among_sections_by_hand(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", ORDER)
    apply(directory, sandbox)
    sort_by_hand(sandbox, "Platform", "Guides")
    assert top_level(sandbox)[:2] == ["Platform", "Guides"]
    result = run(["drift", directory], sandbox)
    assert result.exit_code == 2, result.output
    assert "site.docs.section.guides  (live in another order)" in result.output
    apply(directory, sandbox)
    assert top_level(sandbox) == titles(ORDER)
    # Without the list, how groups, sections and links interleave is not managed.
    sort_by_hand(sandbox, "Platform", "Guides")
    assert_converged(manifests(tmp_path / "n", None), sandbox)


def test_a_grouped_section_goes_to_the_top_level_where_the_list_says(
    tmp_path: Path, sandbox: Path
) -> None:
    apply(manifests(tmp_path / "m", ORDER), sandbox)
    order = ["api", *ORDER]
    directory = manifests(tmp_path / "n", order, grouped=[])
    apply(directory, sandbox)
    assert top_level(sandbox) == titles(order)
    group = next(
        i
        for i in live_api(sandbox, "GET", f"{DOCS}/structure")["structure"]
        if i["title"] == "Platform"
    )
    assert group["children"] == []
    assert_converged(directory, sandbox)


def test_a_link_in_a_group_keeps_its_after(tmp_path: Path, sandbox: Path) -> None:
    links = {
        "status": {"title": "Status", "url": "https://status.acme.test"},
        "blog": {"title": "Blog", "url": "https://blog.acme.test", "group": "platform"},
    }
    directory = manifests(tmp_path / "m", ["status", "guides", "platform", "reference"],
                          links={**links, "blog": {**links["blog"], "after": "api"}})  # fmt: skip
    apply(directory, sandbox)
    assert top_level(sandbox) == ["Status", "Guides", "Platform", "Reference"]
    structure = live_api(sandbox, "GET", f"{DOCS}/structure")["structure"]
    assert [c["title"] for c in structure[2]["children"]] == ["Api", "Blog"]
    assert_converged(directory, sandbox)


def test_the_list_is_checked_when_the_manifests_load(tmp_path: Path, sandbox: Path) -> None:
    links = {
        "status": {"title": "Status", "url": "https://status.acme.test", "after": "guides"},
        "blog": {"title": "Blog", "url": "https://blog.acme.test"},
    }
    directory = manifests(
        tmp_path / "m", ["guides", "status", "platfrom", "api", "guides"], links=links
    )
    result = run(["validate", directory], sandbox)
    assert result.exit_code == 1
    text = result.output
    assert "unknown section, section group or external link 'platfrom'" in text
    assert "(did you mean 'platform'?)" in text
    assert "'api' is in section group 'platform'; list the group instead" in text
    assert "'guides' is listed twice" in text
    missing = "add 'reference' (section), 'platform' (section group), 'blog' (external link)"
    assert f"lists the whole top level: {missing} where it should show" in text
    assert "the site's navigation places this link; remove after" in text
    assert "main.yaml:" in text


def test_no_request_more_than_the_links_cost(tmp_path: Path, sandbox: Path) -> None:
    """The structure is read once per site whether it writes links, the list, or both."""
    apply(manifests(tmp_path / "m", ORDER), sandbox)
    with_list = plan_request_count(manifests(tmp_path / "a", ORDER), sandbox)
    without = plan_request_count(manifests(tmp_path / "b", None), sandbox)
    assert with_list == without


EXAMPLES = settings(
    max_examples=fuzz_examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@EXAMPLES
@given(
    first=st.permutations(ORDER),
    second=st.permutations(ORDER),
    created=st.booleans(),
    api_at=st.none() | st.integers(0, len(ORDER)),
)
def test_any_order_converges_from_any_other_in_one_apply(
    tmp_path_factory: pytest.TempPathFactory,
    first: list[str],
    second: list[str],
    created: bool,
    api_at: int | None,
) -> None:
    """From a site whose items stand in ``first`` (or none yet, when all are ``created`` by
    the apply), ``second``, with the grouped section ``api`` taken to the top level at
    ``api_at`` when it is given, is the site's top level after one apply."""
    root = tmp_path_factory.mktemp("navigation")
    sandbox = seeded_sandbox(root)
    if not created:
        apply(manifests(root / "a", first), sandbox)
        assert top_level(sandbox) == titles(first)
    wanted = list(second)
    if api_at is not None:
        wanted.insert(api_at, "api")
    directory = manifests(root / "b", wanted, grouped=[] if api_at is not None else None)
    apply(directory, sandbox)
    assert top_level(sandbox) == titles(wanted)
    assert_converged(directory, sandbox)
