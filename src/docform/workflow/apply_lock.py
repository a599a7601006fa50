"""One apply at a time per organization and API, on this machine.

Two applies that overlap both plan "create team Platform" and both create it (the API has no
lock of its own). The lock is a file per organization and API under the user's cache directory
(``$XDG_CACHE_HOME/docform/locks``, else ``~/.cache/docform/locks``; ``DOCFORM_LOCK_DIR``
overrides it), not in the manifest directory: two checkouts of one repository, or two
repositories that manage the same organization, share the organization, not a directory, and a
manifest directory may be read-only in CI.

The lock is the operating system's: an exclusive lock on the file (flock, or LockFileEx on
Windows, through `filelock`), taken without waiting, which the kernel lets go of when its holder
ends however it ends (killed, crashed). So a lock is never stale, and no apply ever takes one
over from another. Beside the lock, a small file says who holds it (pid, host, start time), for
the message another apply shows. Applies on different machines (two CI runners) are not
serialised by this: CI must run applies to one organization one at a time (docs/security.md);
the re-read before creates (`docform.engine.duplicates`) catches the rest.
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

from filelock import FileLock, Timeout

from docform.api.urls import service_identity
from docform.errors import DocformError
from docform.untrusted.redact import redact_url

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


def holder_path(path: Path) -> Path:
    """The file beside the lock ``path`` that says who holds it."""
    return path.with_name(path.name + ".holder")


@contextlib.contextmanager
def apply_lock(api: str, organization: str) -> Iterator[Path]:
    """Holds the apply lock of ``organization`` at ``api`` for the ``with`` block; raises
    `ApplyLockError` at once when another apply holds it."""
    path = lock_path(api, organization)
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "organization": organization,
        "api": redact_url(api),
    }
    # The lock file stays when released: removing it would let a waiting opener lock a file
    # no longer in the directory while a third creates and locks a new one.
    lock = FileLock(path, timeout=0, thread_local=False, preserve_lock_file=True)
    try:
        lock.acquire()
    except Timeout:
        raise ApplyLockError(_held_message(path, _holder(holder_path(path)))) from None
    try:
        holder_path(path).write_text(json.dumps(mine), encoding="utf-8")
        yield path
    finally:
        holder_path(path).unlink(missing_ok=True)
        lock.release()


def _holder(path: Path) -> dict[str, Any]:
    """What the holder's file says of it; empty when it is not (yet) written."""
    try:
        holder = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def _held_message(path: Path, holder: dict[str, Any]) -> str:
    who = (
        f"another docform apply (pid {holder.get('pid')} on {holder.get('host')}, started "
        f"{holder.get('started')}) is changing organization {holder.get('organization')} at "
        f"{holder.get('api')}"
        if holder
        else f"another docform apply holds the lock {path}"
    )
    return (
        f"{who}; nothing was applied. Wait for it to finish and run apply again (plan first: "
        "it changes what is left to do)."
    )
