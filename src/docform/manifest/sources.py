"""Merging the documents of a manifest directory into one tree, remembering where each part was
written.

Every top-level section may be split across files. Within a section each entry (a name under
``teams:``, a setting under ``docform:``) is written once; the same entry twice is an error that
names both places. ``organization:`` is a single entry. Order is kept: files sorted by path,
then document order, which the planner uses for the order of a site's structure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from docform.kind_registry import sections
from docform.manifest.file_set import finish_interrupted
from docform.manifest.problems import Path, Problem, did_you_mean
from docform.manifest.yaml_reader import MAX_FILE_BYTES, YamlDocument, YamlFile, read_yaml_file
from docform.model.entry import Location

SECTIONS = ("docform", *(section.name for section in sections()), "policies")
SINGLE_ENTRY_SECTIONS = frozenset(section.name for section in sections() if section.single)
SUFFIXES = (".yaml", ".yml")
MAX_SET_BYTES = 16 * 1024 * 1024
"""What one manifest set may hold in all: ten times an organization of 5,000 spaces and members.
Each file has its own limit (`docform.manifest.yaml_reader`); without this one, twenty files
just under it took 36 s and 2.4 GB to validate."""


def manifest_files(directory: FsPath) -> list[FsPath]:
    """The ``*.yaml``/``*.yml`` files under ``directory``, sorted; hidden folders are skipped,
    and so are links to files outside ``directory`` (`outside_links` names them). A write of
    several files killed half-way is finished first (`docform.manifest.file_set`)."""
    finish_interrupted(directory)
    root = directory.resolve()
    return [path for path in _candidates(directory) if path.resolve().is_relative_to(root)]


def outside_links(directory: FsPath) -> list[FsPath]:
    """Manifest files that are symbolic links to files outside ``directory``: never read (a
    link to ``/proc/self/environ`` or a file of another project would be)."""
    root = directory.resolve()
    return [path for path in _candidates(directory) if not path.resolve().is_relative_to(root)]


def _candidates(directory: FsPath) -> list[FsPath]:
    found = [
        path
        for path in directory.rglob("*")
        if path.suffix in SUFFIXES
        and path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(directory).parts)
    ]
    return sorted(found, key=lambda path: path.relative_to(directory).as_posix())


@dataclass
class SourceMap:
    """Finds where any path of the merged tree was written (the nearest written ancestor)."""

    owners: dict[Path, tuple[str, dict[Path, tuple[int, int]]]] = field(default_factory=dict)
    first_file: str = ""

    def own(self, prefix: Path, file: str, document: YamlDocument) -> None:
        self.owners.setdefault(prefix, (file, document.positions))

    def locate(self, path: Path) -> Location:
        owner = self.owners.get(path[:2]) or self.owners.get(path[:1])
        if owner is None:
            return Location(self.first_file, 1, 1)
        file, positions = owner
        for end in range(len(path), 0, -1):
            position = positions.get(path[:end])
            if position is not None:
                return Location(file, *position)
        return Location(file, 1, 1)


@dataclass
class MergedTree:
    """All sections merged across files, with their sources and the problems found so far."""

    sections: dict[str, Any] = field(default_factory=dict)
    sources: SourceMap = field(default_factory=SourceMap)
    problems: list[Problem] = field(default_factory=list)
    reported: set[Path] = field(default_factory=set)
    files: list[str] = field(default_factory=list)
    complete: bool = True


def read_directory(
    directory: FsPath, read_already: Mapping[FsPath, YamlFile] | None = None
) -> MergedTree:
    """Read and merge every manifest file under ``directory``; ``read_already`` holds files
    read before (by path as `manifest_files` lists it), which are not read again."""
    tree = MergedTree()
    total = 0
    for path in manifest_files(directory):
        name = path.relative_to(directory).as_posix()
        size = _size(path)
        # A file over its own limit is refused unread, with its own message.
        total += size if size <= MAX_FILE_BYTES else 0
        if total > MAX_SET_BYTES:
            _refuse_the_rest(tree, name, total)
            break
        tree.files.append(name)
        parsed = (read_already or {}).get(path) or read_yaml_file(path, name)
        tree.problems.extend(parsed.problems)
        tree.reported.update(parsed.reported)
        tree.complete = tree.complete and not parsed.fatal
        _merge_file(tree, parsed)
    for path in outside_links(directory):
        where = Location(path.relative_to(directory).as_posix(), 1, 1)
        message = (
            f"is a symbolic link to {path.resolve()}, outside the manifest directory; docform "
            "never reads through such a link: copy the file in, or remove the link"
        )
        tree.problems.append(Problem.at(where, (), message))
        tree.complete = False
    tree.sources.first_file = tree.files[0] if tree.files else ""
    return tree


def _size(path: FsPath) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # reading it reports why it cannot be read


def _refuse_the_rest(tree: MergedTree, name: str, total: int) -> None:
    limit = MAX_SET_BYTES // (1024 * 1024)
    message = (
        f"the manifest files up to this one hold {total} bytes, over the {limit} MB docform "
        "reads in one manifest set; this file and those after it were not read. Remove what is "
        "not a manifest (a generated or pasted file) from the directory"
    )
    tree.problems.append(Problem.at(Location(name, 1, 1), (), message))
    tree.complete = False


def _merge_file(tree: MergedTree, parsed: YamlFile) -> None:
    for document in parsed.documents:
        if document.value is None:
            continue
        if not isinstance(document.value, dict):
            where = Location(parsed.name, 1, 1)
            kind = type_name(document.value)
            tree.problems.append(
                Problem.at(where, (), f"a manifest file must be a mapping of sections, not {kind}")
            )
            tree.complete = False
            continue
        for section, value in document.value.items():
            _merge_section(tree, parsed.name, document, section, value)


def _merge_section(
    tree: MergedTree, file: str, document: YamlDocument, section: str, value: Any
) -> None:
    where = Location(file, *_position(document, (section,)))
    if section not in SECTIONS:
        hint = did_you_mean(section, SECTIONS) or f" (expected one of: {', '.join(SECTIONS)})"
        tree.problems.append(Problem.at(where, (section,), f"unknown section '{section}'{hint}"))
        return
    if section in SINGLE_ENTRY_SECTIONS:
        _add_entry(tree, file, document, (section,), value)
        return
    if value is None:
        return
    if not isinstance(value, dict):
        message = f"must be a mapping of names to entries, not {type_name(value)}"
        tree.problems.append(Problem.at(where, (section,), message))
        tree.reported.add((section,))
        return
    tree.sections.setdefault(section, {})
    tree.sources.own((section,), file, document)
    for name, entry in value.items():
        _add_entry(tree, file, document, (section, name), entry)


def _add_entry(tree: MergedTree, file: str, document: YamlDocument, path: Path, value: Any) -> None:
    here = Location(file, *_position(document, path))
    if path in tree.sources.owners:
        first = tree.sources.locate(path)
        message = f"defined twice (first at {first})"
        tree.problems.append(Problem.at(here, path, message))
        return
    tree.sources.own(path, file, document)
    section = str(path[0])  # a section's name, and an entry's below it
    if len(path) == 1:
        tree.sections[section] = value
    else:
        tree.sections[section][path[1]] = value


def _position(document: YamlDocument, path: Path) -> tuple[int, int]:
    """Where ``path`` was written, or its nearest written ancestor (values from aliases)."""
    for end in range(len(path), 0, -1):
        position = document.positions.get(path[:end])
        if position is not None:
            return position
    return (1, 1)


def type_name(value: Any) -> str:
    """The YAML word for a value's type, for messages."""
    names: Iterable[tuple[type, str]] = (
        (bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"),
        (list, "a list"), (dict, "a mapping"),
    )  # fmt: skip
    if value is None:
        return "null"
    return next((name for kind, name in names if isinstance(value, kind)), "a value")
