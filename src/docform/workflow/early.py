"""What the reads need before the manifests are loaded: the organization's id and the API.

Reading the live organization does not wait for the whole manifest set: the files that write
``organization:`` or ``docform:`` (found in their text, like `docform.manifest.discover`) are
read first, and when they name the organization and the API plainly, reading starts while the
rest of the set loads in a worker thread. Those files are not read twice: loading takes them
as read (`load_manifest_set`'s ``read_already``).

Anything unusual (no such file, two organizations, a value with ``${env:...}``, which loading
refuses, a problem in those files) gives no early view: the set then loads first, as it always
did, and reports its problems the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docform.manifest import ManifestSet, load_manifest_set
from docform.manifest.sources import manifest_files
from docform.manifest.yaml_reader import MAX_FILE_BYTES, YamlFile, read_yaml_file
from docform.model.entry import ID_PATTERN, Location

_FIRST_KEYS = re.compile(r"^(?:organization|docform)\s*:", re.MULTILINE)
_ID = re.compile(ID_PATTERN)
MAX_ID_LENGTH = 255
"""The organization entry's limit: a longer id fails loading, so reading waits for it."""


@dataclass(frozen=True)
class EarlyOrganization:
    id: str


@dataclass(frozen=True)
class EarlySettings:
    api: str | None = None


@dataclass(frozen=True)
class EarlyView:
    """The parts of a manifest set that opening a client and starting the reads look at, with
    the names a `ManifestSet` gives them (`docform.workflow.connect.open_client` takes either)."""

    directory: Path
    organization: EarlyOrganization
    settings: EarlySettings = field(default_factory=EarlySettings)
    api_location: str | None = None


def load_seen_early(directory: Path, on_view: Callable[[EarlyView | None], Any]) -> ManifestSet:
    """`load_manifest_set` of ``directory``, calling ``on_view`` once the files naming the
    organization and the API are read (with None when they give no plain view), before the
    rest is read. Runs in a worker thread: ``on_view`` must hand its value over safely."""
    first = {}
    for path in _first_files(directory):
        first[path] = read_yaml_file(path, path.relative_to(directory).as_posix())
    on_view(early_view(directory, first))
    return load_manifest_set(directory, read_already=first)


def early_view(directory: Path, read: dict[Path, YamlFile]) -> EarlyView | None:
    """The organization's id and the ``docform: api`` URL written in ``read``, when exactly
    one organization with a plain id is written, at most one API URL, and nothing is wrong."""
    if any(parsed.problems for parsed in read.values()):
        return None
    ids: list[str] = []
    apis: list[tuple[str, Location]] = []
    for parsed in read.values():
        for document in parsed.documents:
            value = document.value if isinstance(document.value, dict) else {}
            if "organization" in value:
                entry = value["organization"]
                ids.append((_plain(entry.get("id")) if isinstance(entry, dict) else None) or "")
            settings = value.get("docform")
            if isinstance(settings, dict) and "api" in settings:
                where = Location(parsed.name, *document.positions[("docform", "api")])
                apis.append((_plain(settings["api"]) or "", where))
    if len(ids) != 1 or not _plain_id(ids[0]) or len(apis) > 1 or any(not a for a, _ in apis):
        return None
    organization = EarlyOrganization(ids[0])
    if not apis:
        return EarlyView(directory, organization)
    api, where = apis[0]
    return EarlyView(directory, organization, EarlySettings(api), str(where))


def _plain(value: Any) -> str | None:
    """``value`` if it is a string that loading keeps as written (no ``${env:...}``)."""
    return value if isinstance(value, str) and "${" not in value else None


def _plain_id(value: str) -> bool:
    return bool(_ID.match(value)) and len(value) <= MAX_ID_LENGTH


def _first_files(directory: Path) -> list[Path]:
    return [path for path in manifest_files(directory) if _writes_first_keys(path)]


def _writes_first_keys(path: Path) -> bool:
    try:
        # A file over the size limit is never read: the loader refuses it, with its location.
        if path.stat().st_size > MAX_FILE_BYTES:
            return False
        return bool(_FIRST_KEYS.search(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        return False
