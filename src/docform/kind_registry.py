"""Every kind docform manages, in the order plans list them, and what their declarations add up
to.

A kind is found, not listed: each module of ``docform.kinds`` whose `Kind` subclass carries a
`Declaration` is one, placed by its declared ``position``. So adding a kind is writing its
module; the manifest format, the prune settings, export's files and the client's answer shapes
pick it up from here.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from types import ModuleType
from typing import Any

import docform.kinds
from docform.engine.kind import Kind, section_of_name
from docform.kind_framework.declaration import Declaration, Nested, Section
from docform.model.entry import BoundModel, Entry, address_head
from docform.service.answer_description import AnswerDescriptionError, read_shape
from docform.service.answer_fields import Shape


class KindDeclarationError(TypeError):
    """A kind module that the registry cannot place: a bug in docform, found on import."""


def declared_kinds(module: ModuleType) -> Iterator[type[Kind]]:
    """The kinds ``module`` defines: its `Kind` subclasses with a ``name`` of their own, each of
    which must carry a `Declaration`."""
    for value in vars(module).values():
        if not (isinstance(value, type) and issubclass(value, Kind)):
            continue
        if value.__module__ != module.__name__ or "name" not in vars(value):
            continue  # imported from elsewhere, or a base without a name of its own
        if not isinstance(vars(value).get("declaration"), Declaration):
            raise KindDeclarationError(
                f"{module.__name__}.{value.__name__} names a kind but has no `declaration = "
                "Declaration(...)` (docform.kind_framework.declaration): add one, so that plans "
                "place it"
            )
        yield value


def _discover() -> tuple[type[Kind], ...]:
    found: list[type[Kind]] = []
    for info in pkgutil.iter_modules(docform.kinds.__path__):
        found += declared_kinds(importlib.import_module(f"docform.kinds.{info.name}"))
    return in_plan_order(found)


def in_plan_order(found: list[type[Kind]]) -> tuple[type[Kind], ...]:
    """``found`` sorted by declared position; two kinds at one position are refused."""
    by_position: dict[int, type[Kind]] = {}
    for cls in found:
        other = by_position.setdefault(declaration_of(cls).position, cls)
        if other is not cls:
            raise KindDeclarationError(
                f"{cls.__name__} and {other.__name__} declare the same position "
                f"{declaration_of(cls).position}: give one another, so that plans order them"
            )
    return tuple(by_position[position] for position in sorted(by_position))


def declaration_of(kind: type[Kind] | Kind) -> Declaration:
    """What ``kind`` declares about itself (`docform.kind_framework.declaration`), with the
    names it leaves to its kind name filled in."""
    cls = kind if isinstance(kind, type) else type(kind)
    if cls not in _COMPLETED:
        _COMPLETED[cls] = _completed(cls)
    return _COMPLETED[cls]


_COMPLETED: dict[type[Kind], Declaration] = {}


def _completed(cls: type[Kind]) -> Declaration:
    declaration: Declaration = cls.declaration  # type: ignore[attr-defined]
    section, nested = declaration.section, declaration.nested
    if section is not None:
        section = replace(
            section,
            name=section.name or section_of_name(cls.name),
            noun=section.noun or cls.name.replace("_", " "),
            plural=section.plural or cls.plural,
        )
    if nested is not None:
        nested = replace(nested, plural=nested.plural or cls.plural)
    return replace(declaration, section=section, nested=nested)


KIND_CLASSES: tuple[type[Kind], ...] = _discover()


def build_kinds(org_id: str) -> list[Kind]:
    """One instance of every kind, bound to the organization the manifests describe."""
    return [cls(org_id) for cls in KIND_CLASSES]


def declarations() -> list[Declaration]:
    """Every kind's declaration, in plan order."""
    return [declaration_of(cls) for cls in KIND_CLASSES]


def sections() -> list[Section[BoundModel]]:
    """The top-level manifest sections of the kinds that have one, in plan order."""
    return [d.section for d in declarations() if d.section is not None]


def address_kinds() -> tuple[str, ...]:
    """The kinds whose entries have an address of their own at the top of a manifest
    (``team.platform``, ``linkInvite.join``): those with a section, by the first part of their
    addresses (`docform.model.entry.address_head`)."""
    return tuple(kinds_by_address_head())


def kinds_by_address_head() -> dict[str, str]:
    """The kind names of `address_kinds`, by the first part of their addresses."""
    return {
        address_head(cls.name): cls.name
        for cls in KIND_CLASSES
        if declaration_of(cls).section is not None
    }


def prune_keys() -> list[tuple[str, str | None]]:
    """Each ``docform.prune`` key with what the schema says of it, in plan order, except that
    kinds written inside entries come in the order those entries list them."""
    by_entry = {d.nested.entry: cls for cls, d in _declared_pairs() if d.nested is not None}
    in_entry_order = iter([by_entry[nested.entry] for nested in nested_kinds()])
    keys = []
    for cls, d in _declared_pairs():
        kind = next(in_entry_order) if d.nested is not None else cls
        if kind.prune_setting:
            keys.append((kind.prune_setting, declaration_of(kind).prune_description))
    return keys


def _declared_pairs() -> list[tuple[type[Kind], Declaration]]:
    return [(cls, declaration_of(cls)) for cls in KIND_CLASSES]


def export_files() -> list[tuple[str, tuple[str, ...]]]:
    """Which sections export writes to which file, in plan order of their first kind."""
    files: dict[str, tuple[str, ...]] = {}
    for d in declarations():
        if d.export_file and d.section is not None:
            files[d.export_file] = (*files.get(d.export_file, ()), d.section.name)
    return list(files.items())


def nested_fields(model: type[BoundModel]) -> Iterator[tuple[str, type[Entry]]]:
    """The fields of ``model`` that hold nested entries by name (a site's ``sections``), and
    their entry model, in field order, depth first (a section's ``spaces`` after ``sections``)."""
    for name, info in model.model_fields.items():
        entry = _entry_values(info.annotation)
        if entry is not None:
            yield name, entry
            yield from nested_fields(entry)


def _entry_values(annotation: Any) -> type[Entry] | None:
    """``X`` when ``annotation`` is a mapping of names to entries ``X`` (optionally None)."""
    for arg in (annotation, *getattr(annotation, "__args__", ())):
        if getattr(arg, "__origin__", None) is dict:
            value = arg.__args__[1]
            if isinstance(value, type) and issubclass(value, Entry):
                return value
    return None


def nested_order() -> tuple[str, ...]:
    """The keys of nested entries, in the order entries list them (``sectionGroups``, then
    ``sections``...)."""
    keys = (name for s in sections() for name, _ in nested_fields(s.entry))
    return tuple(dict.fromkeys(keys))


def nested_kinds() -> list[Nested]:
    """The kinds written inside other entries, in the order those entries list them."""
    by_entry = {d.nested.entry: d.nested for d in declarations() if d.nested is not None}
    entries = dict.fromkeys(entry for s in sections() for _, entry in nested_fields(s.entry))
    return [by_entry[entry] for entry in entries if entry in by_entry]


def read_shapes(
    kinds: Iterable[type[Kind]] = KIND_CLASSES, described: Mapping[str, Any] | None = None
) -> tuple[dict[str, Shape], dict[str, Shape]]:
    """The shapes of every answer ``kinds`` read, as the description of the service's answers
    (``described``, else the committed one) has the fields they use
    (`docform.service.answer_description`): those of object routes, and of each item of list
    routes. Several kinds reading one route are checked for all their fields.

    A kind reading a route or a field the description lacks is refused here, naming the kind.
    """
    wanted: dict[str, dict[str, None]] = {}
    relaxed: dict[str, set[str]] = {}
    nullable: dict[str, set[str]] = {}
    for cls in kinds:
        reads = declaration_of(cls).reads
        for template, fields in reads.fields.items():
            copes_without = reads.copes_without.get(template, ())
            copes_with_null = reads.copes_with_null.get(template, ())
            try:
                read_shape(template, fields, copes_without, copes_with_null, described)
            except AnswerDescriptionError as exc:
                raise KindDeclarationError(f"the {cls.name} kind reads {exc}") from None
            wanted.setdefault(template, {}).update(dict.fromkeys(fields))
            # A field is let be missing (or null) only when every kind reading it copes.
            relaxed[template] = relaxed.get(template, set(copes_without)) & set(copes_without)
            nulls = set(copes_with_null)
            nullable[template] = nullable.get(template, nulls) & nulls
    objects: dict[str, Shape] = {}
    items: dict[str, Shape] = {}
    for template, names in wanted.items():
        lenient = sorted(relaxed[template]), sorted(nullable[template])
        read = read_shape(template, names, *lenient, described)
        (items if read.listed else objects)[template] = read.shape
    return objects, items


def reads_by_kind(
    kinds: Iterable[type[Kind]] = KIND_CLASSES,
) -> dict[str, dict[str, tuple[str, ...]]]:
    """By kind name, the fields each reads at each GET route (what `make answers` takes out of
    the service's definition, `docform.service.extract`)."""
    return {cls.name: dict(declaration_of(cls).reads.fields) for cls in kinds}


def items_read_as(kinds: Iterable[type[Kind]] = KIND_CLASSES) -> dict[str, str]:
    """The list routes whose items are read as another route's answer (`Reads.items_as`)."""
    return {
        route: single
        for cls in kinds
        for route, single in declaration_of(cls).reads.items_as.items()
    }


def list_names() -> frozenset[str]:
    """The path segments that name a list in the routes the kinds call."""
    return frozenset(name for d in declarations() for name in d.reads.list_names)


def section_of(kind: str) -> Section[BoundModel]:
    """The top-level section holding the entries of the kind named ``kind`` (``team``)."""
    for cls in KIND_CLASSES:
        section = declaration_of(cls).section
        if cls.name == kind and section is not None:
            return section
    raise KeyError(f"no kind named {kind!r} has a manifest section")
