"""Scale: 10,000 members and 5,000 spaces load and validate (timings live in benchmarks/)."""

from __future__ import annotations

from pathlib import Path

from docform.manifest import load_manifest_set


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
