"""Keeping ``docform.lock`` in step with what an apply matched and created.

The lock is written before the first call (every entry the plan matched), then again as soon
as each create answers, so that an apply that fails or is killed after a create still ties
the entry to its new object: the next plan finds the object through the lock and finishes it
(a section whose path PATCH failed is patched, not created twice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from docform.engine.apply import Created
from docform.engine.capabilities import LocksOtherThanId
from docform.engine.plan import Change, Plan
from docform.errors import DocformError
from docform.kind_registry import build_kinds
from docform.manifest import ManifestSet
from docform.manifest.lock import LIVE_ID, LOCK_NAME, LockWriter, write_lock


class LockRecorder:
    """The identity file of one manifest set during one apply."""

    def __init__(self, manifests: ManifestSet, plan: Plan) -> None:

        self.directory = manifests.directory
        self.organization = manifests.organization.id
        self.ids: dict[str, str] = dict(plan.identities)
        self.plan = plan
        self.sources = dict(plan.kept_sources)
        self.tied = CreatedIds(self.organization)
        self.warning: str | None = None
        self.writer = LockWriter(self.directory, self.organization, self.ids, self.sources)

    def start(self) -> bool:
        """Write the ids the plan matched; refuses (before anything is applied) when the file
        cannot be written. Returns whether the file changed."""
        try:
            return write_lock(self.directory, self.organization, self.ids, self.sources)
        except OSError as exc:
            raise DocformError(
                f"cannot write {self.directory / LOCK_NAME}: {exc.strerror or exc}; nothing was "
                "applied. Make the directory writable, or pass --no-lock-file to apply without "
                "recording which live object each entry manages"
            ) from None

    def finish(self, done: Sequence[Change], failed: Sequence[Change]) -> None:
        """Record the sources of the secrets the ``done`` changes sent (an object with a
        ``failed`` change keeps the sources recorded before, so they are sent again)."""
        if self.warning is not None:
            return
        stopped = {c.address for c in failed}
        for change in done:
            sent = self.plan.secret_sources.get(change.address)
            if sent and change.address not in stopped:
                self.sources[change.address] = sent
        try:
            write_lock(self.directory, self.organization, self.ids, self.sources)
        except OSError as exc:
            self.warning = (
                f"could not update {self.directory / LOCK_NAME} ({exc.strerror or exc}): the "
                "secrets this apply sent are sent again by the next one"
            )

    def created(self, change: Change, answer: Any) -> None:
        """A create answered (or was found again after its answer was lost), or a change of
        what the lock records was applied (``answer`` None): record the new object's id, or the
        change's `lock_after`, at once, when it is one the lock can hold."""
        if self.warning is not None:
            return
        live_id = self.tied.lock_value(change, answer)
        if live_id is None:
            return
        self.ids[change.address] = live_id
        try:
            self.writer.record(change.address, live_id)
        except OSError as exc:
            # The apply goes on: stopping half-way would leave more to clean up than a lock
            # missing some ids, which `docform pin` writes again.
            self.warning = (
                f"could not update {self.directory / LOCK_NAME} ({exc.strerror or exc}); run "
                "`docform pin` on the manifests to record the objects this apply created"
            )


class CreatedIds:
    """What docform.lock records for the objects an apply creates, as their creates answer;
    the read after the apply matches its entries by them too."""

    def __init__(self, organization: str) -> None:
        # Only kinds whose entries the lock ties: a grant found again after its answer was lost
        # carries the id docform makes up for it (space/team/id), no live id.
        kinds = [kind for kind in build_kinds(organization) if kind.locked]
        self.id_paths = {kind.name: kind.created_id for kind in kinds}
        self.kinds = {kind.name: kind for kind in kinds}
        self.ids: dict[str, str] = {}

    def created(self, change: Change, answer: Any) -> None:
        """`docform.engine.apply.Created`: keep what the lock records for ``change``."""
        value = self.lock_value(change, answer)
        if value is not None:
            self.ids[change.address] = value

    def also_telling(self, other: Created | None) -> Created:
        """`created`, then ``other``."""

        def both(change: Change, answer: Any) -> None:
            self.created(change, answer)
            if other is not None:
                other(change, answer)

        return both

    def lock_value(self, change: Change, answer: Any) -> str | None:
        """What the lock records once ``change`` answered ``answer`` (None: once all its
        calls are made, with its `Change.lock_after`), or None when nothing it can hold."""
        if change.kind not in self.id_paths:
            return None
        if answer is None:
            live_id = change.lock_after
        elif change.lock_after is not None:
            return None  # recorded once every call of the change is made
        else:
            live_id = _dig(answer, self.id_paths[change.kind])
        if not isinstance(live_id, str) or not LIVE_ID.match(live_id):
            return None
        kind = self.kinds[change.kind]
        return kind.lock_id(live_id) if isinstance(kind, LocksOtherThanId) else live_id


def _dig(answer: Any, path: str) -> Any:
    value = answer
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, Mapping):
            value = value.get(part)
        else:
            return None
    return value
