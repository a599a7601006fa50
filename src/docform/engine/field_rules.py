"""Per-field rules, declared where a kind declares its fields.

A kind's compared fields are annotated with these markers on the class named by `Kind.fields`
(its entry model, usually): ``title: Annotated[str, Immutable(...)]``,
``defaultLevel: Annotated[Level | None, NullMeans("guest")]``. The engine reads them once per
kind (`rules_of`) and applies them while planning: it refuses a change of an immutable field,
shows a null as what it stands for, compares an unordered list as a set, hands a unique value
from one object to another, and plans a change of a field with an action of its own as that
action (a move, a membership change).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from docform.engine.objects import Desired, Observed
from docform.errors import DocformError


@dataclass(frozen=True)
class Immutable:
    """A field the API never changes on a live object: a plan that would is refused, naming
    the entry, the field and its live value, ``why``, and what to do (``then``)."""

    why: str
    then: str
    show: Callable[[Any], str] = str
    """How the refusal names the live value (a link invite's target as a place)."""

    def refusal(self, desired: Desired, observed: Observed, field_name: str) -> DocformError:
        live = self.show(observed.fields.get(field_name))
        return DocformError(
            f"{desired.location}: {desired.address}: {field_name}: {self.why} (live: {live}); "
            f"{self.then}"
        )


@dataclass(frozen=True)
class NullMeans:
    """The API's null in this field stands for a named value (a ``role`` of null is guest)."""

    value: str


@dataclass(frozen=True)
class Unordered:
    """A list whose order means nothing (``emailDomains``): compared as a set."""


@dataclass(frozen=True)
class Unique:
    """A value the API keeps unique among siblings (objects whose natural keys agree but for
    the last part: a section's path in its site): handed from one object to another, the
    taker waits for the giver (`docform.engine.handovers`)."""


@dataclass(frozen=True)
class ChangedBy:
    """A change of this field is an action of its own (``move``, ``membership``), with its own
    calls, instead of part of the object's ``update``."""

    action: str


@dataclass(frozen=True)
class FieldRules:
    """Every rule of one kind's fields, by field name."""

    immutable: Mapping[str, Immutable] = field(default_factory=dict)
    null_means: Mapping[str, str] = field(default_factory=dict)
    unordered: frozenset[str] = frozenset()
    unique: tuple[str, ...] = ()
    actions: Mapping[str, str] = field(default_factory=dict)


NO_RULES = FieldRules()


@cache
def rules_of(fields: type | None) -> FieldRules:
    """The rules annotated on the attributes of ``fields`` (None: a kind without any)."""
    if fields is None:
        return NO_RULES
    immutable: dict[str, Immutable] = {}
    null_means: dict[str, str] = {}
    unordered: set[str] = set()
    unique: list[str] = []
    actions: dict[str, str] = {}
    for name, annotation in typing.get_type_hints(fields, include_extras=True).items():
        for marker in getattr(annotation, "__metadata__", ()):
            if isinstance(marker, Immutable):
                immutable[name] = marker
            elif isinstance(marker, NullMeans):
                null_means[name] = marker.value
            elif isinstance(marker, Unordered):
                unordered.add(name)
            elif isinstance(marker, Unique):
                unique.append(name)
            elif isinstance(marker, ChangedBy):
                actions[name] = marker.action
    return FieldRules(immutable, null_means, frozenset(unordered), tuple(unique), actions)
