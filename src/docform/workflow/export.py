"""Exporting one organization end to end: read it, turn it into entries, name, write.

Nothing is written until everything was read and built, so a failed read leaves the directory
as it was. The API token is never written; the API URL is, as ``docform: {api: ...}``, when it
holds no credentials, so that ``docform plan DIR`` needs only the token afterwards.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

from docform.api import ApiError
from docform.api.schemes import split_plugged, with_location
from docform.engine.capabilities import LocksOtherThanId
from docform.engine.client import ServiceClient
from docform.engine.live import Progress
from docform.engine.snapshot import read_live_state
from docform.export.document import build_sections
from docform.export.model import Exported, LiveRef
from docform.export.names import assign_names
from docform.export.writer import (
    SCHEMA_FILE,
    ExportError,
    check_target,
    render_yaml,
    schema_reference,
    write_files,
)
from docform.kind_registry import build_kinds, export_files, nested_order
from docform.manifest import ManifestError, load_manifest_set, schema_text
from docform.manifest.document import ENTRY_SECTIONS
from docform.manifest.lock import LOCK_NAME, write_lock
from docform.manifest.problems import Problem
from docform.manifest.sources import manifest_files
from docform.model.entry import ID_PATTERN, Entry, Location
from docform.untrusted.redact import holds_credentials

UNSET_VARIABLE = re.compile(r"environment variable '[^']*' is not set")


def _files() -> tuple[tuple[str, tuple[str, ...]], ...]:
    # The settings are written with the first kind's section (the organization's file).
    (first, names), *others = export_files()
    return ((first, ("docform", *names)), *others)


#: Which manifest sections go into which file, in order (each kind declares its file).
FILES: tuple[tuple[str, tuple[str, ...]], ...] = _files()


@dataclass
class ExportResult:
    """What was written (paths relative to the directory) and what the user should know."""

    directory: Path
    files: list[str] = field(default_factory=list)
    objects: int = 0
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    """What in the written manifests does not validate: live objects docform cannot manage
    as they are (an email that passes for another), written as they are for the user to
    see (`problems_written`)."""


async def export_organization(
    org_id: str,
    directory: Path,
    *,
    client: ServiceClient,
    api_url: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> ExportResult:
    """Write manifests of the live organization ``org_id`` into ``directory``, read through
    ``client`` (read-only); ``api_url`` becomes the ``docform: api`` setting when safe."""
    if not re.match(ID_PATTERN, org_id):
        raise ExportError(
            f"'{org_id}' is not an organization id (letters, digits, '_' and '-' only)"
        )
    check_target(directory, force)
    await _check_organization(client, org_id)
    entries = await read_entries(client, org_id, progress)
    built = build_sections(entries, assign_names(entries), nested_order())
    settings = api_setting(api_url, directory, built.notes)
    files = _manifest_texts({**built.sections, "docform": settings}, directory) | built.files
    stale = [name for name, _ in FILES if name not in files]
    write_files(directory, files, stale)
    ids = _lock_ids(org_id, built.ids)
    # A secret export cannot read is taken as set from the variable written for it.
    sources = {_address(path): held for path, held in built.sources.items()}
    write_lock(directory, org_id, ids, {a: s for a, s in sources.items() if a in ids})
    built.notes += _foreign_manifests(directory, files)
    written = sorted([*files, LOCK_NAME])
    return ExportResult(directory, written, len(entries), built.notes, problems_written(directory))


def problems_written(directory: Path) -> list[Problem]:
    """The problems validating the manifests written in ``directory`` finds, but for the
    variables it names that are not set here (export writes them for the user to set)."""
    try:
        load_manifest_set(directory)
    except ManifestError as exc:
        return [p for p in exc.problems if not UNSET_VARIABLE.search(p.message)]
    return []


def _lock_ids(org_id: str, ids: Mapping[tuple[str, ...], LiveRef]) -> dict[str, str]:
    """What docform.lock records for the exported entries, by plan address, for the kinds the
    lock ties (the entries pin no ``id``)."""
    # A kind whose lock line holds something else than an id (`Kind.lock_field`) is left out.
    tied = (kind for kind in build_kinds(org_id) if kind.locked and kind.lock_field is None)
    kinds = {kind.name: kind for kind in tied}
    lock: dict[str, str] = {}
    for path, ref in ids.items():
        kind = kinds.get(ref.kind)
        if kind is not None:
            held = kind.lock_id(ref.id) if isinstance(kind, LocksOtherThanId) else ref.id
            lock[_address(path)] = held
    return lock


def _address(path: tuple[str, ...]) -> str:
    """The plan address of the entry written at ``path`` (``sites, docs, sections, api``), as
    the loader binds it: the entry's model, its name, and the names of the entries holding it."""
    model: type[Entry] = ENTRY_SECTIONS[path[0]].entry
    for name in path[2::2]:
        model = _nested_entry(model, name)
    entry = model.model_construct()
    entry.bind(path, Location(path[0], 0, 0), path[1:-1:2])
    return entry.address


def _nested_entry(model: type[Entry], name: str) -> type[Entry]:
    """The entry model of the nested entries ``model`` holds under ``name``."""
    annotation = model.model_fields[name].annotation
    for arg in (annotation, *get_args(annotation)):
        if get_origin(arg) is dict:
            value = get_args(arg)[1]
            if isinstance(value, type) and issubclass(value, Entry):
                return value
    raise TypeError(f"{model.__name__}.{name} holds no entries")


def _manifest_texts(sections: Mapping[str, Any], directory: Path) -> dict[str, str]:
    """Each file of `FILES` that has a non-empty section, and the schema copy when needed."""
    files, schema = {}, schema_reference(directory)
    if schema is None:
        files[SCHEMA_FILE] = schema_text()
        schema = SCHEMA_FILE
    for name, keys in FILES:
        present = {key: sections[key] for key in keys if sections.get(key)}
        if present:
            files[name] = render_yaml(present, schema)
    return files


def _foreign_manifests(directory: Path, written: Mapping[str, str]) -> list[str]:
    """A note on manifest files export did not write (left there under --force)."""
    found = (path.relative_to(directory).as_posix() for path in manifest_files(directory))
    others = [name for name in found if name not in written]
    if not others:
        return []
    return [
        f"{directory} also holds {', '.join(others)}, which export did not write; "
        "remove them if they repeat exported entries"
    ]


async def _check_organization(client: ServiceClient, org_id: str) -> None:
    """A clear error, before anything else is read, when the organization cannot be seen."""

    try:
        await client.get(f"/orgs/{org_id}")
    except ApiError as exc:
        if exc.status in (403, 404):
            raise ExportError(
                f"organization '{org_id}' does not exist or this token cannot see it; check "
                "ORG_ID, DOCFORM_API_URL and DOCFORM_API_TOKEN"
            ) from None
        raise


async def read_entries(
    client: ServiceClient, org_id: str, progress: Progress | None = None
) -> list[Exported]:
    """Every live object of the organization as an entry, in the order the kinds read them."""
    kinds = build_kinds(org_id)
    live = await read_live_state(client, org_id, kinds, {}, progress)
    entries = []
    for kind in kinds:
        for raw in live.of(kind.name):
            entry = kind.export_entry(raw)
            if entry is not None:
                entry.created_at = raw.get("createdAt") or ""
                entries.append(entry)
    return entries


def api_setting(url: str | None, directory: Path, notes: list[str]) -> Mapping[str, str]:
    """``{api: URL}`` for the manifests, or nothing when the URL must not be written."""
    if not url:
        return {}
    if holds_credentials(url):
        notes.append("the API URL holds credentials, so it was not written: set DOCFORM_API_URL")
        return {}
    plugged = split_plugged(url)
    if plugged is not None:
        # A relative SCHEME:FILE path in the settings is relative to the manifest directory.
        relative = os.path.relpath(Path(plugged[1]).resolve(), directory.resolve())
        return {"api": with_location(url, relative)}
    return {"api": url}
