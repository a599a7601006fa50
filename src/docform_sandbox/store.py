"""SQLite persistence for the sandbox: one table of JSON documents, keyed by kind and id.

Every resource of the emulated API is a row of ``objects``: its kind (``team``, ``space``...),
its id, the organization and parent it belongs to (indexed, for list filters), a ``rank`` that
orders lists (insertion order unless a sort operation moved it) and the JSON document itself.
Lists page by keyset on ``(sort value, seq)``, so cursors stay valid while rows come and go.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from docform.errors import DocformError

SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    kind   TEXT NOT NULL,
    id     TEXT NOT NULL,
    org    TEXT,
    parent TEXT,
    rank   REAL NOT NULL DEFAULT 0,
    data   TEXT NOT NULL,
    UNIQUE (kind, id)
);
CREATE INDEX IF NOT EXISTS objects_by_org ON objects (kind, org, rank, seq);
CREATE INDEX IF NOT EXISTS objects_by_parent ON objects (kind, parent, rank, seq);
-- Fields the routes filter on. SQLite uses an index on an expression only where a query writes
-- that expression exactly as here, so routes spell them this way.
CREATE INDEX IF NOT EXISTS objects_by_user ON objects (kind, org, json_extract(data, '$.user'));
CREATE INDEX IF NOT EXISTS objects_by_team ON objects (kind, org, json_extract(data, '$.team'));
CREATE INDEX IF NOT EXISTS objects_by_email
    ON objects (kind, lower(json_extract(data, '$.email')));
CREATE INDEX IF NOT EXISTS objects_by_slug ON objects (kind, org, json_extract(data, '$.slug'));
CREATE INDEX IF NOT EXISTS objects_by_space ON objects (kind, json_extract(data, '$.space'));
CREATE INDEX IF NOT EXISTS objects_by_section ON objects (kind, json_extract(data, '$.section'));
CREATE INDEX IF NOT EXISTS objects_by_joined
    ON objects (kind, org, json_extract(data, '$.joinedAt'), seq);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
SCHEMA_MARK = 20_261_126
"""The ``user_version`` of a file that holds `SCHEMA`: each client opens its file, and running
the script at every opening was much of the cost of opening a seeded file. Change the mark
with the schema, so files made before run the new script; another program's file would hardly
carry this number."""

Where = Sequence[tuple[str, Sequence[Any]]]
NEXT_SEQ = "(SELECT coalesce(max(seq), 0) + 1 FROM sqlite_sequence WHERE name = 'objects')"


class SandboxFileError(DocformError):
    """The sandbox file is not a sandbox database (another file, or a damaged one)."""


# The sandbox clock keeps running after it is set: a clock near the end of year 9999 would fail
# every timestamp (and so every create) a second later.
EARLIEST_CLOCK = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_CLOCK = datetime(9000, 1, 1, tzinfo=UTC)


class CursorError(ValueError):
    """A `page` cursor that this store did not issue."""


@dataclass(frozen=True)
class Page:
    items: list[dict[str, Any]]
    next: str | None
    count: int


class Store:
    """A thread-safe handle on one sandbox database file (or ``:memory:``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.RLock()
        self._depth = 0
        self.journal: set[str] | None = None
        """When set, every write adds its marks (`written_marks`) here: a twin's, to tell
        which of the answers it was loaded from a write may have changed."""
        try:
            with self._lock:
                # An emulator's data need not outlive a power cut, only a killed process, which
                # WAL survives without syncing: each fsync made every write wait on the disk.
                self._db.execute("PRAGMA synchronous=OFF")
                self._db.execute("PRAGMA journal_mode=WAL")
                if self._db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_MARK:
                    self._db.executescript(f"{SCHEMA}PRAGMA user_version = {SCHEMA_MARK};")
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise SandboxFileError(
                f"the sandbox file {self.path} is not a sandbox database ({exc}): give a file "
                f"made by 'docform sandbox seed --data FILE SEED.yaml', or a new path"
            ) from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """All writes inside commit together or not at all; nested use joins the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
            finally:
                self._depth = 0

    # -- documents ----------------------------------------------------------------------------

    def insert(
        self, kind: str, obj: dict[str, Any], *, org: str | None = None, parent: str | None = None
    ) -> dict[str, Any]:
        with self._lock:
            # Ranked by insertion: the seq the row gets, one past the last AUTOINCREMENT gave.
            self._db.execute(
                "INSERT INTO objects (kind, id, org, parent, rank, data) VALUES (?, ?, ?, ?, "
                f"{NEXT_SEQ}, ?)",
                (kind, obj["id"], org, parent, json.dumps(obj)),
            )
            if self.journal is not None:
                self.journal.update(written_marks(kind, obj["id"], org, parent))
        return obj

    def get(self, kind: str, id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT data FROM objects WHERE kind = ? AND id = ?", (kind, id)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def locate(self, kind: str, id: str) -> tuple[str | None, str | None] | None:
        """The (org, parent) a document is filed under, or None when it does not exist."""
        with self._lock:
            row = self._db.execute(
                "SELECT org, parent FROM objects WHERE kind = ? AND id = ?", (kind, id)
            ).fetchone()
        return (row[0], row[1]) if row else None

    def update(self, kind: str, obj: dict[str, Any]) -> None:
        """Replace a document's data (its org and parent stay as filed)."""
        with self._lock:
            self._note_write(kind, obj["id"])
            self._db.execute(
                "UPDATE objects SET data = ? WHERE kind = ? AND id = ?",
                (json.dumps(obj), kind, obj["id"]),
            )

    def set_parent(self, kind: str, id: str, parent: str | None) -> None:
        """Refile a document under another parent (a move)."""
        with self._lock:
            self._note_write(kind, id, parent)
            self._db.execute(
                "UPDATE objects SET parent = ? WHERE kind = ? AND id = ?", (parent, kind, id)
            )

    def delete(self, kind: str, id: str) -> bool:
        with self._lock:
            self._note_write(kind, id)
            cur = self._db.execute("DELETE FROM objects WHERE kind = ? AND id = ?", (kind, id))
        return cur.rowcount > 0

    def delete_where(self, kind: str, where: Where) -> int:
        sql, params = _where_sql(where)
        with self._lock:
            cur = self._db.execute(f"DELETE FROM objects WHERE kind = ?{sql}", (kind, *params))
            if self.journal is not None and cur.rowcount:
                self.journal.add(kind)
        return cur.rowcount

    def _note_write(self, kind: str, id: str, *parents: str | None) -> None:
        """Journal a write of a filed document: under its org and parent, and ``parents``."""
        if self.journal is None:
            return
        filed = self.locate(kind, id)
        org, parent = filed or (None, None)
        self.journal.update(written_marks(kind, id, org, parent))
        for other in parents:
            self.journal.update(written_marks(kind, id, org, other))

    def all(self, kind: str, where: Where = ()) -> list[dict[str, Any]]:
        """Every matching document, in list order (rank, then insertion)."""
        sql, params = _where_sql(where)
        with self._lock:
            rows = self._db.execute(
                f"SELECT data FROM objects WHERE kind = ?{sql} ORDER BY rank, seq",
                (kind, *params),
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def count(self, kind: str, where: Where = ()) -> int:
        sql, params = _where_sql(where)
        with self._lock:
            count: int = self._db.execute(
                f"SELECT COUNT(*) FROM objects WHERE kind = ?{sql}", (kind, *params)
            ).fetchone()[0]
        return count

    def count_by(self, kind: str, key: str, where: Where = ()) -> dict[Any, int]:
        """How many matching documents hold each value of ``key`` (a trusted SQL expression)."""
        sql, params = _where_sql(where)
        with self._lock:
            rows = self._db.execute(
                f"SELECT ({key}), COUNT(*) FROM objects WHERE kind = ?{sql} GROUP BY 1",
                (kind, *params),
            ).fetchall()
        return {value: count for value, count in rows}

    def get_many(self, kind: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The documents of ``kind`` with these ids, by id (those that exist)."""
        if not ids:
            return {}
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, data FROM objects WHERE kind = ? AND id IN ({marks(len(ids))})",
                (kind, *ids),
            ).fetchall()
        return {id: json.loads(data) for id, data in rows}

    def rank_of(self, kind: str, id: str) -> float | None:
        with self._lock:
            row = self._db.execute(
                "SELECT rank FROM objects WHERE kind = ? AND id = ?", (kind, id)
            ).fetchone()
        return row[0] if row else None

    def set_rank(self, kind: str, id: str, rank: float) -> None:
        with self._lock:
            self._note_write(kind, id)
            self._db.execute(
                "UPDATE objects SET rank = ? WHERE kind = ? AND id = ?", (rank, kind, id)
            )

    # -- lists --------------------------------------------------------------------------------

    def page(
        self,
        kind: str,
        where: Where = (),
        *,
        cursor: str | None = None,
        limit: int = 50,
        descending: bool = False,
        sort: str = "rank",
    ) -> Page:
        """One page of a list, ordered by ``sort`` (a trusted SQL expression) then insertion.

        A cursor names the last row of the previous page by its sort value and seq, so a row
        added or removed between two calls neither repeats nor hides another one.
        """
        sql, params = _where_sql(where)
        total = self.count(kind, where)
        if cursor:
            value, seq = _decode_cursor(cursor)
            op = "<" if descending else ">"
            sql += f" AND (({sort}) {op} ? OR (({sort}) = ? AND seq {op} ?))"
            params += [value, value, seq]
        direction = "DESC" if descending else "ASC"
        with self._lock:
            rows = self._db.execute(
                f"SELECT data, ({sort}), seq FROM objects WHERE kind = ?{sql} "
                f"ORDER BY ({sort}) {direction}, seq {direction} LIMIT ?",
                (kind, *params, limit + 1),
            ).fetchall()
        more = len(rows) > limit
        rows = rows[:limit]
        last = rows[-1] if rows else None
        return Page(
            items=[json.loads(r[0]) for r in rows],
            next=_encode_cursor(last[1], last[2]) if more and last else None,
            count=total,
        )

    # -- settings -----------------------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def now(self) -> datetime:
        """The sandbox clock: real time shifted by an offset that tests can set."""
        offset = float(self.get_meta("clock_offset_seconds", "0") or 0)
        return datetime.now(UTC) + timedelta(seconds=offset)

    def set_now(self, when: datetime) -> None:
        """Set the clock; raises ValueError for a time it could not keep running from."""
        if not EARLIEST_CLOCK <= when <= LATEST_CLOCK:
            raise ValueError(
                f"the clock must stay between {EARLIEST_CLOCK.year} and {LATEST_CLOCK.year}"
            )
        offset = (when - datetime.now(UTC)).total_seconds()
        self.set_meta("clock_offset_seconds", repr(offset))


def written_marks(kind: str, id: str, org: str | None, parent: str | None) -> list[str]:
    """What a write of one document marks: its kind, the document (``kind#id``), its kind in
    its organization (``kind@org``) and under its parent (``kind^parent``)."""
    marks = [kind, f"{kind}#{id}"]
    if org:
        marks.append(f"{kind}@{org}")
    if parent:
        marks.append(f"{kind}^{parent}")
    return marks


def marks(count: int) -> str:
    """``count`` SQL parameter marks, for ``IN (...)``."""
    return ", ".join("?" * count)


def _where_sql(where: Where) -> tuple[str, list[Any]]:
    sql = "".join(f" AND ({clause})" for clause, _ in where)
    params = [p for _, ps in where for p in ps]
    return sql, params


def pack_cursor(parts: list[Any]) -> str:
    """An opaque page cursor holding ``parts`` (JSON values): unpadded URL-safe base64."""
    raw = json.dumps(parts, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unpack_cursor(cursor: str) -> Any:
    """What `pack_cursor` packed; raises ValueError for a string it did not make."""
    padded = cursor + "=" * (-len(cursor) % 4)
    try:
        return json.loads(base64.urlsafe_b64decode(padded.encode()))
    except RecursionError:
        raise ValueError("a cursor nested too deeply") from None


def _encode_cursor(value: Any, seq: int) -> str:
    return pack_cursor([value, seq])


def _decode_cursor(cursor: str) -> tuple[Any, int]:
    try:
        value, seq = unpack_cursor(cursor)
        if not _is_sqlite_integer(seq):
            raise ValueError(seq)
        # SQLite binds only scalars: a forged list or object would fail the query itself.
        if value is not None and not isinstance(value, str | int | float):
            raise ValueError(value)
        if isinstance(value, int) and not _is_sqlite_integer(value):
            raise ValueError(value)
        if isinstance(value, str):
            value.encode("utf-8")  # a lone surrogate ("\\ud800") is no text SQLite can bind
        return value, seq
    except (ValueError, TypeError) as exc:
        raise CursorError(cursor) from exc


def _is_sqlite_integer(value: Any) -> bool:
    """Whether SQLite can bind ``value`` as an INTEGER (64 bits, signed); a forged cursor may
    hold any number."""
    return type(value) is int and -(2**63) <= value < 2**63
