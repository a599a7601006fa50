"""Scale: 10,000 members and 5,000 spaces load and validate (timings live in benchmarks/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docform.manifest import ManifestError, load_manifest_set
from docform.manifest.problems import MAX_LISTED_PROBLEMS
from docform.manifest.sources import MAX_SET_BYTES


def write_large_manifest(directory: Path) -> None:
    people = ["organization: {id: org_acme}", "members:"]
    people += [f"  user{i}@acme.test: {{role: read, sso: true}}" for i in range(10_000)]
    people += ["teams:"]
    for team in range(200):
        emails = ", ".join(f"user{team * 50 + j}@acme.test: member" for j in range(50))
        people += [f"  team{team}:", f"    title: Team {team}", f"    members: {{{emails}}}"]
    content = ["collections:", "  root: {title: Root}"]
    content += [f"  col{i}: {{title: Collection {i}, parent: root}}" for i in range(100)]
    content += ["spaces:"]
    content += [
        f'  space{i}: {{title: Space {i}, emoji: "📘", collection: col{i % 100}, language: en}}'
        for i in range(5_000)
    ]
    (directory / "people.yaml").write_text("\n".join(people) + "\n", encoding="utf-8")
    (directory / "content.yaml").write_text("\n".join(content) + "\n", encoding="utf-8")


def test_large_organization_loads_completely(tmp_path: Path) -> None:
    write_large_manifest(tmp_path)
    manifests = load_manifest_set(tmp_path, env={})
    assert manifests.summary() == (
        "1 organization, 10000 members, 200 teams, 101 collections, 5000 spaces in 2 files"
    )


def test_a_set_over_the_total_size_limit_is_refused_before_its_rest_is_read(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.yaml").write_text("organization: {id: org_acme}\n", encoding="utf-8")
    # Each file is under its own limit; together they are over the set's.
    filler = "# " + "x" * 1021 + "\n"
    each = (MAX_SET_BYTES // 4) // len(filler)
    for name in "bcdef":
        (tmp_path / f"{name}.yaml").write_text(filler * each, encoding="utf-8")

    with pytest.raises(ManifestError) as caught:
        load_manifest_set(tmp_path, env={})

    [problem] = caught.value.problems
    assert str(problem).startswith("e.yaml:1:1: the manifest files up to this one hold ")
    assert "over the 16 MB docform reads in one manifest set; this file and those after" in str(
        problem
    )


def test_a_set_with_many_problems_lists_the_first_ones_and_counts_the_rest(tmp_path: Path) -> None:
    lines = ["organization: {id: org_acme}", "teams:"]
    lines += [f"  t{i}: {{title: Same}}" for i in range(MAX_LISTED_PROBLEMS + 500)]
    (tmp_path / "a.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")

    with pytest.raises(ManifestError) as caught:
        load_manifest_set(tmp_path, env={})

    problems = [str(p) for p in caught.value.problems]
    assert len(problems) == MAX_LISTED_PROBLEMS + 1
    assert problems[-1].endswith(
        "more problems are not listed (docform lists the first 1000); fix these and validate again"
    )
    assert str(caught.value).startswith(f"{MAX_LISTED_PROBLEMS + 499} problems in the manifests")
