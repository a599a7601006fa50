"""Narrowing a plan with ``--target`` and ``--exclude`` without breaking its dependencies.

Targets cannot lie: a pattern that matches no address the manifests or the live organization
know is an error naming the closest ones (a typo must not read "No changes"), and a narrowed
plan records what was asked and how many changes it left out (`Targeting`), which every
rendering shows.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any

from docform.engine.objects import address_head, respelled
from docform.engine.plan import Change, Plan, Violation
from docform.errors import DocformError

GLOB_CHARACTERS = frozenset("*?[")


class TargetError(DocformError):
    """A ``--target`` or ``--exclude`` pattern that matches nothing."""


@dataclass(frozen=True)
class Targeting:
    """What ``--target`` and ``--exclude`` asked for, and how many changes they left out."""

    targets: tuple[str, ...]
    excludes: tuple[str, ...]
    left_out: int

    def to_json(self) -> dict[str, Any]:
        return {
            "targets": list(self.targets),
            "excludes": list(self.excludes),
            "left_out": self.left_out,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Targeting:
        return cls(tuple(doc["targets"]), tuple(doc["excludes"]), int(doc["left_out"]))

    def describe(self) -> str:
        """``Targeting is in effect (--target team.core): 3 other changes are left out.``"""
        asked = " ".join(
            [*(f"--target {t}" for t in self.targets), *(f"--exclude {e}" for e in self.excludes)]
        )
        count = f"{self.left_out} other change{'s are' if self.left_out != 1 else ' is'}"
        return f"Targeting is in effect ({asked}): {count} left out of this plan."


def matches(address: str, pattern: str) -> bool:
    """``site.docs`` matches itself and everything inside it (``site.docs.section.start``);
    ``*`` and ``?`` are wildcards (``team.*``, ``member.*@acme.test``)."""
    pattern = respelled(pattern)
    if GLOB_CHARACTERS & set(pattern):
        return fnmatchcase(address, pattern) or fnmatchcase(address, pattern + ".*")
    return address == pattern or address.startswith(pattern + ".")


def _change_matches(change: Change, pattern: str) -> bool:
    named = named_address(change)
    return matches(change.address, pattern) or (named is not None and matches(named, pattern))


def named_address(change: Change) -> str | None:
    """An unmanaged object pruned as ``member.~u_bob`` is ``member.bob@acme.test`` to a person
    (as in ``ignore:``)."""
    head = address_head(change.kind)
    unmanaged = change.address.startswith(f"{head}.~")
    return f"{head}.{change.human_key}" if unmanaged and change.human_key else None


def narrow_plan(
    plan: Plan, targets: Sequence[str], excludes: Sequence[str], *, check: bool = True
) -> Plan:
    """Keep the targeted changes and what they depend on; drop the excluded ones and what
    depends on them (it could not run without them). ``check``: first refuse a pattern that
    matches no address of ``plan`` (see `check_patterns` for several plans)."""
    if not targets and not excludes:
        return plan
    if check:
        check_patterns([plan], targets, excludes)
    by_key = {c.key: c for c in plan.changes}
    keep = set(by_key)
    if targets:
        keep = _with_dependencies(
            [c for c in plan.changes if any(_change_matches(c, t) for t in targets)], by_key
        )
    dropped = {c.key for c in plan.changes if any(_change_matches(c, e) for e in excludes)}
    dropped |= dependents_of(dropped, plan.changes).keys()
    # Live counts and fingerprints stay: the narrowed plan is still checked against the whole
    # organization as read; a rail stays broken only while the plan holds what breaks it.
    kept = [c for c in plan.changes if c.key in keep and c.key not in dropped]
    targeting = Targeting(tuple(targets), tuple(excludes), len(plan.changes) - len(kept))
    violations = judged_within(plan.violations, kept)
    narrowed = replace(plan, changes=kept, targeting=targeting, violations=violations)
    if plan.audience_of is not None:
        # Only the audience the kept changes make, and only their doors to check.
        narrowed.audience, narrowed.doors = plan.audience_of(kept)
    return narrowed


def judged_within(violations: Sequence[Violation], changes: Sequence[Change]) -> list[Violation]:
    """The violations that ``changes`` (a narrowed plan's) still break: those whose every
    breaking change is among them."""
    keys = {c.key for c in changes}
    return [v for v in violations if all(k in keys for k in v.changes)]


def check_patterns(plans: Iterable[Plan], targets: Sequence[str], excludes: Sequence[str]) -> None:
    """Raise `TargetError` for the first pattern that matches no address of any of ``plans``
    (their entries, their live objects, their changes)."""
    known: set[str] = set()
    for plan in plans:
        known |= plan.addresses | {c.address for c in plan.changes}
        known |= {named for c in plan.changes if (named := named_address(c))}
    for option, pattern in [
        *(("--target", t) for t in targets),
        *(("--exclude", e) for e in excludes),
    ]:
        if not any(matches(address, pattern) for address in known):
            raise TargetError(_no_match(option, pattern, known))


def _no_match(option: str, pattern: str, known: Collection[str]) -> str:
    closest = same_spelled(pattern, known) or difflib.get_close_matches(
        pattern, sorted(known), n=3, cutoff=0.6
    )
    hint = f"closest: {', '.join(closest)}" if closest else "no address is close to it"
    return (
        f"{option} {pattern} matches no address in the manifests or the live organization "
        f"({hint}); check the spelling, or list the addresses with 'docform state list DIR'"
    )


def same_spelled(pattern: str, known: Collection[str]) -> list[str]:
    """The addresses (or, for a wildcard pattern, the pattern respelled) that ``pattern``
    names once case, ``_``, ``-`` and a plural ``s`` are set aside in each part: a manifest
    key (``linkInvites.*``, ``gitSync.docs``) written for an address (``link_invite.*``)."""
    folded = _folded(pattern)
    if GLOB_CHARACTERS & set(pattern):
        heads = {_folded(a.split(".")[0]): a.split(".")[0] for a in known}
        head, _, rest = pattern.partition(".")
        respelled = f"{heads[_folded(head)]}.{rest}" if _folded(head) in heads and rest else ""
        return [respelled] if respelled and any(matches(a, respelled) for a in known) else []
    return sorted(a for a in known if _folded(a) == folded)[:3]


def _folded(address: str) -> str:
    parts = (p.lower().replace("_", "").replace("-", "") for p in address.split("."))
    return ".".join(p[:-1] if p.endswith("s") else p for p in parts)


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
