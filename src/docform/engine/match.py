"""Matching manifest entries to live objects, without a state file and without guessing.

An entry matches, in order: the live object with its pinned ``id``; the one with the id the
identity file (docform.lock) records for its address, when that object is still live; the one
live object with its natural key; the one live object with a key listed in ``formerly``; and
last, the one live object whose key differs only in its container (a moved space), when it is
the only candidate and the entry the only one that wants it. Two live objects for one key is
an error that names their ids and which one to keep, so the user can pin it. Kinds nested in
themselves (collections) are matched level by level, parents first, because a child's key holds
its parent's address.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from docform.engine.capabilities import LimitsMoves, Nests, Restores
from docform.engine.duplicates import ambiguous_match, left_twins, settled_note, twin_notes
from docform.engine.kind import AddressIndex, Kind
from docform.engine.objects import Desired, Observed, address_head
from docform.engine.objects import Matching as Matching
from docform.engine.objects import Pair as Pair
from docform.errors import DocformError


class MatchError(DocformError):
    """Entries that cannot be matched to live objects without guessing."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def unmanaged_address(kind: str, live_id: str) -> str:
    return f"{address_head(kind)}.~{live_id}"


def unmatched_address(kind: str, obs: Observed) -> str:
    """Where the plan names a live object no entry matches: ``KIND.~ID``, unless its kind
    names it better (`Observed.address`)."""
    return obs.address or unmanaged_address(kind, obs.id)


def match_kind(
    kind: Kind,
    desired: Sequence[Desired],
    raws: Sequence[Mapping[str, Any]],
    index: AddressIndex,
    problems: list[str],
    *,
    finishing: bool = False,
) -> Matching:
    """Match one kind; problems are appended (all of them, not just the first).

    ``finishing`` also matches what an interrupted create left (`Desired.unfinished_keys`):
    only while an apply looks for the object of a create whose answer was lost, since in a
    plain plan such a match would be a guess.
    """
    result = Matching(desired=list(desired))
    restores = kind if isinstance(kind, Restores) else None
    live = [r for r in raws if not (restores and restores.restorable(r))]
    deleted = {r["id"]: r for r in raws if restores and restores.restorable(r)}
    claimed = _match_pinned(kind, desired, live, deleted, index, result)
    by_id = {p.desired.address for p in (*result.pairs, *result.restores)}
    waiting = [d for d in desired if d.address not in by_id]
    levels = _levels(kind, live)
    for depth, level in enumerate(levels):
        observed = [o for o in (kind.observe(raw, index) for raw in level) if o is not None]
        for obs in observed:
            if obs.id in claimed:
                claimed[obs.id].observed = obs
        free = [o for o in observed if o.id not in claimed]
        waiting = _match_keys(kind, waiting, free, claimed, index, result, problems, finishing)
        if waiting and kind.container_key_parts:
            deeper = _leaf_counts(kind, levels[depth + 1 :], index)
            waiting = _match_moves(kind, waiting, free, deeper, claimed, index, result)
        for obs in free:
            if obs.id not in claimed:
                index.record(kind.name, obs.id, unmatched_address(kind.name, obs))
                result.unmatched.append(obs)
    result.creates.extend(waiting)
    for d in waiting:
        index.record_created(d.address, kind.created_id)
    result.notes += twin_notes(kind, result)
    return result


def _match_pinned(
    kind: Kind,
    desired: Sequence[Desired],
    live: Sequence[Mapping[str, Any]],
    deleted: Mapping[str, Mapping[str, Any]],
    index: AddressIndex,
    result: Matching,
) -> dict[str, Pair]:
    """Entries with an id: pinned inline, else (or when the pinned one is gone) recorded in the
    identity file. An id that no live object has any more (deleted by hand), or a recorded one
    that another entry pins inline, is set aside with a note naming it: the entry is then
    matched like an entry without an id, and created anew when nothing matches (drift, never
    an error)."""
    by_id = {r["id"]: r for r in live}
    claimed: dict[str, Pair] = {}
    pinned_inline = {d.pinned_id: d for d in desired if d.pinned_id is not None}
    known = {**by_id, **deleted}
    for d in desired:
        for live_id, reason in _ids_of(kind, d):
            conflict = reason == "lock" and _lock_conflict(
                kind, live_id, pinned_inline, claimed, known
            )
            if conflict:
                result.notes.append(
                    f"{d.address}: docform.lock records {kind.name} {live_id}, but {conflict}; "
                    "the entry is matched by its natural key or `formerly` instead"
                )
            elif _claim_id(kind, d, live_id, reason, by_id, deleted, index, result, claimed):
                break
            else:
                result.notes.append(_lost_pin(kind, d, live_id))
    return claimed


def _ids_of(kind: Kind, d: Desired) -> list[tuple[str, str]]:
    """The ids that may tie ``d`` to its live object, in the order they are tried: its pinned
    ``id``, then what docform.lock records (unless the kind keeps something else there)."""
    ids = [(d.pinned_id, "id")] if d.pinned_id else []
    if d.locked_id and d.locked_id != d.pinned_id and kind.lock_field is None:
        ids.append((d.locked_id, "lock"))
    return ids


def _lost_pin(kind: Kind, d: Desired, live_id: str) -> str:
    return (
        f"{d.location}: {d.address}: the pinned id '{live_id}' matches no live {kind.name} "
        f"(deleted outside docform, or a wrong id); the entry is matched by its natural key "
        "or `formerly` instead, and created anew if none matches. Remove or correct `id:` "
        "(docform.lock records the object apply creates)"
    )


def _claim_id(
    kind: Kind,
    d: Desired,
    live_id: str,
    reason: str,
    by_id: Mapping[str, Mapping[str, Any]],
    deleted: Mapping[str, Mapping[str, Any]],
    index: AddressIndex,
    result: Matching,
    claimed: dict[str, Pair],
) -> bool:
    """Pair ``d`` with the live (or restorable) object ``live_id``; whether it could."""
    if live_id in by_id:
        # Observed for real once its level is reached; the index needs the address now.
        pair = Pair(d, _placeholder_observed(by_id[live_id]), reason)
        claimed[live_id] = pair
        result.pairs.append(pair)
    elif live_id in deleted and (obs := kind.observe(deleted[live_id], index)) is not None:
        result.restores.append(Pair(d, obs, reason))
    else:
        return False
    index.record(kind.name, live_id, d.address)
    return True


def _lock_conflict(
    kind: Kind,
    live_id: str,
    pinned_inline: Mapping[str, Desired],
    claimed: Mapping[str, Pair],
    known: Mapping[str, Any],
) -> str | None:
    """Why the id the identity file records (``live_id``) cannot be used, or None if it can."""
    owner = pinned_inline.get(live_id)
    if owner is not None:
        return f"{owner.address} pins it with `id:` ({owner.location}), and that pin wins"
    if live_id in claimed:
        return f"it is recorded for {claimed[live_id].desired.address} too"
    if live_id not in known:
        return f"no live {kind.name} has that id any more"
    return None


def _match_keys(
    kind: Kind,
    waiting: list[Desired],
    free: Sequence[Observed],
    claimed: dict[str, Pair],
    index: AddressIndex,
    result: Matching,
    problems: list[str],
    finishing: bool,
) -> list[Desired]:
    """Match by natural key, then by ``formerly``; returns the entries still unmatched.

    A natural key that another entry lists in its ``formerly`` is that entry's to claim first
    (a path handed over: ``api`` takes ``path: sdks`` while ``sdks``, ``formerly: [sdks]``,
    moves on), and is taken by its own entry only if nobody claimed it."""
    by_key: dict[tuple[Any, ...], list[Observed]] = defaultdict(list)
    for obs in free:
        for key in (obs.key, *obs.other_keys):
            by_key[key].append(obs)
    former_of = {key: d.address for d in waiting for key in d.formerly}
    yielding = {d.address for d in waiting if former_of.get(d.key, d.address) != d.address}
    ordered = [d for d in waiting if d.address not in yielding]
    ordered += [d for d in waiting if d.address in yielding]
    still: list[Desired] = []
    for d in ordered:
        pair = _claim_settling_twins(kind, d, by_key, claimed, result)
        pair = pair or _claim(kind, d, [d.key], by_key, claimed, problems, "key")
        if pair is None and d.formerly:
            pair = _claim(kind, d, d.formerly, by_key, claimed, problems, "formerly")
        if pair is None and finishing and d.unfinished_keys:
            pair = _claim(kind, d, d.unfinished_keys, by_key, claimed, problems, "unfinished")
        if pair is None:
            still.append(d)
            continue
        result.pairs.append(pair)
        index.record(kind.name, pair.observed.id, d.address)
    return still


def _match_moves(
    kind: Kind,
    waiting: list[Desired],
    free: Sequence[Observed],
    deeper: Mapping[tuple[Any, ...], int],
    claimed: dict[str, Pair],
    index: AddressIndex,
    result: Matching,
) -> list[Desired]:
    """Pair an entry with the live object whose key differs only in its container, when that
    object is the only one left with the entry's leaf key (deeper levels included) and the
    entry is the only one that wants it; returns the entries still unmatched."""
    wanted = Counter(_leaf(kind, d.key) for d in waiting)
    fits: dict[tuple[Any, ...], list[Observed]] = defaultdict(list)
    for obs in free:
        if obs.id not in claimed:
            fits[_leaf(kind, obs.key)].append(obs)
    still: list[Desired] = []
    for d in waiting:
        leaf = _leaf(kind, d.key)
        candidates = fits.get(leaf, [])
        unique = wanted[leaf] == 1 and len(candidates) == 1 and not deeper.get(leaf)
        if not unique or (isinstance(kind, LimitsMoves) and not kind.may_move(d, index)):
            still.append(d)
            continue
        pair = Pair(d, candidates[0], "moved")
        claimed[pair.observed.id] = pair
        result.pairs.append(pair)
        index.record(kind.name, pair.observed.id, d.address)
    return still


def _leaf(kind: Kind, key: tuple[Any, ...]) -> tuple[Any, ...]:
    """The key without its container parts: what a move leaves unchanged."""
    return tuple(part for i, part in enumerate(key) if i not in kind.container_key_parts)


def _leaf_counts(
    kind: Kind, levels: Sequence[Sequence[Mapping[str, Any]]], index: AddressIndex
) -> Counter[tuple[Any, ...]]:
    """Leaf keys of the live objects of deeper levels (their containers are not matched yet,
    but a leaf key leaves the container out)."""
    counts: Counter[tuple[Any, ...]] = Counter()
    for level in levels:
        for raw in level:
            obs = kind.observe(raw, index)
            if obs is not None:
                counts[_leaf(kind, obs.key)] += 1
    return counts


def _claim_settling_twins(
    kind: Kind,
    d: Desired,
    by_key: Mapping[tuple[Any, ...], list[Observed]],
    claimed: dict[str, Pair],
    result: Matching,
) -> Pair | None:
    """The entry paired with the one to keep of several objects of its key, when they are
    twins applies at once left (`duplicates.left_twins`); the others are the plan's to delete."""
    candidates = [o for o in by_key.get(d.key, ()) if o.id not in claimed]
    settled = left_twins(kind, d.key, candidates) if len(candidates) > 1 else []
    if not settled:
        return None
    keep, twins = settled[0], settled[1:]
    result.notes.append(settled_note(f"{d.location}: {d.address}", kind.name, keep, twins))
    result.twins.update({o.id: keep.id for o in twins})
    pair = Pair(d, keep, "key")
    claimed[keep.id] = pair
    return pair


def _claim(
    kind: Kind,
    d: Desired,
    keys: Sequence[tuple[Any, ...]],
    by_key: Mapping[tuple[Any, ...], list[Observed]],
    claimed: dict[str, Pair],
    problems: list[str],
    reason: str,
) -> Pair | None:
    for key in keys:
        candidates = [o for o in by_key.get(key, ()) if o.id not in claimed]
        if len(candidates) > 1:
            where = f"{d.location}: {d.address}"
            problems.append(ambiguous_match(where, kind.name, _describe_key(key), candidates))
            claimed.update({o.id: Pair(d, o, "ambiguous") for o in candidates})
            return None
        if candidates:
            pair = Pair(d, candidates[0], reason)
            claimed[candidates[0].id] = pair
            return pair
    return None


def _describe_key(key: tuple[Any, ...]) -> str:
    return " / ".join("(root)" if part is None else repr(str(part)) for part in key)


def _levels(kind: Kind, live: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """Live objects grouped by nesting depth (one group for kinds that do not nest)."""
    if not isinstance(kind, Nests):
        return [list(live)] if live else []
    ids = {r["id"] for r in live}
    parent = {r["id"]: kind.nesting_parent(r) for r in live}
    depth: dict[str, int] = {}

    def depth_of(obj_id: str) -> int:
        seen: list[str] = []
        node: str | None = obj_id
        while node is not None and node in ids and node not in depth and node not in seen:
            seen.append(node)
            node = parent[node]
        base = depth.get(node, -1) if node is not None and node in ids else -1
        for n in reversed(seen):
            base += 1
            depth[n] = base
        return depth[obj_id]

    levels: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for r in live:
        levels[depth_of(r["id"])].append(r)
    return [levels[d] for d in sorted(levels)]


def _placeholder_observed(raw: Mapping[str, Any]) -> Observed:
    return Observed(id=raw["id"], key=(), fields={}, title="", raw=raw)
