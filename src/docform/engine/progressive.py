"""Matching while reading: each kind is matched as soon as its live objects are in and the
kinds it refers to are matched, so that this CPU work overlaps the reads still in flight.

A kind's matching reads the `AddressIndex` only for itself and the kinds in its
``references``, and writes it only for itself; so any order in which every kind follows the
kinds it refers to gives the same matchings as matching them one by one in reference order.
Problems are kept per kind and reported in reference order, as if matched in that order.

The manifests may arrive after the first kinds are read (reads start while they load): kinds
read before then are matched when `take_manifests` hands them over.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

from docform.engine.fingerprints import Fingerprints
from docform.engine.graph import topological_order
from docform.engine.kind import AddressIndex, Desired, Kind
from docform.engine.manifests import ManifestView
from docform.engine.match import MatchError, Matching, match_kind


def kinds_in_reference_order(kinds: Sequence[Kind]) -> list[Kind]:
    """Kinds ordered so that every kind comes after the kinds it refers to."""
    return topological_order(
        list(kinds), lambda k: k.name, lambda k: [r for r in k.references if r != k.name]
    )


class ProgressiveMatcher:
    """Takes each kind's live objects as they are read (`kind_read`) and matches every kind
    whose turn has come; `matchings` returns them all, in reference order."""

    def __init__(
        self,
        kinds: Sequence[Kind],
        manifests: ManifestView | None,
        *,
        finishing: bool = False,
        locked: Mapping[str, str] | None = None,
        sources: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """``manifests``: None until `take_manifests`; ``locked``: the live id recorded for each
        address in the identity file; ``sources``: the secret sources it records as sent."""
        self.order = kinds_in_reference_order(kinds)
        self.index = AddressIndex()
        self._manifests = manifests
        self._finishing = finishing
        self._locked = locked or {}
        self._sources = sources or {}
        self._names = {kind.name for kind in kinds}
        # kind_read may run in worker threads (`docform.engine.snapshot.KindRead`): one match
        # at a time. `manages` only looks up kinds matched before, so it needs no lock.
        self._matching = threading.Lock()
        self._read: dict[str, Sequence[Mapping[str, Any]]] = {}
        self._matched: dict[str, Matching] = {}
        self._problems: dict[str, list[str]] = {}
        self._desired: dict[str, list[Desired]] = {}
        self._entries: dict[str, dict[str, Desired]] = {}

    def take_manifests(
        self,
        manifests: Any,
        locked: Mapping[str, str] | None = None,
        sources: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """The manifests are loaded: match every kind read so far whose turn has come."""
        with self._matching:
            self._manifests = manifests
            self._locked = locked or {}
            self._sources = sources or {}
            # Made here, in a worker thread where the set is not small: the read would make
            # them on the event loop, where no answer is taken while they are made.
            for kind in self.order:
                if kind.reads_pinned_ids:
                    self.desired(kind)
            self._match_ready()

    def desired(self, kind: Kind) -> list[Desired]:
        """``kind``'s entries of the manifests, made once (for reading and for matching)."""
        if self._manifests is None:
            raise RuntimeError(f"the {kind.name} entries are asked for before the manifests")
        if kind.name not in self._desired:
            desired = kind.desired(self._manifests)
            for d in desired:
                d.locked_id = self._locked.get(d.address)
                d.locked_sources = self._sources.get(d.address, {})
            self._desired[kind.name] = desired
        return self._desired[kind.name]

    def pinned_ids(self, kind: Kind) -> Sequence[str]:
        """The ids pinned by ``kind``'s entries, made only if the kind's read looks at them:
        making every kind's entries before the first request would delay all the reads."""
        return PinnedIds(lambda: [i for d in self.desired(kind) if (i := kind.wanted_for_read(d))])

    def objects_read(self) -> int:
        """How many live objects the kinds read so far hold."""
        return sum(len(raws) for raws in list(self._read.values()))

    def kind_read(self, kind: Kind, raws: Sequence[Mapping[str, Any]]) -> None:
        """``kind``'s live objects are all in: match it, and every kind that waited on it."""
        with self._matching:
            self._read[kind.name] = raws
            self._match_ready()

    def _match_ready(self) -> None:
        if self._manifests is None:
            return
        progress = True
        while progress:
            progress = False
            for ready in self.order:
                if self._is_ready(ready):
                    self._match(ready)
                    progress = True

    def manages(self, kind: str, live_id: str) -> Desired | None:
        """The entry that manages the live ``kind`` object ``live_id``, or None; ``kind``
        must be matched already (a read per parent runs after its parent kind is read, hence
        matched, as long as that kind refers to none that is read later)."""
        if kind not in self._matched:
            raise RuntimeError(f"{kind} is not matched yet, so its scope is not known")
        found = self.index.managed_ref(kind, live_id)
        if found is None:
            return None
        if kind not in self._entries:
            matching = self._matched[kind]
            pairs = (*matching.pairs, *matching.restores)
            self._entries[kind] = {p.desired.address: p.desired for p in pairs}
        return self._entries[kind].get(found.address)

    def matchings(self, unread: Collection[str] = ()) -> list[tuple[Kind, Matching]]:
        """Every kind's matching in reference order; raises `MatchError` with every problem but
        those of the kinds ``unread`` (the token may not read them: their live objects are
        unknown, so an id pinned in the manifests that matches none of them says nothing)."""
        missing = [kind.name for kind in self.order if kind.name not in self._matched]
        if missing:
            raise RuntimeError(f"kinds never read or never matched: {', '.join(missing)}")
        known = [kind for kind in self.order if kind.name not in unread]
        problems = [p for kind in known for p in self._problems[kind.name]]
        if problems:
            raise MatchError(problems)
        return [(kind, self._matched[kind.name]) for kind in self.order]

    def fingerprints(self, matchings: Sequence[tuple[Kind, Matching]]) -> Fingerprints:
        """Fingerprints of the live objects the final ``matchings`` hold (those the ignore rules
        set aside are gone), each computed when first read (`Fingerprints`)."""
        out = Fingerprints()
        for kind, matching in matchings:
            observed = [p.observed for p in (*matching.pairs, *matching.restores)]
            for obs in (*observed, *matching.unmatched):
                out.add_object(f"{kind.name}:{obs.id}", obs.raw)
        return out

    def _is_ready(self, kind: Kind) -> bool:
        if kind.name in self._matched or kind.name not in self._read:
            return False
        needed = (r for r in kind.references if r != kind.name and r in self._names)
        return all(name in self._matched for name in needed)

    def _match(self, kind: Kind) -> None:
        problems: list[str] = []
        matching = match_kind(
            kind,
            self.desired(kind),
            self._read[kind.name],
            self.index,
            problems,
            finishing=self._finishing,
        )
        self._matched[kind.name] = matching
        self._problems[kind.name] = problems


class PinnedIds(Sequence[str]):
    """A list of ids made on first use."""

    def __init__(self, make: Callable[[], list[str]]) -> None:
        self._make = make
        self._ids: list[str] | None = None

    def _list(self) -> list[str]:
        if self._ids is None:
            self._ids = self._make()
        return self._ids

    def __getitem__(self, index: Any) -> Any:
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __iter__(self) -> Iterator[str]:
        return iter(self._list())
