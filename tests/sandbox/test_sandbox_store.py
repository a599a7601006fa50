"""The sandbox's SQLite store: keyset pages, transactions, persistence, clock (sandbox/store.py)."""

import base64
import json
import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from docform_sandbox.store import SCHEMA, CursorError, Store


@pytest.fixture
def db(tmp_path):
    store = Store(tmp_path / "store.sqlite")
    yield store
    store.close()


def insert(store, *ids, **fields):
    with store.transaction():
        for id in ids:
            store.insert("item", {"id": id, **fields}, org="org")


def ids(page):
    return [item["id"] for item in page.items]


def walk(store, *, descending, limit, between=None, sort="rank"):
    """Every id a client sees following `next`, calling `between(n)` after page n."""
    seen, cursor, number = [], None, 0
    while True:
        page = store.page("item", cursor=cursor, limit=limit, descending=descending, sort=sort)
        seen += ids(page)
        number += 1
        if page.next is None:
            return seen
        if between:
            between(number)
        cursor = page.next


def delete(store, *ids):
    with store.transaction():
        for id in ids:
            store.delete("item", id)


def test_ascending_walk_sees_each_item_once_while_rows_come_and_go(db):
    insert(db, *(f"i{n}" for n in range(10)))

    def change(page_number):
        if page_number == 1:  # seen: i0 i1 i2
            delete(db, "i1", "i5")
            insert(db, "n0")
        elif page_number == 2:  # seen: i3 i4 i6
            delete(db, "i8")
            insert(db, "n1")

    seen = walk(db, descending=False, limit=3, between=change)
    assert seen == ["i0", "i1", "i2", "i3", "i4", "i6", "i7", "i9", "n0", "n1"]


def test_descending_walk_sees_each_item_once_while_rows_come_and_go(db):
    insert(db, *(f"i{n}" for n in range(10)))

    def change(page_number):
        if page_number == 1:  # seen: i9 i8 i7; n0 lands before the cursor, out of sight
            delete(db, "i8", "i5")
            insert(db, "n0")
        elif page_number == 2:  # seen: i6 i4 i3
            delete(db, "i1")

    seen = walk(db, descending=True, limit=3, between=change)
    assert seen == ["i9", "i8", "i7", "i6", "i4", "i3", "i2", "i0"]


def test_walk_on_a_sort_with_ties_sees_each_item_once(db):
    insert(db, "a1", "a2", "a3", name="same")
    insert(db, "b1", name="earlier")
    sort = "json_extract(data, '$.name')"
    assert walk(db, descending=False, limit=1, sort=sort) == ["b1", "a1", "a2", "a3"]


def test_count_is_the_total_not_the_page_size(db):
    insert(db, *(f"i{n}" for n in range(5)))
    assert db.page("item", limit=2).count == 5


def test_next_is_absent_on_the_last_page(db):
    insert(db, "a", "b", "c")
    first = db.page("item", limit=2)
    last = db.page("item", limit=2, cursor=first.next)
    assert first.next is not None
    assert ids(last) == ["c"]
    assert last.next is None


def test_a_page_that_holds_everything_has_no_next(db):
    insert(db, "a", "b")
    assert db.page("item", limit=2).next is None


def _forged(value):
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode()


@pytest.mark.parametrize(
    "cursor",
    ["garbage!!", "Zm9v", _forged([1, "x", 0]), _forged([[1], 1, 0]), _forged([1, 1, 2])],
    ids=["not-base64", "not-json", "seq-not-int", "value-not-scalar", "bad-direction"],
)
def test_a_cursor_the_store_did_not_issue_raises_cursor_error(db, cursor):
    insert(db, "a")
    with pytest.raises(CursorError):
        db.page("item", cursor=cursor)


def test_data_survives_closing_and_reopening_the_file(tmp_path):
    path = tmp_path / "kept.sqlite"
    first = Store(path)
    insert(first, "a", title="kept")
    first.close()
    again = Store(path)
    assert again.get("item", "a") == {"id": "a", "title": "kept"}
    assert again.locate("item", "a") == ("org", None)
    again.close()


def test_a_file_made_before_the_schema_mark_gets_the_whole_schema_on_opening(tmp_path):
    """A file the schema script last ran on without marking it (an older docform's) has its
    tables, but opening it runs the script again: here, adding the ``meta`` table it lacks."""
    path = tmp_path / "older.sqlite"
    older = sqlite3.connect(path)
    older.executescript(SCHEMA.split("CREATE TABLE IF NOT EXISTS meta")[0])
    older.execute("INSERT INTO objects (kind, id, data) VALUES ('item', 'a', '{\"id\": \"a\"}')")
    older.commit()
    older.close()
    store = Store(path)
    store.set_meta("clock_offset_seconds", "60")
    store.close()
    reopened = Store(path)
    assert reopened.get("item", "a") == {"id": "a"}
    assert reopened.get_meta("clock_offset_seconds") == "60"
    reopened.close()


def test_an_error_inside_a_transaction_rolls_back_its_writes(db):
    insert(db, "kept")
    with pytest.raises(RuntimeError), db.transaction():
        db.insert("item", {"id": "lost"})
        db.delete("item", "kept")
        raise RuntimeError("boom")
    assert db.get("item", "lost") is None
    assert db.get("item", "kept") == {"id": "kept"}


def test_an_error_in_a_nested_transaction_rolls_back_the_outer_one(db):
    with pytest.raises(RuntimeError), db.transaction():
        db.insert("item", {"id": "outer"})
        with db.transaction():
            db.insert("item", {"id": "inner"})
            raise RuntimeError("boom")
    assert db.count("item") == 0


def test_store_works_after_a_rolled_back_transaction(db):
    with pytest.raises(RuntimeError), db.transaction():
        raise RuntimeError("boom")
    insert(db, "after")
    assert db.count("item") == 1


def test_clock_set_now_shifts_the_sandbox_clock(db):
    target = datetime(2030, 1, 1, tzinfo=UTC)
    db.set_now(target)
    assert abs(db.now() - target) < timedelta(seconds=2)


def test_clock_offset_survives_reopening(tmp_path):
    path = tmp_path / "clock.sqlite"
    first = Store(path)
    first.set_now(datetime(2030, 1, 1, tzinfo=UTC))
    first.close()
    again = Store(path)
    assert again.now().year == 2030
    again.close()


def test_clock_without_offset_is_real_time(db):
    assert abs(db.now() - datetime.now(UTC)) < timedelta(seconds=2)
