"""Reading while the manifests load (workflow/run.py `load_and_plan`, workflow/early.py): the
reads start once the files naming the organization and the API are read, and the outcome is the
one of loading first and planning after, problems included.

To prove the reads do not wait for the loading, the real loader is held until the first request
has left (`held_loader`); the requests go to the in-process sandbox through docform's client.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from canary import CANARY_TOKEN
from docform.cli import cli
from docform.cli.common import run_async
from docform.engine.progressive import ProgressiveMatcher
from docform.engine.snapshot import read_live_state
from docform.kind_registry import build_kinds
from docform.manifest import ManifestError, load_manifest_set
from docform.render import render_json
from docform.workflow import early
from docform.workflow.connect import Client
from docform.workflow.early import EarlyOrganization, EarlySettings, EarlyView, early_view
from docform.workflow.run import load_and_plan, make_plan
from docform_sandbox.plugin import SANDBOX
from planning import (
    FIXTURES,
    applied_rich_organization,
    live_api,
    run,
    write_manifests,
)

ORG = "/orgs/org_rich"
BROKEN_TEAM = """\
teams:
  extra:
    title: Extra
    colour: blue
"""


class FirstRequest(httpx.AsyncBaseTransport):
    """Counts the requests, and tells ``sent`` when the first one leaves."""

    def __init__(self, inner: httpx.AsyncBaseTransport, sent: threading.Event) -> None:
        self.inner, self.sent, self.requests = inner, sent, 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        self.sent.set()
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rich organization of test_export.py, applied."""
    sandbox = applied_rich_organization(tmp_path_factory)
    live_api(sandbox, "POST", f"{ORG}/spaces", {"title": "Stray space"})
    return sandbox


@pytest.fixture
def split(rich: Path, tmp_path: Path) -> Path:
    """The rich manifests with ``organization:`` in a file of its own, a space pinned by id and
    a changed title: reads of every sort (lists, per parent, a pinned id) and changes."""
    text = (FIXTURES / "rich-org" / "main.yaml").read_text("utf-8")
    head, rest = text.split("members:\n", 1)
    spaces = live_api(rich, "GET", f"{ORG}/spaces")["items"]
    faq = next(s["id"] for s in spaces if s["title"] == "FAQ")
    rest = rest.replace("faq: {title: FAQ}", f"faq: {{id: {faq}, title: Questions}}")
    directory = tmp_path / "split"
    shutil.copytree(FIXTURES / "rich-org", directory)
    write_manifests(directory, head, "organization.yaml")
    write_manifests(directory, "members:\n" + rest)
    return directory


@pytest.fixture
def held_loader(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Set when the first request leaves (through a test's reader, or the CLI's sandbox);
    loading waits for it."""
    sent = threading.Event()
    real = early.load_manifest_set
    real_sandbox = SANDBOX.transport
    monkeypatch.setattr(SANDBOX, "transport", lambda *args: FirstRequest(real_sandbox(*args), sent))

    def load_after_the_first_request(*args: Any, **kwargs: Any) -> Any:
        assert sent.wait(timeout=30), "no request left before the manifests were loaded"
        return real(*args, **kwargs)

    monkeypatch.setattr(early, "load_manifest_set", load_after_the_first_request)
    yield sent


def reader_of(sandbox: Path, sent: threading.Event, opened: list[Any]) -> Callable[[Any], Any]:
    def open_reader(view: Any) -> Client:
        transport = FirstRequest(SANDBOX.transport(sandbox, CANARY_TOKEN), sent)
        opened.append((view, transport))
        return Client(f"sandbox:{sandbox}", CANARY_TOKEN, transport=transport, read_only=True)

    return open_reader


async def _plan_loaded_first(directory: Path, sandbox: Path) -> tuple[str, int]:
    transport = FirstRequest(SANDBOX.transport(sandbox, CANARY_TOKEN), threading.Event())
    client = Client(f"sandbox:{sandbox}", CANARY_TOKEN, transport=transport, read_only=True)
    async with client:
        plan = await make_plan(load_manifest_set(directory), client)
    return render_json(plan), transport.requests


def test_reads_start_before_the_manifests_are_loaded_and_plan_the_same(
    rich: Path, split: Path, held_loader: threading.Event
) -> None:
    opened: list[Any] = []
    reader = reader_of(rich, held_loader, opened)
    manifests, plan, stats = asyncio.run(load_and_plan(split, reader))
    ((view, transport),) = opened
    assert isinstance(view, EarlyView)
    assert view.organization.id == manifests.organization.id == "org_rich"
    expected_json, expected_requests = asyncio.run(_plan_loaded_first(split, rich))
    assert render_json(plan) == expected_json
    assert transport.requests == stats.requests == expected_requests
    assert plan.summary() == {"create": 0, "update": 1, "delete": 0, "move": 0, "restore": 0}


def test_a_set_with_problems_fails_with_them_while_reads_are_in_flight(
    rich: Path,
    split: Path,
    held_loader: threading.Event,
    caplog: pytest.LogCaptureFixture,
) -> None:
    write_manifests(split, BROKEN_TEAM, "teams.yaml")
    opened: list[Any] = []
    with pytest.raises(ManifestError) as failed:
        asyncio.run(load_and_plan(split, reader_of(rich, held_loader, opened)))
    assert [str(p) for p in failed.value.problems] == [
        "teams.yaml:4:5: teams.extra.colour: unknown key 'colour' (expected one of: id, "
        "formerly, protect, title, members)"
    ]
    assert opened and held_loader.is_set()
    assert not [r for r in caplog.records if r.name == "asyncio"]


def test_plan_of_a_set_with_problems_prints_them_and_exits_1(
    rich: Path, split: Path, held_loader: threading.Event, capfd: pytest.CaptureFixture[str]
) -> None:
    write_manifests(split, BROKEN_TEAM, "teams.yaml")
    result = run(["plan", split], rich)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"{split}/teams.yaml:4:5: teams.extra.colour: unknown key 'colour' (expected one of: "
        "id, formerly, protect, title, members)\n"
        f"Error: 1 problem in the manifests; run 'docform validate {split}' for details\n"
    )
    assert held_loader.is_set()
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(
    ("organization", "problem"),
    [
        (
            "",
            "main.yaml:1:1: organization: is required: the organization these files describe "
            "(organization: {id: ...})",
        ),
        (
            "organization: {id: org_rich}\n---\norganization: {id: org_other}\n",
            "main.yaml:3:1: organization: defined twice (first at main.yaml:1:1)",
        ),
    ],
)
def test_no_organization_or_two_fail_as_when_loading_first(
    rich: Path, tmp_path: Path, organization: str, problem: str
) -> None:
    directory = write_manifests(tmp_path / "m", organization + "teams: {a: {title: A}}\n")
    result = run(["plan", directory], rich)
    assert result.exit_code == 1
    assert result.stderr == (
        f"{directory}/{problem}\n"
        f"Error: 1 problem in the manifests; run 'docform validate {directory}' for details\n"
    )


def test_the_api_written_in_another_file_is_read_early(
    rich: Path, split: Path, held_loader: threading.Event
) -> None:
    write_manifests(split, f"docform: {{api: 'sandbox:{rich}'}}\n", "settings.yaml")
    env = {"DOCFORM_API_TOKEN": CANARY_TOKEN, "NO_COLOR": "1", "DOCFORM_API_URL": None}
    result = CliRunner().invoke(cli, ["plan", str(split), "--detailed-exitcode"], env=env)
    assert result.exit_code == 2, result.output
    assert "~ space.faq (Questions)" in result.stdout
    assert held_loader.is_set()


def _view(directory: Path, files: dict[str, str]) -> EarlyView | None:
    for name, text in files.items():
        write_manifests(directory, text, name)
    read = {p: early.read_yaml_file(p, p.name) for p in sorted(directory.glob("*.yaml"))}
    return early_view(directory, read)


def test_the_early_view_names_the_organization_and_the_api_where_written(tmp_path: Path) -> None:
    files = {"a.yaml": "organization: {id: org_a}\n", "b.yaml": "docform:\n  api: sandbox:x\n"}
    assert _view(tmp_path, files) == EarlyView(
        tmp_path, EarlyOrganization("org_a"), EarlySettings("sandbox:x"), "b.yaml:2:3"
    )
    assert load_manifest_set(tmp_path).api_location == "b.yaml:2:3"


@pytest.mark.parametrize(
    "files",
    [
        {"a.yaml": "organization: {id: '${env:ORG}'}\n"},
        {"a.yaml": "organization: {id: org_a}\ndocform: {api: '${env:API}'}\n"},
        {"a.yaml": "organization: {id: 'org a'}\n"},
        {"a.yaml": "organization: org_a\n"},
        {"a.yaml": "organization: {id: org_a}\n", "b.yaml": "organization: {id: org_b}\n"},
        {"a.yaml": "organization: {id: org_a}\nteams: [\n"},
        {"a.yaml": "docform: {api: sandbox:x}\n"},
    ],
    ids=["env-id", "env-api", "bad-id", "not-a-mapping", "two", "broken-file", "no-org"],
)
def test_no_early_view_when_the_files_do_not_say_it_plainly(
    tmp_path: Path, files: dict[str, str]
) -> None:
    assert _view(tmp_path, files) is None


def test_a_set_without_an_early_view_loads_first_then_reads(
    rich: Path, split: Path, caplog: pytest.LogCaptureFixture
) -> None:
    text = (split / "organization.yaml").read_text("utf-8")
    (split / "organization.yaml").write_text(text.replace("organization:", "'organization':"))
    opened: list[Any] = []
    manifests, plan, _ = asyncio.run(
        load_and_plan(split, reader_of(rich, threading.Event(), opened))
    )
    ((view, _),) = opened
    assert view is manifests
    assert plan.summary()["update"] == 1
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


class RequestLog(httpx.AsyncBaseTransport):
    """The path of every request, in the order they leave."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner, self.paths = inner, []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path.removeprefix("/v1"))
        return await self.inner.handle_async_request(request)


def test_lists_other_reads_wait_for_go_before_those_queued_earlier(rich: Path) -> None:
    """The spaces' read starts late (as when it waits for the manifests), after the teams'
    member lists are queued: the access grants are read after the spaces, so their list goes
    first."""
    manifests = load_manifest_set(FIXTURES / "rich-org")
    kinds = build_kinds("org_rich")
    transport = RequestLog(SANDBOX.transport(rich, CANARY_TOKEN))

    async def read() -> None:
        client = Client(f"sandbox:{rich}", CANARY_TOKEN, transport=transport, max_in_flight=1)
        matcher = ProgressiveMatcher(kinds, manifests)
        teams_listed = asyncio.Event()

        def progress(kind: str, count: int) -> None:
            if kind == "team":
                teams_listed.set()

        async def spaces_after_the_team_lists(kind: Any) -> None:
            if kind.name == "space":
                await teams_listed.wait()
                await asyncio.sleep(0)  # the member lists the team list gave are queued now

        async with client:
            await read_live_state(
                client, "org_rich", kinds, {}, progress, matcher.kind_read, matcher.manages,
                spaces_after_the_team_lists,
            )  # fmt: skip

    asyncio.run(read())
    team_lists = [i for i, p in enumerate(transport.paths) if p.startswith(f"{ORG}/teams/")]
    spaces = transport.paths.index(f"{ORG}/spaces")
    assert len(team_lists) == 2
    assert spaces < team_lists[1]


def test_running_a_plan_never_formats_its_result() -> None:
    """`asyncio.run` in Python 3.11 formats its main task's result on the way out; a plan's
    result is the whole manifest set and plan."""
    formatted: list[str] = []

    class Large:
        def __repr__(self) -> str:
            formatted.append("repr")
            return "Large()"

    async def plan() -> Large:
        return Large()

    assert isinstance(run_async(plan()), Large)
    assert formatted == []
