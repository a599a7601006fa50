"""One apply at a time per organization and API, on this machine.

Two applies that overlap both plan "create team Platform" and both create it (the API has no
lock of its own). The lock is a file per organization and API under the user's cache directory
(``$XDG_CACHE_HOME/docform/locks``, else ``~/.cache/docform/locks``; ``DOCFORM_LOCK_DIR``
overrides it), not in the manifest directory: two checkouts of one repository, or two
repositories that manage the same organization, share the organization, not a directory, and a
manifest directory may be read-only in CI.

The file holds the holder's pid, host and start time. A holder that died (killed, crashed)
leaves its file behind; the next apply on the same host sees that the pid no longer runs and
takes the lock over, so a stale lock never blocks for good. Applies on different machines (two
CI runners) are not serialised by this: CI must run applies to one organization one at a time
(docs/security.md); the re-read before creates (`docform.engine.duplicates`) catches the rest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docform.api.urls import service_identity
from docform.errors import DocformError
from docform.redact import redact_url

LOCK_DIR_VARIABLE = "DOCFORM_LOCK_DIR"


class ApplyLockError(DocformError):
    """Another apply to the same organization and API runs on this machine."""


def lock_directory() -> Path:
    explicit = os.environ.get(LOCK_DIR_VARIABLE, "").strip()
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(cache) if cache else Path.home() / ".cache") / "docform" / "locks"


def lock_path(api: str, organization: str) -> Path:
    """The lock file of ``organization`` at ``api``, however the URL of that service is spelled
    (`service_identity`: ``127.0.0.1``, ``localhost``, a ``/v1`` suffix)."""
    digest = hashlib.sha256(f"{service_identity(api)}\n{organization}".encode()).hexdigest()[:16]
    safe_org = "".join(c if c.isalnum() or c in "-_" else "_" for c in organization)[:40]
    return lock_directory() / f"{safe_org}-{digest}.lock"


@contextlib.contextmanager
def apply_lock(api: str, organization: str) -> Iterator[Path]:
    """Holds the apply lock of ``organization`` at ``api`` for the ``with`` block; raises
    `ApplyLockError` at once when a live apply holds it."""
    path = lock_path(api, organization)
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "organization": organization,
        "api": redact_url(api),
    }
    _acquire(path, mine)
    try:
        yield path
    finally:
        if _holder(path) == mine:
            path.unlink(missing_ok=True)


def _acquire(path: Path, mine: dict[str, Any]) -> None:
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            holder = _holder(path)
            if holder is not None and _is_alive(holder):
                raise ApplyLockError(_held_message(path, holder)) from None
            _take_over(path, holder)
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(mine, file)
        return
    raise ApplyLockError(
        f"could not take the apply lock {path}: another apply took it at the same moment; "
        "run apply again once it has finished"
    )


def _holder(path: Path) -> dict[str, Any] | None:
    """What the lock file says of its holder; None when it is unreadable (a holder that died
    between creating and writing it)."""
    try:
        holder = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def _is_alive(holder: dict[str, Any]) -> bool:
    """Whether the holder still runs; one on another host (a shared home directory) is taken
    to run, since its pid cannot be checked from here."""
    pid = holder.get("pid")
    if holder.get("host") != socket.gethostname():
        return True
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it runs, as another user
    return True


def _take_over(path: Path, dead: dict[str, Any] | None) -> None:
    """Removes the lock file of the ``dead`` holder. It is renamed first and checked: when
    another apply took the lock over in between, the file renamed is that apply's live one, and
    it is put back."""
    stale = path.with_name(f"{path.name}.stale-{os.getpid()}")
    try:
        os.replace(path, stale)
    except FileNotFoundError:
        return
    if _holder(stale) != dead:
        with contextlib.suppress(FileExistsError):
            os.link(stale, path)
    stale.unlink(missing_ok=True)


def _held_message(path: Path, holder: dict[str, Any]) -> str:
    return (
        f"another docform apply (pid {holder.get('pid')} on {holder.get('host')}, started "
        f"{holder.get('started')}) is changing organization {holder.get('organization')} at "
        f"{holder.get('api')}; nothing was applied. Wait for it to finish and run apply again "
        f"(plan first: it changes what is left to do). If no such process runs, delete {path}."
    )
