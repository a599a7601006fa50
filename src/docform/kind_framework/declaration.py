"""What a kind declares about itself besides its engine hooks: its manifest section, its prune
setting, its export file and the answers it reads.

Each kind module gives its `Kind` subclass one `Declaration` (``declaration = Declaration(...)``
as a class attribute); `docform.kind_registry` finds every such kind, and the
manifest format (`docform.manifest.document`), the prune settings, export's files and the
client's answer shapes are built from what they declare, so a new kind is written in one
module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeGuard, TypeVar

from docform.model.entry import BoundModel, Entry
from docform.model.fields import NAME_PATTERN, Name

EntryModel = TypeVar("EntryModel", bound=BoundModel, covariant=True)


@dataclass(frozen=True)
class Section(Generic[EntryModel]):
    """A top-level manifest section: ``teams:`` holds `TeamEntry` values by name.

    ``name``, ``noun`` and ``plural`` derive from the kind's name when left empty (the kind
    ``link_invite``: section ``linkInvites``, noun ``link invite``, plural ``link invites``;
    `docform.kind_registry.declaration_of`); a kind states them only where they differ.
    ``single``: the section is one entry, not entries by name (``organization:``). ``key`` and
    ``key_pattern`` are the type and pattern of the names; ``value`` the type of each value when
    it is more than the entry (a member written as a bare role); ``description`` what the
    schema says of the section.
    """

    entry: type[EntryModel]
    name: str = ""
    noun: str = ""  # "team", as in "unknown team 'x'"
    plural: str = ""  # for the summary line
    key: Any = Name  # a type or an Annotated form, as pydantic reads them
    key_pattern: str = NAME_PATTERN
    value: object = None
    description: str | None = None
    single: bool = False


def holds_entries(section: Section[BoundModel]) -> TypeGuard[Section[Entry]]:
    """Whether ``section`` holds entries by name (`Entry` models), not one entry."""
    return not section.single and issubclass(section.entry, Entry)


@dataclass(frozen=True)
class Nested:
    """A kind written inside another kind's entries (a site's ``sections:``): its entry model,
    and how the summary line counts its entries (``section groups``; the kind's plural when
    left empty)."""

    entry: type[BoundModel]
    plural: str = ""


@dataclass(frozen=True)
class Reads:
    """The answers a kind reads: by GET path template (``*`` for one path segment, an id), the
    fields of the answer (of each item, for a list) that the kind uses.

    A field is named by its path: ``title``, ``user.email``, ``nodes[]`` (each item of a list),
    ``siteSpaces[].space.id``. What each field must hold, and whether every answer holds it,
    the description of the service's answers says (`docform.service.answer_description`): the client
    checks exactly that, for these fields only. ``list_names`` are the path segments
    that name a list in the kind's routes (``teams``): the segment after one is an id, which is
    how calls are counted by route. ``copes_without``: by route, fields the description
    promises but docform reads an answer without (it has another way to the same fact), which
    the client then lets be missing; docform may be more lenient than the service, never
    stricter. ``copes_with_null``: likewise, fields the description never gives as null that
    docform reads null in too (null meaning "none", as it does where the service sends it).
    ``items_as``: by list route, the object route whose answer each item is read as,
    where the service's definition describes a list's items more narrowly than what its single
    GET answers (docs/service.md names each such list).
    """

    fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    copes_without: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    copes_with_null: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    items_as: Mapping[str, str] = field(default_factory=dict)
    list_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Declaration:
    """Everything docform knows about a kind outside its engine hooks.

    ``position``: where plans list the kind (and read, create and count it) among the others,
    lowest first. ``section``: its top-level manifest section, if it has one; a kind written
    inside another kind's entries (a site's sections) is `Nested` there instead.
    ``prune_description``: what the schema says of its ``docform.prune`` key
    (`Kind.prune_setting`). ``export_file``: the file export writes its section to.
    ``reads``: the answers it reads.
    """

    position: int
    section: Section[BoundModel] | None = None
    nested: Nested | None = None
    prune_description: str | None = None
    export_file: str | None = None
    reads: Reads = field(default_factory=Reads)
