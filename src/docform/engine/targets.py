"""Narrowing a plan with ``--target`` and ``--exclude`` without breaking its dependencies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docform.engine.plan import Change, Plan


def matches(address: str, pattern: str) -> bool:
    """``site.docs`` matches itself and everything inside it (``site.docs.section.start``)."""
    return address == pattern or address.startswith(pattern + ".")


def narrow_plan(plan: Plan, targets: Sequence[str], excludes: Sequence[str]) -> Plan:
    """Keep the targeted changes and what they depend on; drop the excluded ones and what
    depends on them (it could not run without them)."""
    if not targets and not excludes:
        return plan
    by_key = {c.key: c for c in plan.changes}
    keep = set(by_key)
    if targets:
        keep = _with_dependencies(
            [c for c in plan.changes if any(matches(c.address, t) for t in targets)], by_key
        )
    dropped = {c.key for c in plan.changes if any(matches(c.address, e) for e in excludes)}
    dropped = _with_dependents(dropped, plan.changes)
    # Everything else (rail violations, live counts, fingerprints) stays: the narrowed plan is
    # still checked against the whole organization as read.
    kept = [c for c in plan.changes if c.key in keep and c.key not in dropped]
    return replace(plan, changes=kept)


def _with_dependencies(selected: list[Change], by_key: dict[str, Change]) -> set[str]:
    keep: set[str] = set()
    stack = [c.key for c in selected]
    while stack:
        key = stack.pop()
        if key in keep or key not in by_key:
            continue
        keep.add(key)
        stack.extend(by_key[key].depends_on)
    return keep


def _with_dependents(dropped: set[str], changes: Sequence[Change]) -> set[str]:
    grown = set(dropped)
    changed = True
    while changed:
        changed = False
        for change in changes:
            if change.key not in grown and grown.intersection(change.depends_on):
                grown.add(change.key)
                changed = True
    return grown
