"""Checks between entries: references by manifest name, collection cycles, site structure rules,
and entries that would match the same live object.

Names known to exist are taken from what was written (even an entry that failed validation
exists), so one mistake is never reported twice. Team members must be listed under
``members:``: docform can only add organization members to a team.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from docform.kinds.base import Entry
from docform.kinds.fields import RefTo
from docform.kinds.organization import OrganizationEntry
from docform.kinds.redirect import redirect_problems
from docform.kinds.registry import section_of
from docform.kinds.site import SiteEntry
from docform.manifest.document import ENTRY_SECTIONS
from docform.manifest.entries import ValidatedEntries
from docform.manifest.problems import Path, Problem, unknown_name
from docform.manifest.sources import MergedTree


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

    def run(self) -> None:
        organization = self.tree.sections.get("organization")
        self._check_refs(OrganizationEntry, organization, ("organization",))
        for name, section in ENTRY_SECTIONS.items():
            for entry_name, entry in self._known(name).items():
                self._check_refs(section.entry, entry, (name, entry_name))
        self._check_collection_cycles()
        for name, site in self._known("sites").items():
            self._check_site(name, _mapping(site))
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
        if isinstance(name, str) and name not in known:
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
            for field in section.entry.former_key_fields[:-1]:
                info = section.entry.model_fields.get(field)
                target = _ref_target(_field_marks(info)) if info else None
                if target is None:
                    continue
                for name, entry in self._known(section_name).items():
                    for path, item in self._former_keys((section_name, name), entry):
                        self._refer(target, item.get(field), (*path, field))
        for site_name, site in self._known("sites").items():
            sections = _mapping(_mapping(site).get("sections"))
            for section_name, section in sections.items():
                base = ("sites", site_name, "sections", section_name, "spaces")
                for name, entry in _mapping(_mapping(section).get("spaces")).items():
                    for path, item in self._former_keys((*base, name), entry):
                        former = item.get("section")
                        if isinstance(former, str) and former not in sections:
                            message = self._unknown_section(site_name, sections, former)
                            self._problem((*path, "section"), message)

    def _check_collection_cycles(self) -> None:
        parents = {
            name: _text(_mapping(entry).get("parent"))
            for name, entry in self._known("collections").items()
        }
        done: set[str] = set()
        for start in parents:
            trail: list[str] = []
            name: str | None = start
            while name is not None and name not in done and name not in trail:
                trail.append(name)
                name = parents.get(name)
            if name is not None and name in trail:
                cycle = [*trail[trail.index(name) :], name]
                self._problem(
                    ("collections", name, "parent"),
                    f"collection parents form a cycle: {' -> '.join(cycle)}",
                )
            done.update(trail)

    def _check_site(self, name: str, site: dict[str, Any]) -> None:
        base: Path = ("sites", name)
        sections, spaces = _mapping(site.get("sections")), _mapping(site.get("spaces"))
        if sections and spaces:
            self._problem(
                (*base, "spaces"),
                "a site with sections lists its site spaces under sections.<name>.spaces",
            )
        self._check_site_spaces((*base, "spaces"), spaces)
        for section_name, section in sections.items():
            section_path = (*base, "sections", section_name)
            self._check_site_spaces(
                (*section_path, "spaces"), _mapping(_mapping(section).get("spaces"))
            )
        self._one_default((*base, "sections"), sections, "section of a site")
        self._check_groups(name, site)
        for path, message in redirect_problems(site, unknown_name):
            self._problem((*base, *path), message)

    def _check_site_spaces(self, path: Path, spaces: dict[str, Any]) -> None:
        self._one_default(path, spaces, "site space of a section")

    def _one_default(self, path: Path, entries: dict[str, Any], what: str) -> None:
        first: str | None = None
        for name, entry in entries.items():
            if _mapping(entry).get("default") is not True:
                continue
            if first is not None:
                message = f"only one {what} can be the default (already '{first}')"
                self._problem((*path, name, "default"), message)
            first = first or name

    def _check_groups(self, site_name: str, site: dict[str, Any]) -> None:
        placed: dict[str, str] = {}
        sections = _mapping(site.get("sections"))
        for group_name, group in _mapping(site.get("sectionGroups")).items():
            listed = _mapping(group).get("sections")
            for index, section in enumerate(listed if isinstance(listed, list) else []):
                if not isinstance(section, str):
                    continue
                path = ("sites", site_name, "sectionGroups", group_name, "sections", index)
                if section in placed:
                    message = f"section '{section}' is already in section group '{placed[section]}'"
                    self._problem(path, message)
                elif section not in sections:
                    self._problem(path, self._unknown_section(site_name, sections, section))
                placed.setdefault(section, group_name)

    def _unknown_section(self, site_name: str, sections: dict[str, Any], section: str) -> str:
        for other_name, other in self._known("sites").items():
            if other_name != site_name and section in _mapping(_mapping(other).get("sections")):
                return f"section '{section}' belongs to site '{other_name}', not '{site_name}'"
        return unknown_name("section", section, list(sections))

    def _check_same_keys(self) -> None:
        for section in ENTRY_SECTIONS:
            entries = list(self.entries.sections[section].values())
            self._same_keys(entries)
        for site in self.entries.sections["sites"].values():
            assert isinstance(site, SiteEntry)
            self._same_keys(list(site.sectionGroups.values()))
            self._same_keys(list(site.sections.values()))
            self._same_keys(list(site.spaces.values()))
            for section in site.sections.values():
                self._same_keys(list(section.spaces.values()))

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
            if first is entry or (not entry.key_is_unique and entry.id and first.id):
                continue
            message = f"same {entry.key_label} as '{first.name}' ({first.location})"
            if not entry.key_is_unique:
                message += "; pin an id on both to tell them apart"
            self._problem(entry.source_path, message)


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


def check_references(tree: MergedTree, entries: ValidatedEntries) -> None:
    """Check references and uniqueness between validated entries; problems go on ``tree``."""
    ReferenceChecker(tree, entries).run()
