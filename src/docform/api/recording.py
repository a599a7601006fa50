"""What a client read: each GET answer it handed back, in the order they came, for a rehearsal
of the plan those reads made (docs/rehearsal.md).

A list is recorded once, whole (every page's items under ``items``), with its path and the
query its caller gave (the client's own paging left out); a single object as it was answered.
The recording holds the very answers the client handed back, nothing more: no header, no
token, and nothing of it is printed or saved with a plan.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RecordedRead:
    """One GET answer: ``path`` (under ``/v1``), the ``query`` its caller gave, the JSON body
    (a list's items gathered under ``items``) and whether it was a whole list."""

    path: str
    query: Mapping[str, Any]
    body: Any
    listed: bool = False


@dataclass
class ReadRecording:
    """The GET answers of one client, in the order they came."""

    reads: list[RecordedRead] = field(default_factory=list)
    keeping: bool = True
    """False for a client nothing is planned from (an apply's read-back of each audience):
    then it keeps nothing, and the answers go once read."""

    def add(
        self, path: str, query: Mapping[str, Any] | None, body: Any, *, listed: bool = False
    ) -> None:
        if self.keeping:
            self.reads.append(RecordedRead("/" + path.lstrip("/"), dict(query or {}), body, listed))

    def __iter__(self) -> Iterator[RecordedRead]:
        return iter(self.reads)

    def __len__(self) -> int:
        return len(self.reads)
