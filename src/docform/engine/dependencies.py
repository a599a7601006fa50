"""Which change waits for which: the order the plan's dependency graph is built from.

A change waits for the creates and restores of what it refers to (in its values, its calls'
placeholders, or what its entry requires), a move for the moves of the parent it goes into and
of everything above that parent, and a delete for every change that stops referring to what it
deletes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from docform.engine.capabilities import NamesByKey
from docform.engine.kind import Kind, Ref, Unresolved
from docform.engine.match import Matching, unmanaged_address, unmatched_address
from docform.engine.plan import PLACEHOLDER_IN_PATH, Change, Placeholder


def link_dependencies(changes: list[Change], matchings: Sequence[tuple[Kind, Matching]]) -> None:
    """Creates and restores before what refers to them; deletes after what stops referring."""
    provided = {c.address: c.key for c in changes if c.action in ("create", "restore")}
    requires = {
        d.address: d.requires
        for _, matching in matchings
        for d in (*matching.creates, *(p.desired for p in (*matching.pairs, *matching.restores)))
    }
    moves = {c.address: c.key for c in changes if c.action == "move"}
    containers = _desired_containers(matchings)
    keys = {c.key for c in changes}
    referrers: dict[str, list[str]] = {}
    for change in changes:
        refs = refs_in(change.after) | set(requires.get(change.address, ()))
        refs |= _placeholders(change, provided)
        if change.action != "create" and change.address in provided:
            refs.add(change.address)
        needed = {provided[r] for r in refs if r in provided and provided[r] != change.key}
        if change.action == "move":
            # Into a parent after the moves of it and of everything the manifests put above
            # it, or one of those may still be inside this object (swapping a parent and its
            # child, or its grandparent).
            above = _above(refs_in(change.after), containers)
            needed |= {moves[r] for r in above if r in moves and moves[r] != change.key}
        # A kind may name changes the plan does not hold (a sibling with nothing to reorder).
        named = {key for key in change.depends_on if key in keys}
        change.depends_on = sorted(needed | named)
        for address in refs_in(change.before):
            referrers.setdefault(address, []).append(change.key)
    _add_name_referrers(referrers, changes, matchings)
    for delete in (c for c in changes if c.action == "delete"):
        others = [k for k in referrers.get(delete.address, ()) if k != delete.key]
        delete.depends_on = sorted({*delete.depends_on, *others})


def _desired_containers(matchings: Sequence[tuple[Kind, Matching]]) -> dict[str, set[str]]:
    """Each entry's address -> what its fields whose change is a move (`Kind.rules`) name:
    the container the manifests put it in."""
    found: dict[str, set[str]] = {}
    for kind, matching in matchings:
        fields = [name for name, action in kind.rules.actions.items() if action == "move"]
        if not fields:
            continue
        for d in (*matching.creates, *(p.desired for p in (*matching.pairs, *matching.restores))):
            found[d.address] = refs_in([d.fields.get(name) for name in fields])
    return found


def _above(start: set[str], containers: Mapping[str, set[str]]) -> set[str]:
    """``start`` and every container above them, as the manifests nest them."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        address = todo.pop()
        if address not in seen:
            seen.add(address)
            todo.extend(containers.get(address, ()))
    return seen


def _add_name_referrers(
    referrers: dict[str, list[str]],
    changes: Sequence[Change],
    matchings: Sequence[tuple[Kind, Matching]],
) -> None:
    """Add the changes that name an unmatched object by its natural key (`NamesByKey`) to
    its referrers: its delete waits for them."""
    kinds = {kind.name: kind for kind, _ in matchings}
    naming: dict[tuple[str, str], list[str]] = {}
    for change in changes:
        kind = kinds[change.kind]
        if isinstance(kind, NamesByKey):
            for name in kind.named_in(change):
                naming.setdefault(name, []).append(change.key)
    if not naming:
        return
    for kind, matching in matchings:
        for obs in matching.unmatched:
            last = obs.key[-1] if obs.key else None
            keys = naming.get((kind.name, last)) if isinstance(last, str) else None
            if keys:
                referrers.setdefault(unmatched_address(kind.name, obs), []).extend(keys)


def refs_in(values: Any) -> set[str]:
    """Addresses of the objects ``values`` refer to, managed (`Ref`) or not (`Unresolved`)."""
    found: set[str] = set()
    _gather_refs(values, found)
    return found


def _gather_refs(value: Any, found: set[str]) -> None:
    """`refs_in`, into ``found``: called for every key and value of every plan, so plain text
    (the commonest value) is passed over first, and no generator is made per level."""
    if isinstance(value, str):
        return
    if isinstance(value, Ref):
        found.add(value.address)
    elif isinstance(value, Unresolved):
        found.add(unmanaged_address(value.kind, value.id))
    elif isinstance(value, list | tuple):
        for item in value:
            _gather_refs(item, found)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, Ref):
                found.add(key.address)
            _gather_refs(item, found)


def _placeholders(change: Change, created: Mapping[str, str]) -> set[str]:
    """Addresses of the created objects whose ids the calls of ``change`` need."""
    refs: set[str] = set()
    for call in change.calls:
        refs.update(m.group(1) for m in PLACEHOLDER_IN_PATH.finditer(call.path))
        refs.update(v.ref for v in _walk(call.body) if isinstance(v, Placeholder))
    found = set()
    for ref in refs:
        # The longest created address the reference starts with: it may hold a path
        # (site.docs.section.start.siteSpaces.0.id).
        parts = ref.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            if ".".join(parts[:cut]) in created:
                found.add(".".join(parts[:cut]))
                break
    return found


def _walk(value: Any) -> Iterable[Any]:
    yield value
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _walk(v)
        for k in value:
            if isinstance(k, Ref):
                yield k
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v)
