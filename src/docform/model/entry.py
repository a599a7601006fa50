"""What every manifest entry shares: strict models, identity fields, name and source location.

An entry is one value under a manifest section (``teams.platform``). Besides its own fields it
may pin the live ``id``, list ``formerly`` names or natural keys (renames without ids) and set
``protect: true``. A field left out of an entry is not managed; `Entry.managed` returns only the
fields the manifest wrote, which is what the planner compares with the live object.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

ID_PATTERN = r"^[a-zA-Z0-9_-]+$"

Unknown = Callable[[str, str, Sequence[str]], str]
"""``unknown section 'guidse' (did you mean 'guides'?)`` for a noun, a name and the names."""
WrittenProblems = Iterator[tuple[tuple[str | int, ...], str]]
IDENTITY_FIELDS = frozenset({"id", "formerly", "protect"})


@dataclass(frozen=True, order=True)
class Location:
    """Where a value was written: a file relative to the manifest directory, 1-based line/col."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


UNKNOWN_LOCATION = Location("", 0, 0)


class Binding(NamedTuple):
    """An entry's place in the manifests: its name, where it was written, the names of the
    entries holding it (nested kinds), and the keys leading to it."""

    name: str
    location: Location
    scope: tuple[str, ...]
    path: tuple[str, ...]
    within: Mapping[tuple[str | int, ...], Location] = {}
    """Where the values of `BoundModel.located_paths` were written, by their path in it."""


UNBOUND = Binding("", UNKNOWN_LOCATION, (), ())


ROLE_FIELDS = frozenset({"role", "defaultRole", "defaultLevel"})
_NULL = {"type": "null"}


def _schema_without_nulls(schema: dict[str, Any], model: type[Any]) -> None:
    """Keep ``null`` in the JSON Schema only where the model accepts it (`nullable_fields`);
    an entry's former keys name its own key fields."""
    _former_key_schema(schema, model)
    nullable: frozenset[str] = getattr(model, "nullable_fields", frozenset())
    for name, prop in schema.get("properties", {}).items():
        if name in nullable:
            continue
        options = prop.get("anyOf")
        if options and _NULL in options:
            rest = [option for option in options if option != _NULL]
            del prop["anyOf"]
            if len(rest) == 1:
                prop.update(rest[0])
            else:
                prop["anyOf"] = rest
        if "default" in prop and prop["default"] is None:
            del prop["default"]


def _former_key_schema(schema: dict[str, Any], model: type[Any]) -> None:
    fields = getattr(model, "former_key_fields", ())
    formerly = schema.get("properties", {}).get("formerly")
    if not fields or formerly is None:
        return
    *containers, name = fields
    properties: dict[str, Any] = {field: {"type": ["string", "null"]} for field in containers}
    properties[name] = {"type": "string"}
    former_key = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "minProperties": 1,
    }
    formerly["items"] = {"anyOf": [{"type": "string"}, former_key]}


class ManifestModel(BaseModel):
    """A manifest mapping: unknown keys are errors, never silently ignored.

    A field left out is not managed. An explicit ``null`` is refused, except in the fields
    listed in ``nullable_fields``, where the API takes null to remove a value.
    """

    # Each model's validator is built when it first validates (defer_build): docform imports
    # every kind at start, and a command reads the entries of the few its manifests hold.
    model_config = ConfigDict(
        extra="forbid", strict=True, json_schema_extra=_schema_without_nulls, defer_build=True
    )
    nullable_fields: ClassVar[frozenset[str]] = frozenset()
    #: What to say of a key this model does not have but users write (``token``: never in a
    #: manifest), instead of the closest field name.
    unknown_key_hints: ClassVar[Mapping[str, str]] = {}

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name not in cls.nullable_fields:
            if info.field_name in ROLE_FIELDS:
                raise ValueError("null is not allowed: the API's null role is written guest")
            raise ValueError("null is not allowed: leave the field out to leave it unmanaged")
        return value


@cache
def address_head(kind: str) -> str:
    """The first part of the addresses of ``kind``, as the manifests spell keys
    (``link_invite``: ``linkInvite``); the engine's `docform.engine.objects.address_head` is
    the same rule (the two layers share no module), which a test holds them to."""
    first, *rest = kind.split("_")
    return first + "".join(part.capitalize() for part in rest)


def respelled(pattern: str) -> str:
    """``pattern`` with its first part in the address spelling (``link_invite.join``:
    ``linkInvite.join``), as `docform.engine.objects.respelled` does."""
    head, dot, rest = pattern.partition(".")
    return address_head(head) + dot + rest


class BoundModel(ManifestModel):
    """A model that knows its manifest name, source location and plan address."""

    kind: ClassVar[str] = "entry"
    #: The natural key is unique in the service (an email, a slug, a path): two entries with
    #: the same key are always an error. Otherwise (titles) they are allowed with pinned ids.
    key_is_unique: ClassVar[bool] = False
    #: Words naming the natural key in messages ("title", "parent and title").
    key_label: ClassVar[str] = "title"
    #: Fields holding nested entries (a site's sections): not compared as plain fields.
    child_fields: ClassVar[frozenset[str]] = frozenset()
    #: The fields of the natural key a ``formerly`` mapping may name, in key order: containers
    #: first (a manifest name, or null for the top level), then the entry's own name field.
    former_key_fields: ClassVar[tuple[str, ...]] = ()

    # Where the entry was written, set by `bind`. A plain instance attribute, not a pydantic
    # private one: those go through pydantic's __getattr__ on every read and are set one by
    # one, a sixth of loading's profile and a quarter of matching's at 18,000 entries
    # (docs/benchmark-rounds.md, issue 19).
    # model_dump, the schema and == look at fields only, so the binding never shows there.
    _binding: ClassVar[Binding] = UNBOUND

    @property
    def name(self) -> str:
        """The manifest name: the key this entry is written under."""
        return self._binding.name

    @property
    def location(self) -> Location:
        """Where the entry's key was written."""
        return self._binding.location

    @property
    def scope(self) -> tuple[str, ...]:
        """Names of the enclosing entries (site, then section) for nested kinds."""
        return self._binding.scope

    @property
    def source_path(self) -> tuple[str, ...]:
        """Keys leading to this entry in the manifest, e.g. ``('teams', 'platform')``."""
        return self._binding.path

    @property
    def address(self) -> str:
        """The plan address of this entry, e.g. ``team.platform``."""
        return f"{address_head(self.kind)}.{self._binding.name}"

    def bind(
        self,
        path: tuple[str, ...],
        location: Location,
        scope: tuple[str, ...] = (),
        within: Mapping[tuple[str | int, ...], Location] | None = None,
    ) -> None:
        """Attach the manifest path, source location and enclosing scope (done by the loader),
        and where the values of `located_paths` were written."""
        binding = Binding(path[-1], location, scope, path, within or {})
        object.__setattr__(self, "_binding", binding)

    def located_paths(self) -> Iterator[tuple[str | int, ...]]:
        """Paths of values in this entry that a check after loading may name by their own
        file:line (a condition checked against the live service); most entries have none."""
        return iter(())

    def location_of(self, path: tuple[str | int, ...]) -> Location:
        """Where the value at ``path`` (one of `located_paths`) was written; else the entry."""
        return self._binding.within.get(path, self._binding.location)

    def nested(self) -> list[tuple[str, dict[str, Any]]]:
        """Each field holding nested entries (`child_fields`) with its value, in field order."""
        if not self.child_fields:
            return []
        fields = _child_fields_in_order(type(self))
        return [(name, value) for name in fields if isinstance(value := getattr(self, name), dict)]

    def natural_key(self) -> Hashable:
        """The key matching this entry to a live object when no id is pinned."""
        raise NotImplementedError

    def managed(self) -> dict[str, Any]:
        """The fields the manifest wrote (others are not managed), without identity fields."""
        return self.model_dump(exclude_unset=True, exclude={*IDENTITY_FIELDS, *self.child_fields})

    def children(self) -> list[Entry]:
        """Entries nested in this one, parents before children, in manifest order."""
        return []


@cache
def _child_fields_in_order(model: type[BoundModel]) -> tuple[str, ...]:
    return tuple(name for name in model.model_fields if name in model.child_fields)


class Entry(BoundModel):
    """A named manifest entry matched to one live object (by id, natural key, then formerly)."""

    id: str | None = Field(
        None, pattern=ID_PATTERN, max_length=255, description="Pinned id of the live object."
    )
    formerly: list[str | dict[str, str | None]] = Field(
        default_factory=list,
        description="Former names (a title, path...) or former keys ({collection: x, title: y}), "
        "matched when nothing else matches (renames and moves).",
    )
    protect: bool = Field(
        False, description="A plan that would delete or replace this object fails."
    )

    @classmethod
    def section_problems(cls, written: Mapping[str, Any], unknown: Unknown) -> WrittenProblems:
        """Rules between the entries of this kind's section as written, which no single entry's
        validation sees (collection parents forming a cycle, a site's structure): ``(path
        within the section, message)``. Run before validation, so that an entry with an
        unrelated mistake is still checked; ``written`` values may be of any type."""
        return iter(())

    @field_validator("formerly")
    @classmethod
    def _former_keys(cls, value: list[Any]) -> list[Any]:
        for index, item in enumerate(value):
            if isinstance(item, dict):
                _check_former_key(cls, index, item)
        return value


def _check_former_key(entry: type[BoundModel], index: int, item: dict[str, Any]) -> None:
    fields = entry.former_key_fields
    allowed = ", ".join(fields)
    unknown = sorted(set(item) - set(fields))
    if unknown or not item:
        what = f"unknown field {', '.join(unknown)}" if unknown else "an empty former key"
        raise ValueError(
            f"[{index}]: {what}: a former key of a {entry.kind} names some of {allowed} (the "
            "others are taken as they are now)"
        )
    name = fields[-1]
    if name in item and item[name] is None:
        raise ValueError(f"[{index}].{name}: null is not a former {name}; write the former {name}")
