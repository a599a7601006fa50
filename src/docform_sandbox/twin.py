"""A twin of a live organization: a fresh sandbox, in memory, holding what docform read of the
organization (the entry point group ``docform.twins`` in pyproject.toml; docform's rehearsal,
`docform.workflow.rehearsal`, finds it there).

The twin is loaded from the GET answers planning recorded (`docform.api.recording`), each
by the loader of its route (`docform_sandbox.twin_registry`, `LOADERS`): the same ids, in the
same order, with the same settings. A recorded list of a route no loader knows is not loaded,
and the twin names its path (`Twin.not_loaded`), unless it was empty: then the twin holds the
same nothing. Its transport answers in-process, never over a network, so a rehearsal makes no
live call. After loading, the twin journals its writes (`Store.journal`), so that it can tell
which recorded answers it would still give as they were (`Twin.kept`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from docform_sandbox.plugin import require

if TYPE_CHECKING:
    import httpx

    from docform_sandbox.store import Store

TWIN_TOKEN = "docform-twin-token"  # the twin's own, known to no service
LOADERS = (
    "docform_sandbox.twin_loaders",
    "docform_sandbox.twin_site_loaders",
    "docform_sandbox.twin_setting_loaders",
    "docform_sandbox.twin_integration_loaders",
)
"""The modules whose loaders register themselves (`docform_sandbox.twin_registry.loads`)."""


class Recorded(Protocol):
    """One recorded answer (`docform.api.recording.RecordedRead`)."""

    @property
    def path(self) -> str: ...
    @property
    def query(self) -> Mapping[str, Any]: ...
    @property
    def body(self) -> Any: ...
    @property
    def listed(self) -> bool: ...


class Twin:
    """One twin: its store, what it could not load, and transports answering over it."""

    root_url = "https://api.twin.sandbox.test"
    token = TWIN_TOKEN

    def __init__(
        self, store: Store, not_loaded: list[str], watched: list[tuple[Recorded, frozenset[str]]]
    ) -> None:
        self.store = store
        self.not_loaded = not_loaded
        """The paths of recorded answers the twin holds nothing of, in the order read."""
        self._watched = watched

    def kept(self) -> list[Recorded]:
        """The recorded answers the twin would still give as they were, in the fields docform
        reads: those whose route declares what they watch, and no write since loading marked."""
        written = self.store.journal or set()
        return [read for read, marks in self._watched if not marks & written]

    def transport(self) -> httpx.AsyncBaseTransport:
        """A transport over the twin (`docform_sandbox.transport`); closing it leaves the twin
        as it is."""
        from docform_sandbox.app import SandboxConfig
        from docform_sandbox.transport import SandboxTransport

        caller = self.store.get_meta("twin_caller")
        config = SandboxConfig(admin_tokens=() if caller else (self.token,), audit=False)
        return SandboxTransport(":memory:", config, store=self.store)

    def close(self) -> None:
        self.store.close()


class TwinMaker:
    """What docform loads from the entry point: `build` makes a twin of recorded answers."""

    def build(self, reads: Iterable[Recorded]) -> Twin:
        require("starlette")
        from docform_sandbox.store import Store
        from docform_sandbox.twin_registry import load_answer, loaded_last, watched_by

        for module in LOADERS:
            importlib.import_module(module)
        store = Store(":memory:")
        not_loaded: list[str] = []
        watched: list[tuple[Recorded, frozenset[str]]] = []
        ordered = sorted(reads, key=lambda read: loaded_last(read.path, read.listed))
        with store.transaction():
            for read in ordered:
                loaded = load_answer(store, read.path, read.query, read.body, read.listed)
                if not loaded and not (read.listed and not read.body.get("items")):
                    not_loaded.append(read.path)
                marks = watched_by(read.path, read.body, read.listed) if loaded else None
                if marks is not None:
                    watched.append((read, marks))
            caller = store.get_meta("twin_caller")
            if caller is not None:
                store.insert("token", {"id": TWIN_TOKEN, "user": caller})
        store.journal = set()
        return Twin(store, not_loaded, watched)


TWINS = TwinMaker()
