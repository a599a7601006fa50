"""Reading one YAML file safely into plain values, with the line and column of every key.

Values are built straight from the parser's events (never through a YAML constructor), so no
tag can run code and every mapping is checked for duplicate keys (plain PyYAML silently keeps
the last). Mapping keys are taken as written, as strings: ``no:`` is the key ``"no"``, not
False. Timestamps stay strings. Anything else unusual is refused with a located message:

- files over `MAX_FILE_BYTES` (refused before parsing) and text that is not UTF-8;
- aliases expanding to more than `MAX_ALIAS_NODES` values (the "billion laughs");
- more than `MAX_NODES` keys, values and documents in one file: below the size limit, a file of
  tiny values (``[1,1,1,...]``) would otherwise take seconds and hundreds of MB to build;
- more than `MAX_PROBLEMS` problems in one file (a pasted list of duplicate keys);
- nesting deeper than `MAX_DEPTH` (libyaml's own composer recurses without bound);
- tags other than the core scalar, mapping and sequence tags.

Merge keys (``<<: *defaults``) are supported; values that came from an alias or a merge are
located where the alias is used.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from docform.manifest.problems import Path, Problem
from docform.model.entry import Location

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_ALIAS_NODES = 50_000
MAX_DEPTH = 64
# Real manifests spend 15 or more bytes per node: 10,000 members and 200 teams are ~80,000.
MAX_NODES = 250_000
MAX_PROBLEMS = 100

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TAG = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_TAG + "str", _TAG + "timestamp", _TAG + "merge"}
_CONSTRUCTED_TAGS = {_TAG + "null", _TAG + "bool", _TAG + "int", _TAG + "float"}
_MAP_TAGS = {None, "!", _TAG + "map"}
_SEQ_TAGS = {None, "!", _TAG + "seq"}
_SCALARS = SafeConstructor()
_MERGE = object()
_COUNTED_EVENTS = frozenset(
    {yaml.DocumentStartEvent, yaml.AliasEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent}
)
_BAD_KEY = object()
# The first characters for which the loader has an implicit tag (null, bool, int, float,
# merge...); a plain scalar starting with any other is a string, with no regex tried (unless
# a resolver applies to any first character: the key None).
_RESOLVED_STARTS = frozenset(Loader.yaml_implicit_resolvers)
_SHORTCUT = None not in _RESOLVED_STARTS


@dataclass
class YamlDocument:
    """One document of a file: its value and the (line, column) of each path written in it."""

    value: Any
    positions: dict[Path, tuple[int, int]]


@dataclass
class YamlFile:
    """A file's documents; ``problems`` found while reading; ``reported`` paths already blamed."""

    name: str
    documents: list[YamlDocument] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    reported: set[Path] = field(default_factory=set)
    fatal: bool = False

    def refuse(self, line: int, column: int, message: str) -> YamlFile:
        """Drop what was read: the file as a whole cannot be trusted."""
        self.documents = []
        self.fatal = True
        self.problems.append(Problem(self.name, line, column, "", message))
        return self


def read_yaml_file(path: FsPath, name: str) -> YamlFile:
    """Read ``path`` (shown as ``name`` in problems) within the size and encoding limits."""
    result = YamlFile(name)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            limit = MAX_FILE_BYTES // (1024 * 1024)
            return result.refuse(1, 1, f"file is {size} bytes, over the {limit} MB limit")
        data = path.read_bytes()
    except OSError as exc:
        return result.refuse(0, 0, f"cannot read the file: {exc.strerror or exc}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start]
        return result.refuse(line, column, f"not UTF-8 text (byte 0x{byte:02x}); save as UTF-8")
    return parse_yaml(text.removeprefix("\ufeff"), name)


def parse_yaml(text: str, name: str) -> YamlFile:
    """Parse every document of ``text``; problems are located in the file called ``name``."""
    result = YamlFile(name)
    loader = Loader(text)
    try:
        _Builder(loader, result).run()
    except _Refused as refused:
        result.refuse(*refused.args)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        result.refuse(line, column, f"invalid YAML: {_yaml_reason(exc)}")
    except yaml.YAMLError as exc:
        position = getattr(exc, "position", 0) or 0
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        reason = getattr(exc, "reason", None) or str(exc).splitlines()[0]
        result.refuse(line, column, f"invalid YAML: {reason}")
    finally:
        loader.dispose()
    return result


def _short(tag: str) -> str:
    """A tag as usually written: ``!!python/object`` rather than its full URI."""
    return "!!" + tag.removeprefix(_TAG) if tag.startswith(_TAG) else tag


def _yaml_reason(exc: yaml.MarkedYAMLError) -> str:
    parts = [exc.context, exc.problem]
    return ", ".join(part for part in parts if part) or "syntax error"


class _Refused(Exception):
    """Stop reading the file: (line, column, message)."""


class _Frame:
    """A mapping or sequence being built, with the key awaiting its value (mappings)."""

    __slots__ = (
        "anchor", "container", "is_map", "key", "key_position", "lines", "merges", "path", "size",
    )  # fmt: skip

    def __init__(self, container: dict[str, Any] | list[Any], path: Path, anchor: str | None):
        self.container = container
        self.is_map = isinstance(container, dict)
        self.path = path
        self.anchor = anchor
        self.size = 1
        self.key: Any = None
        self.key_position = (0, 0)
        self.lines: dict[str, int] = {}
        self.merges: list[tuple[Any, tuple[int, int]]] = []


class _Builder:
    """Turns parser events into plain values and positions (one pass, no recursion)."""

    def __init__(self, loader: Any, result: YamlFile):
        self.loader = loader
        self.result = result
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.expanded = 0
        self.stack: list[_Frame] = []
        self.positions: dict[Path, tuple[int, int]] = {}
        self.root: Any = None
        self.nodes = 0

    def run(self) -> None:
        handlers = {
            yaml.DocumentStartEvent: self._document_start,
            yaml.DocumentEndEvent: self._document_end,
            yaml.AliasEvent: self._alias,
            yaml.MappingStartEvent: self._collection_start,
            yaml.SequenceStartEvent: self._collection_start,
            yaml.MappingEndEvent: self._collection_end,
            yaml.SequenceEndEvent: self._collection_end,
        }
        check_event, get_event, scalar = (
            self.loader.check_event,
            self.loader.get_event,
            self._scalar,
        )
        problems = self.result.problems
        # Scalars are most of the events: they skip the handler table.
        while check_event():
            event = get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                self.nodes += 1
                if self.nodes > MAX_NODES or len(problems) > MAX_PROBLEMS:
                    self._stop_if_over(event)
                scalar(event)
                continue
            handler = handlers.get(kind)
            if handler is not None:
                if kind in _COUNTED_EVENTS:
                    self._count(event)
                handler(event)

    def _count(self, event: Any) -> None:
        self.nodes += 1
        self._stop_if_over(event)

    def _stop_if_over(self, event: Any) -> None:
        """Stop at the node budget, and once a file has shown enough problems to act on."""
        if self.nodes > MAX_NODES:
            mark = event.start_mark
            raise _Refused(
                mark.line + 1,
                mark.column + 1,
                f"over {MAX_NODES} keys and values in one file; split it into several files",
            )
        if len(self.result.problems) > MAX_PROBLEMS:
            line, column = self.result.problems[-1].line, self.result.problems[-1].column
            raise _Refused(line, column, f"over {MAX_PROBLEMS} problems; fix these first")

    def _document_start(self, event: Any) -> None:
        self.stack, self.positions, self.root, self.anchors = [], {}, None, {}

    def _document_end(self, event: Any) -> None:
        self.result.documents.append(YamlDocument(self.root, self.positions))

    def _problem(self, position: tuple[int, int], path: Path, message: str) -> None:
        location = Location(self.result.name, *position)
        self.result.problems.append(Problem.at(location, path, message))
        self.result.reported.add(path)

    def _expecting_key(self) -> bool:
        top = self.stack[-1] if self.stack else None
        return top is not None and top.is_map and top.key is None

    def _child_path(self) -> Path:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if not top.is_map:
            return (*top.path, len(top.container))
        key = "<<" if top.key is _MERGE else top.key
        return (*top.path, key) if isinstance(key, str) else top.path

    def _mark_item(self, mark: Any) -> tuple[int, int]:
        position = (mark.line + 1, mark.column + 1)
        top = self.stack[-1] if self.stack else None
        if top is not None and not top.is_map:
            self.positions[(*top.path, len(top.container))] = position
        return position

    def _scalar(self, event: Any) -> None:
        position = self._mark_item(event.start_mark)
        top = self.stack[-1] if self.stack else None
        if top is not None and top.is_map and top.key is None:
            self._key(event, position)
            return
        value = event.value
        # The common case, a plain scalar no resolver applies to, is the text as written.
        if not (_SHORTCUT and event.tag is None and event.implicit[0] and value[:1]) or (
            value[0] in _RESOLVED_STARTS
        ):
            value = self._scalar_value(event, position)
        if top is None or event.anchor is not None:
            self._attach(value, 1, event.anchor)
        else:
            _put(top, value, 1)

    def _key(self, event: Any, position: tuple[int, int]) -> None:
        top = self.stack[-1]
        key: Any = event.value
        if key[:1] == "<" or event.tag is not None:
            tag = event.tag
            if tag is None or tag == "!":
                tag = self._implicit_tag(event)
            key = _MERGE if tag == _TAG + "merge" else key
        if key is not _MERGE and key in top.lines:
            path = (*top.path, key)
            self._problem(position, path, f"duplicate key (first at line {top.lines[key]})")
            key = _BAD_KEY
        elif key is not _MERGE:
            top.lines[key] = position[0]
            self.positions[(*top.path, key)] = position
        top.key = key
        top.key_position = position

    def _scalar_value(self, event: Any, position: tuple[int, int]) -> Any:
        explicit = event.tag not in (None, "!")
        tag = event.tag if explicit else self._implicit_tag(event)
        if tag in _CONSTRUCTED_TAGS:
            node = yaml.ScalarNode(tag, event.value)
            return _SCALARS.yaml_constructors[tag](_SCALARS, node)
        # Implicit tags other than the core ones (YAML 1.1's "=" value tag) read as text.
        if tag in _PLAIN_TAGS or not explicit:
            return event.value
        self._problem(position, self._child_path(), f"unsupported YAML tag '{_short(tag)}'")
        return None

    def _implicit_tag(self, event: Any) -> str:
        """The tag the loader's resolver gives a scalar written without one."""
        value = event.value
        if _SHORTCUT and event.implicit[0] and value and value[0] not in _RESOLVED_STARTS:
            return _TAG + "str"
        tag: str = self.loader.resolve(yaml.ScalarNode, value, event.implicit)
        return tag

    def _alias(self, event: Any) -> None:
        position = self._mark_item(event.start_mark)
        if event.anchor not in self.anchors:
            raise _Refused(*position, f"undefined alias '*{event.anchor}'")
        value, size = self.anchors[event.anchor]
        self.expanded += size
        if self.expanded > MAX_ALIAS_NODES:
            raise _Refused(*position, f"aliases expand to over {MAX_ALIAS_NODES} values")
        if self._expecting_key():
            if not isinstance(value, str):
                raise _Refused(*position, "a mapping key must be a plain string")
            self._key(yaml.ScalarEvent(None, _TAG + "str", (False, False), value), position)
            return
        self._attach(copy.deepcopy(value), size, None)

    def _collection_start(self, event: Any) -> None:
        position = self._mark_item(event.start_mark)
        if self._expecting_key():
            raise _Refused(*position, "a mapping key must be a plain string, not a collection")
        if len(self.stack) >= MAX_DEPTH:
            raise _Refused(*position, f"nested deeper than {MAX_DEPTH} levels")
        is_map = isinstance(event, yaml.MappingStartEvent)
        path = self._child_path()
        if event.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
            self._problem(position, path, f"unsupported YAML tag '{_short(event.tag)}'")
        container: dict[str, Any] | list[Any] = {} if is_map else []
        self.stack.append(_Frame(container, path, event.anchor))

    def _collection_end(self, event: Any) -> None:
        frame = self.stack.pop()
        if frame.merges:
            self._merge(frame)
        self._attach(frame.container, frame.size, frame.anchor)

    def _merge(self, frame: _Frame) -> None:
        assert isinstance(frame.container, dict)
        for value, position in frame.merges:
            sources = value if isinstance(value, list) else [value]
            if not all(isinstance(source, dict) for source in sources):
                self._problem(position, frame.path, "'<<' must merge a mapping or a list of them")
                continue
            for source in sources:
                for key, item in source.items():
                    if key not in frame.container:
                        frame.container[key] = item
                        self.positions.setdefault((*frame.path, key), position)

    def _attach(self, value: Any, size: int, anchor: str | None) -> None:
        if anchor is not None:
            self.anchors[anchor] = (value, size)
        if not self.stack:
            self.root = value
            return
        _put(self.stack[-1], value, size)


def _put(top: _Frame, value: Any, size: int) -> None:
    """Add ``value`` (``size`` nodes) to the container being built: the next item of a list,
    or the value of the key read last."""
    top.size += size
    if isinstance(top.container, list):
        top.container.append(value)
        return
    key, top.key = top.key, None
    if key is _MERGE:
        top.merges.append((value, top.key_position))
    elif key is not _BAD_KEY:
        top.container[key] = value
