"""Writing an export: readable YAML files with the schema line, and the files they refer to.

Every manifest file starts with the ``yaml-language-server`` line, pointing at the
``schemas/docform.schema.json`` of an enclosing repository when there is one, else at a copy
written into the directory itself. Short mappings of plain values (a member, a team's members)
are written on one line, everything else as indented blocks; nothing depends on time or on the
order the API lists objects in, so the same organization always gives the same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from docform.errors import DocformError
from docform.untrusted.lookalikes import misread_when_raw

SCHEMA_FILE = "docform.schema.json"
SCHEMA_IN_REPOSITORY = Path("schemas") / SCHEMA_FILE
MODELINE = "# yaml-language-server: $schema={}\n"
FLOW_WIDTH = 88
"""A mapping of plain values shorter than this is written on one line."""


class ExportError(DocformError):
    """The export cannot be written where it was asked to be."""


class _FlowMap(dict[str, Any]):
    """A mapping to write on one line."""


class _Dumper(yaml.SafeDumper):
    """Block style, except for `_FlowMap` and lists of plain values."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
        # Lists indented under their key, as people write them.
        return super().increase_indent(flow, False)


def _represent_flow(dumper: yaml.SafeDumper, data: _FlowMap) -> Any:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=True)


def _represent_block(dumper: yaml.SafeDumper, data: dict[str, Any]) -> Any:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=False)


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> Any:
    flow = _is_plain_list(data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(_FlowMap, _represent_flow)
_Dumper.add_representer(dict, _represent_block)
_Dumper.add_representer(list, _represent_list)


def _is_plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _is_plain_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_plain(v) for v in value)


def _styled(value: Any, *, one_line: bool = True) -> Any:
    """``value`` with short mappings of plain values marked for one-line writing; with
    ``one_line`` false, ``value`` itself stays a block (its contents may still be marked)."""
    if isinstance(value, Mapping):
        inner = {k: _styled(v) for k, v in value.items()}
        flat = all(_is_plain(v) or _is_plain_list(v) for v in value.values())
        if one_line and flat and len(str(value)) <= FLOW_WIDTH:
            return _FlowMap(inner)
        return inner
    if isinstance(value, list):
        return [_styled(v) for v in value]
    return value


def render_yaml(sections: Mapping[str, Any], schema: str) -> str:
    """One manifest file: the schema line, then ``sections`` in the order given.

    Text is written as it reads (``Zürich``), except in a file holding an invisible,
    direction-changing or control character or a Unicode line break: YAML writes those raw,
    where a reader sees another text than the file holds (and reads a NEL back as a space),
    so that file writes every character beyond ASCII
    as an escape (``"eve\\u202E@acme.test"``), which reads back as itself."""
    # A section is always a block, even when it would fit on one line.
    styled = {key: _styled(value, one_line=False) for key, value in sections.items()}
    readable = not _holds_invisible(sections)
    body: str = yaml.dump(
        styled, Dumper=_Dumper, sort_keys=False, allow_unicode=readable, width=100
    )
    return MODELINE.format(schema) + body


def _holds_invisible(value: Any) -> bool:
    if isinstance(value, str):
        return misread_when_raw(value)
    if isinstance(value, Mapping):
        return any(_holds_invisible(k) or _holds_invisible(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_invisible(item) for item in value)
    return False


def check_target(directory: Path, force: bool) -> None:
    """Refuse a file, or a non-empty directory unless ``force``."""
    if directory.exists() and not directory.is_dir():
        raise ExportError(f"{directory} is a file; give a directory to export into")
    if force or not directory.exists():
        return
    present = sorted(p.name for p in directory.iterdir())
    if present:
        shown = ", ".join(present[:5]) + (", ..." if len(present) > 5 else "")
        raise ExportError(
            f"{directory} is not empty (it holds {shown}); export into a new or empty "
            "directory, or pass --force to overwrite the files export writes"
        )


def schema_reference(directory: Path) -> str | None:
    """The schema path relative to ``directory`` when an enclosing repository has one."""
    start = directory.resolve()
    for folder in (start, *start.parents):
        if (folder / SCHEMA_IN_REPOSITORY).is_file():
            return Path(os.path.relpath(folder / SCHEMA_IN_REPOSITORY, start)).as_posix()
        if (folder / ".git").exists():
            return None
    return None


def write_files(directory: Path, files: Mapping[str, str], stale: list[str]) -> None:
    """Write ``files`` (relative path -> text) and remove ``stale`` files of an earlier export.

    Nothing is written or removed through a symbolic link: a link in the directory (a file, or
    a folder like ``certs``) could point anywhere, and ``--force`` would overwrite what it
    points at.
    """
    root = directory.resolve()
    try:
        for relative in [*files, *stale]:
            _refuse_links(directory, root, relative)
        for relative, text in files.items():
            path = directory / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_no_follow(path, text)
        for relative in stale:
            (directory / relative).unlink(missing_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot write the export into {directory}: {exc.strerror}") from None


def _refuse_links(directory: Path, root: Path, relative: str) -> None:
    """Raise when ``relative``, or a folder on its way, is a symbolic link."""
    path = directory
    for part in Path(relative).parts:
        path = path / part
        if path.is_symlink():
            target = path.resolve()
            where = "outside" if not target.is_relative_to(root) else "inside"
            raise ExportError(
                f"{path} is a symbolic link to {target} ({where} {directory}); export never "
                "writes through a link: remove the link, or export into another directory"
            )


def _write_no_follow(path: Path, text: str) -> None:
    """Write ``path``, refusing to follow a link that appeared since it was checked."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8") as file:
        file.write(text)
