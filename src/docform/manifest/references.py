"""Checks between entries: references by manifest name (fields typed with `RefTo`), each
section's own rules between its entries (`Entry.section_problems`: collection cycles, a site's
structure), and entries that would match the same live object.

Names known to exist are taken from what was written (even an entry that failed validation
exists), so one mistake is never reported twice. Team members must be listed under
``members:``: docform can only add organization members to a team.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from docform.kind_registry import section_of
from docform.kinds.organization import OrganizationEntry
from docform.manifest.document import ENTRY_SECTIONS
from docform.manifest.entries import ValidatedEntries
from docform.manifest.problems import Path, Problem, unknown_name
from docform.manifest.sources import MergedTree
from docform.model.entry import BoundModel, Entry, address_head
from docform.model.fields import RefTo


def _still_named(noun: str, section: str, name: str, path: Path) -> str:
    """An entry removed from its section (docform.lock still ties it) that ``path`` names:
    ``'noah@acme.test' was removed from members, but team support still names it``."""
    if path[0] == "organization" or len(path) < 2:
        holder = "the organization"
    else:
        holder = f"{ENTRY_SECTIONS[str(path[0])].noun} {path[1]}"
    return (
        f"{noun} '{name}' was removed from {section}, but {holder} still names it: remove it "
        f"here too (every place that names it is listed), or keep the {noun}"
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class ReferenceChecker:
    """Runs every check between entries, adding problems to the tree.

    References and structure are checked on the values as written, so that an entry with an
    unrelated mistake still has its references checked; uniqueness needs valid entries.
    """

    tree: MergedTree
    entries: ValidatedEntries
    locked: Mapping[str, str] = field(default_factory=dict)
    """The ids docform.lock records by address: an entry it ties is told apart like one that
    pins an ``id``."""

    def run(self) -> None:
        organization = self.tree.sections.get("organization")
        self._check_refs(OrganizationEntry, organization, ("organization",))
        for name, section in ENTRY_SECTIONS.items():
            for entry_name, entry in self._known(name).items():
                self._check_refs(section.entry, entry, (name, entry_name))
        for name, section in ENTRY_SECTIONS.items():
            for path, message in section.entry.section_problems(self._known(name), unknown_name):
                self._problem((name, *path), message)
        self._check_former_containers()
        self._check_same_keys()

    def _check_refs(self, model: type[BaseModel], raw: Any, path: Path) -> None:
        """Every value the fields of ``model`` mark `RefTo` names a written entry; nested
        models, mappings and lists are walked as written."""
        for name, info in _referring_fields(model):
            value = _mapping(raw).get(name)
            if value is None:
                continue
            target = _ref_target(info.metadata)
            if target is not None:
                self._refer(target, value, (*path, name))
            else:
                self._check_value_refs(info.annotation, value, (*path, name))

    def _check_value_refs(self, annotation: Any, value: Any, path: Path) -> None:
        origin, args = get_origin(annotation), get_args(annotation)
        if origin is Annotated:
            target = _ref_target(args[1:])
            if target is not None:
                self._refer(target, value, path)
            else:
                self._check_value_refs(args[0], value, path)
        elif origin in (Union, UnionType):
            for arg in args:
                self._check_value_refs(arg, value, path)
        elif origin is dict:
            key_target = _ref_target(get_args(args[0])[1:])
            for key, item in _mapping(value).items():
                if key_target is not None:
                    self._refer(key_target, key, (*path, key))
                self._check_value_refs(args[1], item, (*path, key))
        elif origin is list:
            for index, item in enumerate(value if isinstance(value, list) else []):
                self._check_value_refs(args[0], item, (*path, index))
        elif _is_model(annotation) and isinstance(value, dict):
            self._check_refs(annotation, value, path)

    def _problem(self, path: Path, message: str) -> None:
        self.tree.problems.append(Problem.at(self.tree.sources.locate(path), path, message))

    def _known(self, section: str) -> dict[str, Any]:
        return _mapping(self.tree.sections.get(section))

    def _refer(self, kind: str, name: Any, path: Path) -> None:
        section = section_of(kind)
        known = self._known(section.name)
        if not isinstance(name, str) or name in known:
            return
        if f"{address_head(kind)}.{name}" in self.locked:
            self._problem(path, _still_named(section.noun, section.name, name, path))
        else:
            self._problem(path, unknown_name(section.noun, name, list(known)))

    def _former_keys(self, path: Path, entry: Any) -> list[tuple[Path, dict[str, Any]]]:
        """The mappings of an entry's ``formerly`` with their paths."""
        items = _mapping(entry).get("formerly")
        return [
            ((*path, "formerly", index), item)
            for index, item in enumerate(items if isinstance(items, list) else [])
            if isinstance(item, dict)
        ]

    def _check_former_containers(self) -> None:
        """A former key names its former container (collection, section) by manifest name."""
        for section_name, section in ENTRY_SECTIONS.items():
            for key_field in section.entry.former_key_fields[:-1]:
                info = section.entry.model_fields.get(key_field)
                target = _ref_target(_field_marks(info)) if info else None
                if target is None:
                    continue
                for name, entry in self._known(section_name).items():
                    for path, item in self._former_keys((section_name, name), entry):
                        self._refer(target, item.get(key_field), (*path, key_field))

    def _check_same_keys(self) -> None:
        for section in ENTRY_SECTIONS:
            entries = list(self.entries.sections[section].values())
            self._same_keys(entries)
            for entry in entries:
                self._check_nested_same_keys(entry)

    def _check_nested_same_keys(self, entry: BoundModel) -> None:
        """Entries nested side by side (a site's sections, a section's site spaces)."""
        for _, nested in entry.nested():
            children = [child for child in nested.values() if isinstance(child, Entry)]
            if children:
                self._same_keys(children)
            for child in children:
                self._check_nested_same_keys(child)

    def _same_keys(self, entries: list[Entry]) -> None:
        by_id: dict[str, Entry] = {}
        by_key: dict[Any, Entry] = {}
        for entry in entries:
            if entry.id is not None:
                first = by_id.setdefault(entry.id, entry)
                if first is not entry:
                    self._problem(
                        (*entry.source_path, "id"), f"same id as '{first.name}' ({first.location})"
                    )
            first = by_key.setdefault(entry.natural_key(), entry)
            if first is entry or (not entry.key_is_unique and self._tied(entry, first)):
                continue
            message = f"same {entry.key_label} as '{first.name}' ({first.location})"
            if not entry.key_is_unique:
                message += "; pin an id on both to tell them apart"
            self._problem(entry.source_path, message)

    def _tied(self, *entries: Entry) -> bool:
        """Whether each of ``entries`` is tied to its live object by an id (pinned or locked)."""
        return all(e.id is not None or e.address in self.locked for e in entries)


@cache
def _referring_fields(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    """The fields of ``model`` that hold a `RefTo` somewhere in their type: the only ones
    walked (most of an entry refers to nothing; at 15,000 entries that counts)."""
    return [
        (name, info)
        for name, info in model.model_fields.items()
        if _ref_target(info.metadata) is not None or _refers(info.annotation)
    ]


def _refers(annotation: Any) -> bool:
    if _is_model(annotation):
        return bool(_referring_fields(annotation))
    if get_origin(annotation) is Annotated and _ref_target(get_args(annotation)[1:]):
        return True
    return any(_refers(arg) for arg in get_args(annotation))


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _ref_target(marks: Iterable[Any]) -> str | None:
    """The kind a `RefTo` among ``marks`` (an ``Annotated`` type's metadata) names."""
    return next((mark.kind for mark in marks if isinstance(mark, RefTo)), None)


def _field_marks(info: FieldInfo) -> list[Any]:
    """The metadata of a field, and of the ``Annotated`` types its annotation is a union of."""
    marks = list(info.metadata)
    for arg in get_args(info.annotation):
        if get_origin(arg) is Annotated:
            marks += get_args(arg)[1:]
    return marks


def check_references(
    tree: MergedTree, entries: ValidatedEntries, locked: Mapping[str, str] | None = None
) -> None:
    """Check references and uniqueness between validated entries (``locked``: the ids
    docform.lock records by address); problems go on ``tree``."""
    ReferenceChecker(tree, entries, locked or {}).run()
