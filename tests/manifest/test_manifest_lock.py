"""``docform.lock`` as a file: what `write_lock` and `LockWriter` put on disk."""

from __future__ import annotations

from pathlib import Path

from docform.manifest.lock import LOCK_NAME, LockWriter, read_lock, render_lock, write_lock

ORG = "org_acme"


def test_a_lock_grown_one_id_at_a_time_is_the_file_written_at_once(tmp_path: Path) -> None:
    start = {"team.platform": "tm_1", "space.handbook": "sp_1"}
    writer = LockWriter(tmp_path, ORG, start)
    added = [
        ("collection.guides", "co_1"),
        ('site.docs.section."Odd path"', "ss_1"),
        ("space.handbook", "sp_2"),
        ("member.ann@acme.test", "u_1"),
        ("space.api", "sp_3"),
    ]
    for address, live_id in added:
        writer.record(address, live_id)
    ids = {**start, **dict(added)}
    assert (tmp_path / LOCK_NAME).read_text(encoding="utf-8") == render_lock(ORG, ids)
    lock, problems = read_lock(tmp_path)
    assert problems == []
    assert (lock.organization, lock.ids) == (ORG, ids)


def test_write_lock_says_whether_the_file_changed(tmp_path: Path) -> None:
    ids = {"team.platform": "tm_1"}
    assert write_lock(tmp_path, ORG, ids) is True
    assert write_lock(tmp_path, ORG, ids) is False
    assert write_lock(tmp_path, ORG, {**ids, "team.docs": "tm_2"}) is True
    assert [p.name for p in tmp_path.iterdir()] == [LOCK_NAME]
