"""Property: any site structure, and any change of it, settles in exactly one apply.

Hypothesis draws a structure (section groups at the root or nested in another group, sections
at the root or in a group, the site spaces of each section) and a target: every container in a
new order, sections moved from one group to another, from the root into a group or out to the
root, groups nested anew (a parent and its child swapped included), new groups, new sections
and new site spaces among the existing siblings. docform applies the structure to a fresh
sandbox, then the target, each once through the CLI: both must exit 0, leave a plan with no
changes, and hold the manifest's order when read back through the API.

With faults (429s that reorder requests, 5xx, dropped connections, lost answers) the apply of
the target may fail, but it never claims success without having converged, and one apply once
the faults stop always converges.

The default run draws a few examples per test (under ~30 s on a loaded machine);
``pytest --slow`` (or ``DOCFORM_SLOW=1``) draws many more.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples, slow_mode
from planning import live_api, run, seeded_sandbox, write_manifests

DOCS = "/orgs/org_acme/sites/site_docs"
SPACES = [f"p{i}" for i in range(6)]
FAULTS = "429:0.12,500:0.03,drop:0.03,lost:0.04"


@dataclass
class Structure:
    """A site's structure by manifest names: groups (in order) with their sections (in
    order), the sections at the root (in order), each section's spaces (in order), and the
    group each group sits in (None: the root)."""

    groups: dict[str, list[str]] = field(default_factory=dict)
    root: list[str] = field(default_factory=list)
    spaces: dict[str, list[str]] = field(default_factory=dict)
    parents: dict[str, str | None] = field(default_factory=dict)

    def containers(self) -> list[list[str]]:
        return [self.root, *self.groups.values()]


def drawn_structure(rng: random.Random) -> Structure:
    structure = Structure()
    for g in range(rng.randint(0, 3)):
        structure.groups[f"g{g}"] = []
    structure.parents = nested_at_random(rng, list(structure.groups))
    for s in range(rng.randint(1, 4)):
        add_section(rng, structure, f"s{s}")
    return structure


def add_section(rng: random.Random, structure: Structure, name: str) -> None:
    """``name`` with 1 to 3 spaces, at a random place of a random container."""
    container = rng.choice(structure.containers())
    container.insert(rng.randint(0, len(container)), name)
    structure.spaces[name] = rng.sample(SPACES, rng.randint(1, 3))


def nested_at_random(rng: random.Random, groups: list[str]) -> dict[str, str | None]:
    """Each group at the root or inside a group before it in a random order (so no loop)."""
    order = rng.sample(groups, len(groups))
    return {
        g: rng.choice([None, *order[:i]]) if rng.random() < 0.6 else None
        for i, g in enumerate(order)
    }


def drawn_target(rng: random.Random, before: Structure) -> Structure:
    after = Structure(
        {g: list(s) for g, s in before.groups.items()},
        list(before.root),
        {s: list(p) for s, p in before.spaces.items()},
        dict(before.parents),
    )
    if rng.random() < 0.4:
        after.groups[f"g{len(after.groups)}"] = []
        after.parents[f"g{len(after.groups) - 1}"] = None
    if rng.random() < 0.5:
        after.parents = nested_at_random(rng, list(after.groups))
    grouped = [group for group in after.groups.values() if group]
    if grouped and rng.random() < 0.3:
        group = rng.choice(grouped)
        after.root.append(group.pop(rng.randrange(len(group))))
    for group_sections in [*after.groups.values()]:
        if group_sections and len(after.groups) > 1 and rng.random() < 0.4:
            moved = group_sections.pop(rng.randrange(len(group_sections)))
            rng.choice([s for s in after.groups.values() if s is not group_sections]).append(moved)
    if after.root and after.groups and rng.random() < 0.3:
        moved = after.root.pop(rng.randrange(len(after.root)))
        rng.choice(list(after.groups.values())).append(moved)
    for container in after.containers():
        rng.shuffle(container)
    for s in range(rng.randint(0, 2)):
        add_section(rng, after, f"n{s}")
    for shown in after.spaces.values():
        rng.shuffle(shown)
        unused = [p for p in SPACES if p not in shown]
        if unused and rng.random() < 0.3:
            shown.insert(rng.randint(0, len(shown)), rng.choice(unused))
    return after


def manifests_of(structure: Structure) -> str:
    sections = [*structure.root, *(s for group in structure.groups.values() for s in group)]
    doc: dict[str, Any] = {
        "organization": {"id": "org_acme"},
        "spaces": {p: {"title": f"Space {p}"} for p in SPACES},
        "sites": {"docs": {"id": "site_docs"}},
    }
    site = doc["sites"]["docs"]
    if structure.groups:
        site["sectionGroups"] = {
            g: {"title": f"Group {g}", "sections": list(s)} for g, s in structure.groups.items()
        }
        for g, parent in structure.parents.items():
            if parent is not None:
                site["sectionGroups"][g]["group"] = parent
    site["sections"] = {
        name: {
            "title": f"Section {name}",
            "path": name,
            "spaces": {p: {"space": p, "path": p} for p in structure.spaces[name]},
        }
        for name in sections
    }
    return yaml.safe_dump(doc, sort_keys=False)


def live_structure(sandbox: Path) -> Structure:
    """The structure of site_docs as the API answers it (names are titles and paths)."""
    live = Structure()
    groups = live_api(sandbox, "GET", f"{DOCS}/section-groups")["items"]
    names = {group["id"]: group["title"].removeprefix("Group ") for group in groups}
    for group in groups:
        live.groups[names[group["id"]]] = [s["path"] for s in group["sections"]]
        live.parents[names[group["id"]]] = names.get(group.get("sectionGroup", ""))
    for section in live_api(sandbox, "GET", f"{DOCS}/sections")["items"]:
        if "sectionGroup" not in section:
            live.root.append(section["path"])
        live.spaces[section["path"]] = [s["path"] for s in section["siteSpaces"]]
    return live


def apply_and_check(directory: Path, sandbox: Path, structure: Structure, note: str) -> None:
    """One apply settles ``structure``: exit 0, no change left, the order read back."""
    result = run(["apply", directory, "--yes"], sandbox)
    assert result.exit_code == 0, f"{note}: apply failed\n{result.output}"
    settled(directory, sandbox, structure, note, result.output)


def applied_then_written(tmp: Path, before: Structure, after: Structure) -> tuple[Path, Path]:
    """A sandbox under ``tmp`` holding ``before`` (applied and checked), and the manifests
    directory, holding ``after`` now."""
    sandbox, directory = seeded_sandbox(tmp), tmp / "manifests"
    write_manifests(directory, manifests_of(before))
    apply_and_check(directory, sandbox, before, f"structure {before}")
    write_manifests(directory, manifests_of(after))
    return sandbox, directory


def settled(directory: Path, sandbox: Path, structure: Structure, note: str, log: str) -> None:
    plan = run(["plan", directory, "--detailed-exitcode"], sandbox)
    assert plan.exit_code == 0, f"{note}: not settled after one apply\n{log}\n{plan.output}"
    assert live_structure(sandbox) == structure, note


def examples(pytestconfig: pytest.Config, default: int, slow: int) -> Callable[[Any], Any]:
    return settings(
        max_examples=slow if slow_mode(pytestconfig) else fuzz_examples(default),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=not slow_mode(pytestconfig),
    )


def test_any_structure_and_any_target_settle_in_one_apply_each(
    pytestconfig: pytest.Config,
) -> None:
    @examples(pytestconfig, default=8, slow=150)
    @given(st.randoms(use_true_random=False))
    def check(rng: random.Random) -> None:
        before = drawn_structure(rng)
        after = drawn_target(rng, before)
        with tempfile.TemporaryDirectory() as tmp:
            sandbox, directory = applied_then_written(Path(tmp), before, after)
            apply_and_check(directory, sandbox, after, f"target {after} from {before}")

    check()


def test_with_faults_the_first_apply_after_them_settles(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch, instant_backoff: list[float]
) -> None:
    @examples(pytestconfig, default=6, slow=100)
    @given(st.randoms(use_true_random=False), st.integers(0, 2**16))
    def check(rng: random.Random, fault_seed: int) -> None:
        before = drawn_structure(rng)
        after = drawn_target(rng, before)
        with tempfile.TemporaryDirectory() as tmp:
            sandbox, directory = applied_then_written(Path(tmp), before, after)
            note = f"target {after} from {before}, fault seed {fault_seed}"
            with monkeypatch.context() as env:
                env.setenv("DOCFORM_SANDBOX_FAULTS", FAULTS)
                env.setenv("DOCFORM_SANDBOX_FAULT_SEED", str(fault_seed))
                env.setenv("DOCFORM_SANDBOX_RETRY_AFTER", "0")
                faulty = run(["apply", directory, "--yes"], sandbox)
            assert faulty.exit_code in (0, 1), f"{note}\n{faulty.output}"
            assert "Traceback" not in faulty.output, note
            if faulty.exit_code == 0:
                settled(directory, sandbox, after, note, faulty.output)
            else:
                apply_and_check(directory, sandbox, after, f"{note}, after\n{faulty.output}")

    check()
