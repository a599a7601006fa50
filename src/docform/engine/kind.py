"""What the engine needs to know of a kind, and nothing more.

Each module of ``docform.kinds`` defines one `Kind`: how to read its live objects, how to turn a
manifest entry and a live object into comparable values (`Desired`, `Observed`), and which calls
create, change, move or delete one. The engine matches, diffs, orders and renders without ever
naming a kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from docform.engine.field_rules import FieldRules, rules_of
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.objects import Bystander as Bystander
from docform.engine.objects import Desired as Desired
from docform.engine.objects import Gone as Gone
from docform.engine.objects import Observed as Observed
from docform.engine.objects import Ref as Ref
from docform.engine.objects import Unresolved as Unresolved
from docform.engine.plan import Call, Placeholder

Resolve = Callable[[object], Any]
"""Turns a value holding `Ref` into one holding live ids, or a `Placeholder` where the object
is created in this apply (`AddressIndex.resolve`)."""


@dataclass(frozen=True)
class ChangeContext:
    """What the planner asks a kind's `Kind.change_calls` for: one action on the fields of one
    entry and the live object matched to it."""

    action: str
    """``update``, or the action of a field that has one (`docform.engine.field_rules`)."""
    observed: Observed
    desired: Desired
    changed: dict[str, Any]
    """The fields that change, by name, at their desired values."""
    resolve: Resolve

    @property
    def where(self) -> str:
        """The entry's file:line and address, as a refusal of the change starts."""
        return f"{self.desired.location}: {self.desired.address}"


class Kind:
    """Base of every kind: the class attributes and the core hooks every kind has (read,
    desired, observe, the create, change and delete calls, export). What only some kinds do is
    an ability of its own (`docform.engine.capabilities`)."""

    name: ClassVar[str]
    """Address prefix and the ``kind`` of plan changes: ``team``, ``space``, ``link_invite``.
    The rest of a kind's names derive from it unless the kind states them."""
    plural: ClassVar[str]
    """How messages name several objects of this kind: ``link invites`` by default."""
    prune_setting: ClassVar[str | None]
    """Key of ``docform.prune`` that allows deleting unmanaged objects of this kind
    (``linkInvites`` by default); None for a kind read only inside entries that list all of its
    objects there (an object's ``access``), whose unmatched objects are always deleted."""
    references: ClassVar[tuple[str, ...]] = ()
    """Kinds whose objects this kind's keys or fields refer to; they are matched first."""
    read_after: ClassVar[tuple[str, ...]] = ()
    """Kinds whose live objects must be read first (sections are listed per site)."""
    reads_pinned_ids: ClassVar[bool] = False
    """Whether ``read`` looks at its ``wanted_ids`` (the ids the entries pin): such a read, like
    one with ``read_after``, starts only once the manifests are loaded."""
    created_id: ClassVar[str] = "id"
    """Where a create call's answer holds the new object's id (``users.0`` for an invite)."""
    container_key_parts: ClassVar[tuple[int, ...]] = ()
    """Positions in the natural key that name the object's container (a space's collection, a
    site space's section): an entry whose key differs from a live object's only there, when
    exactly one of each fits, is that object moved (`docform.engine.match`)."""
    renamable: ClassVar[bool] = True
    """Whether an object of this kind can take another natural key (a member's email cannot):
    if not, a create next to an unmatched object is no sign of a rename."""
    guard_replacement: ClassVar[bool] = False
    """Deleting an object of this kind while creating a look-alike breaks the ``replacement``
    rail: its id matters outside docform (a space's content, a SAML provider's sign-on URL,
    a team's grants)."""
    guard_weak: ClassVar[bool] = True
    """Whether a replacement found only because the two are the only create and leftover of
    their container breaks the rail too (content kinds); else only one whose name, former
    key or fields point to it (creating one team while pruning another is everyday)."""
    replacement_loses: ClassVar[str] = "its content would be lost"
    """What the ``replacement`` rail says a replacement loses."""
    deleted_with: ClassVar[Mapping[str, str]] = {}
    """Fields naming another object whose delete the API carries to this one, and what becomes
    of it: ``deleted with it`` (a site space showing a deleted space), or what the field is
    left as (a SAML provider's default team ``cleared``); the plan lists it under the delete
    (`docform.engine.cascades`)."""
    fields_beyond_entry: ClassVar[tuple[str, ...]] = ()
    """Fields compared under names the manifest entry does not have (``sourceURL`` for an
    entry's ``source.url``): policy rules may read them too."""
    replacement_hint: ClassVar[str | None] = None
    """What keeps a live object the plan replaces, where pinning its id cannot (a translation,
    whose source and language never change; ``{live}`` is the object's name); None: pin its
    id or list a former key."""
    guard_creates: ClassVar[bool] = True
    """Whether a create first checks that no other apply created the object since the plan
    (`docform.engine.duplicates.CreateGuard`); not where creating twice is harmless."""
    created_unanswered: ClassVar[bool] = False
    """Whether the service answers a create without the object it made (a glossary's batch
    PUT: 204): apply then finds it by its key right after (`CreateGuard`), so docform.lock
    records its id."""
    locked: ClassVar[bool] = True
    """Whether docform.lock records the live id of each entry of this kind; not for objects that
    are nothing but their natural key (a grant: its object, and its team or user)."""
    lock_field: ClassVar[str | None] = None
    """A field whose live value is what docform.lock records for the entry, not anything the
    service answers (the rotation marker a site's visitor key was last made for): compared with
    the lock, recorded there once a change of it is applied, and the lock holds no id of this
    kind to match by."""
    unmanaged_go_with_container: ClassVar[bool] = False
    """An unmanaged object of this kind is only a link, lost harmlessly when what holds it is
    pruned (a site space: the space it shows stays), so that is no cascade."""
    reached_by: ClassVar[frozenset[str]] = frozenset()
    """Kinds whose deletes reach objects of this kind that planning does not read (a site
    space of a site no manifest manages, showing a deleted space): `read_bystanders` looks
    for them, and only when the plan deletes one of those kinds' objects."""
    read_required: ClassVar[bool] = False
    """Whether a plan means nothing without this kind's objects (the organization): a token
    the API refuses them is an error, never a partial plan (`docform.engine.snapshot`)."""

    fields: ClassVar[type | None] = None
    """The class whose annotated attributes state the rules of this kind's compared fields
    (`docform.engine.field_rules`): its entry model, or where the compared fields are named
    otherwise, a class of their own."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if "name" in own:
            if "plural" not in own:
                cls.plural = plural_of(cls.name)
            if "prune_setting" not in own:
                cls.prune_setting = section_of_name(cls.name)

    def __init__(self, org_id: str) -> None:
        self.org_id = org_id

    @property
    def rules(self) -> FieldRules:
        """The rules of this kind's fields, as `fields` states them."""
        return rules_of(self.fields)

    # -- reading ------------------------------------------------------------------------------

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Every live object of this kind, with the fewest requests the API allows.

        ``wanted_ids`` are ids pinned in the manifests: a kind may look for those that the
        lists do not return (a space deleted less than 7 days ago can be restored); or, for a
        kind that says otherwise in `wanted_for_read`, what its entries ask it to read.
        """
        raise NotImplementedError

    def wanted_for_read(self, desired: Desired) -> str | None:
        """What ``desired`` asks this kind's ``read`` to look for, when it `reads_pinned_ids`:
        the id the entry pins or docform.lock records, unless the kind needs something else."""
        return desired.pinned_id or desired.locked_id

    # -- manifest and live side ---------------------------------------------------------------

    def desired(self, manifests: ManifestView) -> list[Desired]:
        raise NotImplementedError

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        """The live object as comparable values; None when it is out of docform's scope
        (a section of a site no manifest manages is neither managed nor unmanaged)."""
        raise NotImplementedError

    # -- calls ---------------------------------------------------------------------------------

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        raise NotImplementedError

    def change_calls(self, change: ChangeContext) -> list[Call]:
        """Calls for an ``update``, ``move``, ``membership`` or ``reorder`` of the changed
        fields of a matched pair."""
        raise NotImplementedError

    def delete_calls(self, observed: Observed) -> list[Call]:
        raise NotImplementedError

    # -- export --------------------------------------------------------------------------------

    def export_entry(self, raw: Mapping[str, Any]) -> Any:
        """The live object as a manifest entry (`docform.export.model.Exported`) that planning
        matches with no change, or None when it is out of docform's scope."""
        raise NotImplementedError


def plural_of(name: str) -> str:
    """How messages name several objects of the kind ``name``: ``link invites``."""
    return f"{name.replace('_', ' ')}s"


def section_of_name(name: str) -> str:
    """The manifest key of the kind ``name``'s entries and its prune setting: ``linkInvites``."""
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest) + "s"


def default_create_reason(kind: Kind, desired: Desired) -> str:
    """Why the plan creates ``desired``, as the engine says it for any kind."""
    return f"no live {kind.name} matches {desired.location}"


def default_delete_reason(kind: Kind, observed: Observed) -> str:
    """Why the plan deletes ``observed``, as the engine says it for any kind."""
    if kind.prune_setting is None:
        return f"the entry that lists all of this {kind.name} does not list {observed.title}"
    return f"no manifest entry manages {kind.name} '{observed.title}' and prune is on"


class AddressIndex:
    """Live id -> address of the entry it was matched to, filled while matching."""

    def __init__(self) -> None:
        self._by_id: dict[tuple[str, str], str] = {}
        self._created: dict[str, str] = {}
        self._ids: dict[str, str] = {}

    def record(self, kind: str, live_id: str, address: str) -> None:
        self._by_id[(kind, live_id)] = address
        self._ids[address] = live_id

    def record_created(self, address: str, id_field: str = "id") -> None:
        self._created[address] = id_field

    def ref(self, kind: str, live_id: str | None) -> Ref | Unresolved | None:
        """The reference a live object makes to ``live_id`` of ``kind``."""
        if live_id is None:
            return None
        address = self._by_id.get((kind, live_id))
        return Ref(address) if address else Unresolved(kind, live_id)

    def managed_ref(self, kind: str, live_id: str) -> Ref | None:
        """The reference to ``live_id`` when a manifest entry manages it, else None (unmatched
        objects are indexed as ``kind.~ID`` only so that they can be pruned)."""
        address = self._by_id.get((kind, live_id))
        return Ref(address) if address and "~" not in address else None

    def is_created(self, address: str) -> bool:
        return address in self._created

    def address_of(self, kind: str, live_id: str | None) -> str | None:
        """The address a live object was matched to (``kind.~id`` when unmanaged)."""
        return self._by_id.get((kind, live_id)) if live_id else None

    def resolve(self, value: object) -> Any:
        """A `Ref` as a live id, or a `Placeholder` when its object is created in this apply."""
        if isinstance(value, Ref):
            if value.address in self._ids:
                return self._ids[value.address]
            return Placeholder(value.address, self._created.get(value.address, "id"))
        if isinstance(value, Unresolved):
            return value.id
        if isinstance(value, dict):
            return {k: self.resolve(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        return value
