"""What the engine compares: a manifest entry as desired, a live object as observed, the
references between them, and the pairs matching makes of them.

Plain data, below every other engine module: what reads the live organization
(`docform.engine.live`) hands a kind the entries that manage its parents, and a kind's hooks
(`docform.engine.kind`) take matchings, without either importing the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Ref:
    """A value that is another managed object: compared by address, sent as its live id."""

    address: str

    def __str__(self) -> str:
        return self.address

    def plan_json(self) -> dict[str, str]:
        return {"$ref": self.address}


@dataclass(frozen=True)
class Unresolved:
    """A live reference to an object no manifest entry manages (its id, kept for display)."""

    kind: str
    id: str

    def __str__(self) -> str:
        return f"(unmanaged {self.kind} {self.id})"

    def plan_json(self) -> dict[str, str]:
        return {"$ref": f"{address_head(self.kind)}.~{self.id}"}


@dataclass(slots=True)
class Desired:
    """One manifest entry as the engine sees it."""

    address: str
    key: tuple[Any, ...]
    fields: dict[str, Any]
    location: str
    pinned_id: str | None = None
    locked_id: str | None = None
    """The id recorded for this address in the manifest set's identity file (docform.lock)."""
    formerly: list[tuple[Any, ...]] = field(default_factory=list)
    unfinished_keys: list[tuple[Any, ...]] = field(default_factory=list)
    """Keys of what this entry's create leaves when its follow-up calls never ran (a section
    before the PATCH that sets its path); matched last, so a re-run finishes, not duplicates."""
    protect: bool = False
    key_fields: tuple[str, ...] = ()
    """Names of the last parts of ``key``, as a ``formerly`` mapping writes them."""
    sensitive: frozenset[str] = frozenset()
    requires: frozenset[str] = frozenset()
    secret_sources: Mapping[str, str] = field(default_factory=dict)
    """The ``${env:NAME}`` or ``{file: PATH}`` each secret of the entry is written with, by its
    path (``accessToken``, ``configuration.apiKey``); `docform.engine.secret_sources`."""
    locked_sources: Mapping[str, str] = field(default_factory=dict)
    """The sources docform.lock records as last sent for this address."""
    entry: Any = None
    """The kind's own record of the entry (its manifest model, mostly): only the kind that made
    this `Desired` reads it, so the engine leaves its type to that kind."""


def address_head(kind: str) -> str:
    """The first part of the addresses of ``kind``: its name as the manifests spell keys
    (``link_invite``: ``linkInvite``), so that one spelling serves manifests, plans, the lock,
    targets and policies. `docform.model.entry.address_head` is the same rule for entries."""
    first, *rest = kind.split("_")
    return first + "".join(part.capitalize() for part in rest)


def respelled(pattern: str) -> str:
    """``pattern`` (an address, a target, an ignore pattern, a lock's line) with its first part
    in the address spelling: ``link_invite.*`` names what ``linkInvite.*`` does, as it did
    before addresses took the manifests' spelling."""
    head, dot, rest = pattern.partition(".")
    return address_head(head) + dot + rest


@dataclass(slots=True)
class Observed:
    """One live object, its references expressed as `Ref` (managed) or `Unresolved`."""

    id: str
    key: tuple[Any, ...]
    fields: dict[str, Any]
    title: str
    raw: Mapping[str, Any]
    other_keys: tuple[tuple[Any, ...], ...] = ()
    """Further keys an entry's ``formerly`` or ``unfinished_keys`` may match (a site space by
    the space it shows, a section as its create left it)."""
    sensitive: frozenset[str] = frozenset()
    """Fields whose live value must not be shown (a certificate, a URL with credentials)."""
    unread: frozenset[str] = frozenset()
    """Secrets the service holds but never answers (write-only), by path: compared by the
    source docform.lock records (`docform.engine.secret_sources`)."""
    address: str | None = None
    """Where the plan names this object when no entry matches it, if its kind names it better
    than ``KIND.~ID`` (a grant, by the object it is on); see `match.unmatched_address`."""


@dataclass(slots=True)
class Pair:
    desired: Desired
    observed: Observed
    reason: str


@dataclass
class Matching:
    desired: list[Desired] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    creates: list[Desired] = field(default_factory=list)
    restores: list[Pair] = field(default_factory=list)
    unmatched: list[Observed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What a reader of the plan should know about how entries were matched."""
    twins: dict[str, str] = field(default_factory=dict)
    """Unmatched objects that applies at once left beside a matched one (the id of each ->
    that of the one kept, `docform.engine.duplicates.left_twins`): the plan deletes them."""


@dataclass(frozen=True)
class Gone:
    """An object a plan deletes, or that goes with one of its deletes (a space in a deleted
    collection): what a kind looks for bystanders of (`docform.engine.bystanders`)."""

    kind: str
    live_id: str
    delete: str
    """The address of the plan's delete that takes it (its own, when the plan deletes it)."""


@dataclass(frozen=True)
class Bystander:
    """An object planning does not read (it lies in something no manifest manages, or it is a
    field no entry writes) that a delete of the plan still takes down or changes."""

    address: str
    title: str | None
    fate: str
    delete: str
    """The address of the delete that reaches it."""
    where: str
    """Why docform does not manage it: ``lies in site Help (site_help) that no manifest
    manages``; the rail's message says it."""
    judged: bool = True
    """Whether the rails judge it: not what is only part of the deleted object itself (the
    sections of a deleted site)."""
