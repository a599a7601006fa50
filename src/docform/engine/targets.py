"""Narrowing a plan with ``--target`` and ``--exclude`` without breaking its dependencies."""

from __future__ import annotations

from collections.abc import Collection, Sequence
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
    dropped |= dependents_of(dropped, plan.changes).keys()
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


def dependents_of(dropped: Collection[str], changes: Sequence[Change]) -> dict[str, str]:
    """The changes that cannot run without the ``dropped`` ones (directly or through another
    such change), each mapped to the first key in its ``depends_on`` that is gone."""
    needs: dict[str, str] = {}
    grown = True
    while grown:
        grown = False
        for change in changes:
            if change.key in dropped or change.key in needs:
                continue
            gone = next((k for k in change.depends_on if k in dropped or k in needs), None)
            if gone is not None:
                needs[change.key] = gone
                grown = True
    return needs
