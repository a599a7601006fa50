"""Editing manifest files in place, keeping everything people wrote that is not edited.

``docform adopt`` writes live values into the user's own files. ruamel.yaml's round-trip mode
reads a file into mappings and lists that remember their comments, key order, anchors and
merge keys, quoting, flow style and blank lines, and writes them back byte for byte where
nothing changed; this module makes the few edits adopt needs on top of it, in the style of
what they replace (a value once quoted stays quoted, a one-line mapping stays on one line):

- set or drop fields of an entry, which may be written as a shorthand scalar
  (``alice@acme.test: admin``);
- remove an entry, taking the comment lines just above it along, but not the blank lines or
  comments that lead to the next one;
- add an entry to a section, in the file and document that hold the section.

An entry that another merges (``<<: *defaults``) keeps lending the others the values they had:
before one of its fields changes, each mapping merging it without its own value for the field
gets the old value written out.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    ScalarString,
    SingleQuotedScalarString,
)

from docform.errors import DocformError
from docform.manifest.yaml_comments import (
    append_tail,
    drop_first_header,
    drop_header_lines,
    leading_comments,
    set_header,
    take_tail,
)

FLOW_WIDTH = 88
"""A new mapping of plain values shorter than this is written on one line (as export does)."""
_INDENTED = re.compile(r"^( *)(- +)?\S")
Shorthand = Callable[[Any], str | None]
"""The field a scalar written for a whole entry stands for (a member's role), or None."""


class EditError(DocformError):
    """A manifest file cannot be edited in place."""


class ManifestFile:
    """One manifest file read for round-trip editing; `text` renders it with the edits."""

    def __init__(self, path: Path, name: str) -> None:
        self.name = name
        self.original = path.read_text(encoding="utf-8")
        self._yaml = _round_trip(self.original)
        try:
            self.documents: list[Any] = list(self._yaml.load_all(self.original))
        except YAMLError as exc:
            raise EditError(f"{name}: cannot be read for editing: {exc}") from None
        _keep_anchors(self.documents)

    def text(self) -> str:
        out = io.StringIO()
        markers = _document_markers(self.original)
        if len(markers) != len(self.documents):
            markers = [(self.original.lstrip().startswith("---"), False)] * len(self.documents)
        for document, (start, end) in zip(self.documents, markers, strict=True):
            self._yaml.explicit_start, self._yaml.explicit_end = start, end
            self._yaml.dump(document, out)
        return out.getvalue()

    def holder(self, path: tuple[str, ...]) -> tuple[CommentedMap, str] | None:
        """The mapping holding the entry at ``path`` (``('teams', 'platform')``) and its key."""
        for document in self.documents:
            node: Any = document
            for key in path[:-1]:
                node = node.get(key) if isinstance(node, CommentedMap) else None
            if isinstance(node, CommentedMap) and path[-1] in node:
                return node, path[-1]
        return None

    def top_level(self) -> CommentedMap | None:
        """The first document that is a mapping (where a new section goes)."""
        return next((d for d in self.documents if isinstance(d, CommentedMap)), None)

    # -- edits --------------------------------------------------------------------------------

    def set_fields(
        self,
        path: tuple[str, ...],
        values: Mapping[str, Any],
        dropped: set[str],
        shorthand: Shorthand,
    ) -> None:
        """Give the entry at ``path`` ``values`` and leave out ``dropped`` fields."""
        holder, key = self._holder(path)
        entry = holder[key]
        if not isinstance(entry, CommentedMap):
            entry = _expanded(entry, shorthand)
        for name, value in values.items():
            old = entry.get(name)
            self._lend_merged_value(entry, name)
            entry[name] = styled(value, like=old)
        for name in dropped:
            self._lend_merged_value(entry, name)
            if name in entry._ok:  # only what the entry itself writes, not what it merges
                del entry[name]
        holder[key] = _shortened(entry, shorthand, like=holder[key])

    def remove_entry(self, path: tuple[str, ...]) -> None:
        holder, key = self._holder(path)
        self._refuse_merged(holder[key], path)
        if len(holder) == 1 and len(path) > 1:
            # An empty mapping left behind would be written `{}` after the comments that led
            # to its entries (not valid YAML when they end in a blank line): it goes too.
            self.remove_entry(path[:-1])
            return
        keys = list(holder)
        at = keys.index(key)
        tail = take_tail(holder[key])
        header = holder.ca.items.pop(key, None)
        if at == 0:
            outer = self.holder(path[:-1]) if len(path) > 1 else None
            drop_first_header(holder, outer)
        if at > 0:
            drop_header_lines(holder, keys[at - 1])
            append_tail(holder, keys[at - 1], tail)
        elif at + 1 < len(keys):
            column = holder.lc.key(keys[at + 1])[1]
            set_header(holder, keys[at + 1], leading_comments(tail), column)
        del holder[key]
        del header  # the comment lines right above the entry go with it

    def add_entry(self, path: tuple[str, ...], name: str, fields: Mapping[str, Any]) -> None:
        """``fields`` under ``name`` at the end of the mapping at ``path`` (a section, or a
        site's ``sections``), made when missing: a section in the first document."""
        mapping = self.mapping(path)
        if mapping is None:
            within = self.mapping(path[:-1]) if len(path) > 1 else self.top_level()
            if within is None:
                raise EditError(f"{self.name}: holds no mapping to add {'.'.join(path)} to")
            within[path[-1]] = mapping = CommentedMap()
        mapping[name] = styled(dict(fields), like=_sibling(mapping))

    def mapping(self, path: tuple[str, ...]) -> CommentedMap | None:
        """The mapping at ``path`` in the first document holding one."""
        found = self.holder(path)
        if found is None:
            return None
        holder, key = found
        return holder[key] if isinstance(holder[key], CommentedMap) else None

    def _holder(self, path: tuple[str, ...]) -> tuple[CommentedMap, str]:
        found = self.holder(path)
        if found is None:
            raise EditError(f"{self.name}: no entry at {'.'.join(path)}; was the file changed?")
        return found

    def _refuse_merged(self, entry: Any, path: tuple[str, ...]) -> None:
        for mapping in _mappings(self.documents):
            if any(m is entry for m in getattr(mapping, "merge", [])):
                raise EditError(
                    f"{self.name}: {'.'.join(path)} is merged into another entry (<<: *"
                    f"{entry.anchor.value}); move the values it lends there, then adopt again"
                )

    def _lend_merged_value(self, entry: CommentedMap, name: str) -> None:
        """Before ``entry`` changes ``name``, write its current value into every mapping that
        merges ``entry`` and takes that value from it."""
        if name not in entry:
            return
        for mapping in _mappings(self.documents):
            merged = getattr(mapping, "merge", [])
            if any(m is entry for m in merged) and name not in mapping._ok:
                mapping[name] = entry[name]


def _round_trip(text: str) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line that was written on one
    mapping, offset = _indentation(text)
    yaml.indent(mapping=mapping, sequence=mapping + offset, offset=offset)
    return yaml


def _indentation(text: str) -> tuple[int, int]:
    """How the file indents: a nested mapping's step, and a list dash's step under its key."""
    step, dash = None, None
    previous = None
    for line in text.splitlines():
        found = _INDENTED.match(line)
        if found is None or line.lstrip().startswith("#"):
            continue
        column = len(found.group(1))
        if previous is not None and previous.rstrip().endswith(":"):
            base = len(previous) - len(previous.lstrip())
            if found.group(2) and dash is None:
                dash = column - base
            elif not found.group(2) and step is None and column > base:
                step = column - base
        previous = line
        if step is not None and dash is not None:
            break
    return step or 2, dash if dash is not None else (step or 2)


def _document_markers(text: str) -> list[tuple[bool, bool]]:
    """Whether each document of ``text`` starts with ``---`` and ends with ``...``, as written
    (the round trip writes only what it is told to)."""
    markers: list[list[bool]] = []
    open_document = False
    for line in text.splitlines():
        if _DOCUMENT_START.match(line):
            markers.append([True, False])
            open_document = True
        elif _DOCUMENT_END.match(line):
            if markers and open_document:
                markers[-1][1] = True
            open_document = False
        elif line.strip() and not line.lstrip().startswith("#") and not open_document:
            markers.append([False, False])
            open_document = True
    return [(start, end) for start, end in markers]


_DOCUMENT_START = re.compile(r"^---(\s|$)")
_DOCUMENT_END = re.compile(r"^\.\.\.\s*$")


def _keep_anchors(documents: list[Any]) -> None:
    """An anchor whose aliases an edit removed is still written, as the user wrote it."""
    for node in _nodes(documents):
        anchor = getattr(node, "anchor", None)
        if anchor is not None and anchor.value:
            anchor.always_dump = True


def _nodes(value: Any) -> Iterator[Any]:
    seen: set[int] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, CommentedMap):
            stack.extend([node[k] for k in node._ok])
            stack.extend(getattr(node, "merge", []))
        elif isinstance(node, list):
            stack.extend(node)


def _mappings(documents: list[Any]) -> Iterator[CommentedMap]:
    return (node for node in _nodes(documents) if isinstance(node, CommentedMap))


# -- values ------------------------------------------------------------------------------------


def styled(value: Any, like: Any = None) -> Any:
    """``value`` for writing where ``like`` was: a string keeps its quoting, a mapping or list
    its one-line or block style; new short mappings of plain values go on one line. A string
    is quoted where docform's reader (YAML 1.1) would read it as something else (``yes``, a
    time ``12:30``) or where it holds a line break or a control character."""
    if isinstance(value, str):
        return _text_styled(value, like)
    if isinstance(value, Mapping):
        mapping = CommentedMap((k, styled(v, _get(like, k))) for k, v in value.items())
        mapping.fa.set_flow_style() if _one_line(value, like) else mapping.fa.set_block_style()
        return mapping
    if isinstance(value, list):
        items = CommentedSeq(styled(v) for v in value)
        flow = like.fa.flow_style() if isinstance(like, CommentedSeq) else _plain_list(value)
        items.fa.set_flow_style() if flow else items.fa.set_block_style()
        return items
    return value


_ESCAPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
"""Characters a YAML text keeps only as escapes in double quotes (a NEL written raw reads back
as a space)."""
_READ_AS = yaml.resolver.Resolver()


def _text_styled(value: str, like: Any) -> Any:
    if _LONE_SURROGATE.search(value):
        raise EditError(
            f"the value {value!r} holds a lone surrogate, which no YAML file can hold: write "
            "it by hand"
        )
    if _ESCAPED.search(value) or "\n" in value or "\r" in value:
        return DoubleQuotedScalarString(value)
    if isinstance(like, ScalarString):
        return type(like)(value)
    tag = _READ_AS.resolve(yaml.ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    if tag != "tag:yaml.org,2002:str":
        return SingleQuotedScalarString(value)
    return value


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def unwritable(value: Any) -> str | None:
    """Why ``value`` (strings, mappings, lists) cannot be written into a YAML file, or None."""
    if isinstance(value, str):
        return (
            "it holds a lone surrogate, which no YAML file can hold"
            if _LONE_SURROGATE.search(value)
            else None
        )
    items = (
        list(value.items())
        if isinstance(value, Mapping)
        else value
        if isinstance(value, list)
        else []
    )
    for item in items:
        parts = item if isinstance(item, tuple) else (item,)
        for part in parts:
            why = unwritable(part)
            if why:
                return why
    return None


def _get(like: Any, key: Any) -> Any:
    return like.get(key) if isinstance(like, Mapping) else None


def _one_line(value: Mapping[str, Any], like: Any) -> bool:
    if isinstance(like, CommentedMap):
        return bool(like.fa.flow_style())
    plain = all(_plain(v) or _plain_list(v) for v in value.values())
    return plain and len(str(dict(value))) <= FLOW_WIDTH


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _plain_list(value: Any) -> bool:
    return isinstance(value, list) and all(_plain(v) for v in value)


def _sibling(mapping: CommentedMap) -> Any:
    """The last entry of a section, whose style a new entry follows."""
    return mapping[next(reversed(mapping))] if mapping else None


def _expanded(scalar: Any, shorthand: Shorthand) -> CommentedMap:
    name = shorthand(scalar)
    if name is None:
        raise EditError(f"cannot tell which field the value {scalar!r} stands for")
    entry = CommentedMap([(name, scalar)])
    entry.fa.set_flow_style()
    return entry


def _shortened(entry: CommentedMap, shorthand: Shorthand, like: Any) -> Any:
    """The entry as the scalar it was written as, when one field is all it has again."""
    if isinstance(like, CommentedMap) or len(entry) != 1:
        return entry
    ((name, value),) = entry.items()
    return value if _plain(value) and shorthand(value) == name else entry
