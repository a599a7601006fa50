"""Matching while reading (engine/progressive.py): whatever order the kinds' reads finish in,
the plan is the one matching every kind in reference order gives, change for change and
checksum for checksum, and so are the problems of a plan that cannot be made.

The organization is the rich one of test_export.py: seeded, then changed through the API so
that its plan holds creates, updates, moves, deletes and unmanaged objects of many kinds.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import random
import threading
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from docform import runtime
from docform.api import ApiClient
from docform.engine.live import LiveState, ReadError
from docform.engine.match import MatchError
from docform.engine.planner import plan_from_matcher
from docform.engine.progressive import ProgressiveMatcher
from docform.engine.snapshot import read_live_state
from docform.kind_registry import build_kinds
from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.run import make_plan
from live_objects import space_id
from planning import (
    FIXTURES,
    append_manifests,
    applied_rich_organization,
    copy_sandbox,
    live_api,
    open_store,
    plan_changes,
    write_manifests,
)

ORG = "/orgs/org_rich"


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rich organization, then a few live changes the manifests do not know of."""
    sandbox = applied_rich_organization(tmp_path_factory)
    live_api(sandbox, "POST", f"{ORG}/collections", {"title": "Stray"})
    live_api(sandbox, "POST", f"{ORG}/spaces", {"title": "Stray space"})
    return sandbox


@pytest.fixture
def changed(rich: Path, tmp_path: Path) -> Path:
    """The rich manifests with changes to several kinds, and pruning on."""
    text = (FIXTURES / "rich-org" / "main.yaml").read_text("utf-8")
    billing, faq = space_id(rich, "Billing service", ORG), space_id(rich, "FAQ", ORG)
    text = text.replace("title: Platform", "title: Platform team")
    text = text.replace("{title: Backend, parent: engineering", "{title: Backend, parent: product")
    text = text.replace("faq: {title: FAQ}", f"faq: {{id: {faq}, title: Questions}}")
    text = text.replace(
        "billing: {title: Billing service, collection: services",
        f"billing: {{id: {billing}, title: Billing service, collection: product",
    )
    directory = write_manifests(tmp_path / "changed", text)
    for certs in (FIXTURES / "rich-org").glob("certs/*"):
        (directory / "certs").mkdir(exist_ok=True)
        (directory / "certs" / certs.name).write_bytes(certs.read_bytes())
    return append_manifests(
        directory,
        """
        docform: {prune: {collections: true, spaces: true}}
        """,
    )


async def _read(sandbox: Path, manifests: Any) -> LiveState:
    kinds = build_kinds(manifests.organization.id)
    async with Client(f"sandbox:{sandbox}", read_only=True) as client:
        return await read_live_state(client, manifests.organization.id, kinds, {})


def _in_reference_order(manifests: Any, live: LiveState) -> dict[str, Any]:
    kinds = build_kinds(manifests.organization.id)
    prune = manifests.settings.prune.model_dump()
    return plan_changes(kinds, manifests, live, manifests.organization.id, prune).to_json()


def _fed_in(order: list[str], manifests: Any, live: LiveState) -> dict[str, Any]:
    kinds = {k.name: k for k in build_kinds(manifests.organization.id)}
    matcher = ProgressiveMatcher(list(kinds.values()), manifests)
    for name in order:
        matcher.kind_read(kinds[name], live.of(name))
    prune = manifests.settings.prune.model_dump()
    plan = plan_from_matcher(matcher, manifests, live, manifests.organization.id, prune)
    return plan.to_json()


def test_kinds_read_in_any_order_give_the_plan_of_the_reference_order(
    rich: Path, changed: Path
) -> None:
    manifests = load_manifest_set(changed)
    live = asyncio.run(_read(rich, manifests))
    expected = _in_reference_order(manifests, live)
    assert {c["action"] for c in expected["changes"]} >= {"create", "update", "move", "delete"}
    names = [k.name for k in build_kinds(manifests.organization.id)]
    orders = [list(reversed(names)), names]
    shuffle = random.Random(7)
    orders += [shuffle.sample(names, len(names)) for _ in range(6)]
    for order in orders:
        assert _fed_in(order, manifests, live) == expected, order


def test_a_kind_waits_for_the_kinds_it_refers_to(rich: Path) -> None:
    manifests = load_manifest_set(FIXTURES / "rich-org")
    live = asyncio.run(_read(rich, manifests))
    kinds = {k.name: k for k in build_kinds(manifests.organization.id)}
    matcher = ProgressiveMatcher(list(kinds.values()), manifests)
    matcher.kind_read(kinds["team"], live.of("team"))
    with pytest.raises(RuntimeError, match="never read or never matched: member, team, "):
        matcher.matchings()
    matcher.kind_read(kinds["member"], live.of("member"))
    for name in kinds.keys() - {"team", "member"}:
        matcher.kind_read(kinds[name], live.of(name))
    assert [k.name for k, _ in matcher.matchings()] == [k.name for k in matcher.order]


class SlowKinds:
    """A client whose list reads take longer the earlier their path's kind comes in
    ``slowest_first``, so the kinds finish in an order the planner does not choose."""

    def __init__(self, client: ApiClient, slowest_first: list[str]) -> None:
        self._client = client
        self._delays = {
            word: 0.002 * (len(slowest_first) - i) for i, word in enumerate(slowest_first)
        }

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def list_all(
        self, path: str, params: Mapping[str, Any] | None = None, *, priority: int = 0
    ) -> list:
        last = path.rstrip("/").split("/")[-1]
        await asyncio.sleep(self._delays.get(last, 0.0))
        return await self._client.list_all(path, params)


def test_a_plan_made_while_reading_equals_the_plan_made_after(rich: Path, changed: Path) -> None:
    manifests = load_manifest_set(changed)
    live = asyncio.run(_read(rich, manifests))
    expected = _in_reference_order(manifests, live)

    async def plan_while_reading(slowest_first: list[str]) -> dict[str, Any]:
        async with Client(f"sandbox:{rich}", read_only=True) as client:
            return (await make_plan(manifests, SlowKinds(client, slowest_first))).to_json()

    for slowest_first in (["members", "collections"], ["spaces", "teams", "site-spaces"]):
        assert asyncio.run(plan_while_reading(slowest_first)) == expected


def test_problems_are_reported_in_reference_order_whatever_the_read_order(
    rich: Path, tmp_path: Path
) -> None:
    twins = copy_sandbox(rich, tmp_path)
    # Two live objects for one entry's key, in two kinds: problems, not notes (nor twins that
    # applies run at once left, which are made within minutes of each other).
    with open_store(twins) as store:
        store.set_now(store.now() + timedelta(hours=1))
    live_api(twins, "PUT", f"{ORG}/teams", {"title": "Platform"})
    live_api(twins, "POST", f"{ORG}/collections", {"title": "Engineering"})
    text = (FIXTURES / "rich-org" / "main.yaml").read_text("utf-8")
    directory = write_manifests(tmp_path / "twins", text)
    for certs in (FIXTURES / "rich-org").glob("certs/*"):
        (directory / "certs").mkdir(exist_ok=True)
        (directory / "certs" / certs.name).write_bytes(certs.read_bytes())
    manifests = load_manifest_set(directory)
    live = asyncio.run(_read(twins, manifests))
    with pytest.raises(MatchError) as in_order:
        _in_reference_order(manifests, live)
    assert len(in_order.value.problems) >= 2
    names = [k.name for k in build_kinds(manifests.organization.id)]
    for order in itertools.islice(itertools.permutations(reversed(names)), 0, 50, 7):
        with pytest.raises(MatchError) as fed:
            _fed_in(list(order), manifests, live)
        assert fed.value.problems == in_order.value.problems


def test_pinned_ids_are_made_only_when_a_read_looks_at_them(rich: Path, changed: Path) -> None:
    manifests = load_manifest_set(changed)
    kinds = {k.name: k for k in build_kinds(manifests.organization.id)}
    matcher = ProgressiveMatcher(list(kinds.values()), manifests)
    pinned = matcher.pinned_ids(kinds["space"])
    assert matcher._desired == {}
    assert sorted(pinned) == sorted(
        [space_id(rich, "Billing service", ORG), space_id(rich, "FAQ", ORG)]
    )
    assert list(matcher._desired) == ["space"]
    assert matcher.desired(kinds["space"]) is matcher.desired(kinds["space"])


class ClientAround:
    """A client that passes everything on to ``client`` but what a subclass overrides."""

    def __init__(self, client: ApiClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class FailingReads(ClientAround):
    """A client whose every list fails as an unreachable service would."""

    async def list_all(
        self, path: str, params: Mapping[str, Any] | None = None, *, priority: int = 0
    ) -> list:
        from docform.api import ApiError

        raise ApiError(f"GET {path} failed: the service is down", method="GET", path=path)


class FreezeWatch(ClientAround):
    """A client whose list reads note how many objects the garbage collector holds frozen."""

    def __init__(self, client: ApiClient) -> None:
        super().__init__(client)
        self.frozen: list[int] = []

    async def list_all(
        self, path: str, params: Mapping[str, Any] | None = None, *, priority: int = 0
    ) -> list:
        self.frozen.append(gc.get_freeze_count())
        return await self._client.list_all(path, params, priority=priority)


@pytest.mark.usefixtures("tuned")
def test_planning_freezes_each_matched_kind_out_of_the_collectors_walks(
    rich: Path, changed: Path
) -> None:
    """Reads after a kind (and the manifests) are matched find more objects frozen than the
    first read did: what planning built is not walked again by later collections."""
    manifests = load_manifest_set(changed)

    async def plan() -> list[int]:
        async with Client(f"sandbox:{rich}", read_only=True) as client:
            watch = FreezeWatch(client)
            await make_plan(manifests, watch)
            return watch.frozen

    frozen = asyncio.run(plan())
    assert frozen[0] > 0  # what was alive before planning
    assert max(frozen) > frozen[0]
    assert gc.get_freeze_count() == 0


def test_planning_as_a_library_leaves_the_garbage_collector_alone(
    rich: Path, changed: Path
) -> None:
    """Without the command's knobs (`docform.runtime`), nothing is frozen or re-tuned."""
    manifests = load_manifest_set(changed)
    threshold = gc.get_threshold()

    async def plan() -> list[int]:
        async with Client(f"sandbox:{rich}", read_only=True) as client:
            watch = FreezeWatch(client)
            await make_plan(manifests, watch)
            return watch.frozen

    assert set(asyncio.run(plan())) == {0}
    assert gc.get_threshold() == threshold


def test_entries_a_read_looks_up_are_made_off_the_event_loop(
    rich: Path, changed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind whose read looks at the ids its entries pin (spaces) finds them made in the
    worker thread that took the manifests: made by the read itself, they would hold every
    answer on the event loop back (5,000 spaces: 50 ms). This set is small, and the step of a
    small set runs on the loop once a plan was made in the process (`runtime.beside_the_loop`):
    every step counts as large here, as those of such a set do."""
    monkeypatch.setattr(runtime, "INLINE_BELOW", 0)
    manifests = load_manifest_set(changed)
    reading = [k for k in build_kinds(manifests.organization.id) if k.reads_pinned_ids]
    assert reading, "no kind reads pinned ids: this test has nothing left to guard"
    made_in: list[str] = []
    for kind in reading:
        original = type(kind).desired

        def desired(self: Any, view: Any, original: Any = original) -> Any:
            made_in.append(threading.current_thread().name)
            return original(self, view)

        monkeypatch.setattr(type(kind), "desired", desired)

    async def plan() -> None:
        async with Client(f"sandbox:{rich}", read_only=True) as client:
            await make_plan(manifests, client)

    asyncio.run(plan())
    assert len(made_in) == len(reading)
    assert threading.main_thread().name not in made_in


@pytest.mark.usefixtures("tuned")
def test_planning_gives_back_the_garbage_collector_settings_it_changed(
    rich: Path, changed: Path
) -> None:
    manifests = load_manifest_set(changed)
    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())

    async def plan(failing: bool) -> None:
        async with Client(f"sandbox:{rich}", read_only=True) as client:
            reader = FailingReads(client) if failing else client
            await asyncio.gather(make_plan(manifests, reader), make_plan(manifests, client))

    asyncio.run(plan(failing=False))
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before
    with pytest.raises(ReadError, match="no plan was made"):
        asyncio.run(plan(failing=True))
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before


def test_a_failed_plan_leaves_none_of_its_reads_alive(rich: Path, changed: Path) -> None:
    """A failed read's error holds the frames it went through until the garbage collector's
    next full walk; the read tasks must not wait there with them, since each `asyncio.run`
    walks every task of the process as it ends."""
    manifests = load_manifest_set(changed)

    async def plan() -> None:
        async with Client(f"sandbox:{rich}", read_only=True) as client:
            await make_plan(manifests, FailingReads(client))

    gc.collect()
    gc.disable()
    try:
        # Held, so that no task of an earlier test in this process is taken for one of these.
        earlier = {id(task): task for task in _read_tasks()}
        with pytest.raises(ReadError, match="no plan was made") as failed:
            asyncio.run(plan())
        reads = [task for task in _read_tasks() if id(task) not in earlier]
    finally:
        gc.enable()
    assert failed.value.__traceback__ is not None
    assert reads == []


def _read_tasks() -> list[asyncio.Task[object]]:
    return [
        task
        for task in gc.get_objects()
        if isinstance(task, asyncio.Task)
        and task.get_coro().__qualname__.startswith("read_live_state.")  # type: ignore[union-attr]
    ]
