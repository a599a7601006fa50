"""Helpers for end-to-end plan/apply tests: run docform's CLI against an in-process sandbox.

A test seeds a sandbox file, writes manifests, plans (``plan_json``), applies (``apply``),
checks that a second plan is empty (``assert_converged``) and reads the live result from the
sandbox's store (``open_store``) or through the API (``live_api``). ``served_app`` serves an
ASGI app (the sandbox, or one in front of it) over loopback HTTP.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from click.testing import CliRunner, Result

from canary import CANARY_TOKEN
from docform.api.stats import CallStats
from docform.cli import cli
from docform.engine.kind import Kind
from docform.engine.live import LiveState
from docform.engine.manifests import ManifestView
from docform.engine.plan import Plan
from docform.engine.planner import plan_from_matcher
from docform.engine.progressive import ProgressiveMatcher
from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.run import plan_manifests
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.store import Store
from loopback import PromptServer

FIXTURES = Path(__file__).parent / "fixtures"
ACME = Path(__file__).parent.parent / "examples" / "acme"
SEED_FILE = FIXTURES / "seed.yaml"
SERVE_TOKEN = "tok_faults_admin_0123456789"
"""The token of a `served_sandbox`: its control routes' admin token and an API token."""
REQUEST_COUNT = re.compile(r"^(\d+) API requests? \(", re.MULTILINE)


def seeded_sandbox(tmp_path: Path, seed_file: Path = SEED_FILE) -> Path:
    """A new sandbox database under ``tmp_path`` seeded from ``seed_file``; returns its path."""
    path = tmp_path / "sandbox.sqlite"
    store = Store(path)
    try:
        apply_seed(store, load_seed_file(seed_file))
    finally:
        store.close()
    return path


def copy_sandbox(source: Path, directory: Path) -> Path:
    """A copy of the sandbox database ``source`` as ``directory/sandbox.sqlite``, for tests
    that start from one arranged organization: SQLite's backup, so what a connection still
    holds in the write-ahead log is copied too."""
    path = directory / "sandbox.sqlite"
    with closing(sqlite3.connect(source)) as original, closing(sqlite3.connect(path)) as copy:
        copy.execute("PRAGMA synchronous=OFF")  # as the sandbox's own store: no disk waits
        original.backup(copy)
    return path


def seeded_and_applied(manifests: Path) -> Path:
    """A sandbox seeded beside ``manifests`` (in its folder's parent) with them applied to it,
    docform.lock written: what a module arranges once for its tests to copy."""
    sandbox = seeded_sandbox(manifests.parent)
    apply(manifests, sandbox, rehearse=False)
    return sandbox


def copy_applied(applied: tuple[Path, Path], directory: Path) -> tuple[Path, Path]:
    """A copy under ``directory`` of manifests applied to a sandbox (docform.lock with them)
    and of that sandbox: for each test of a module that starts from one applied organization,
    arranged once per module or session instead of in every test."""
    manifests, sandbox = applied
    copied = directory / "manifests"
    shutil.copytree(manifests, copied)
    return copied, copy_sandbox(sandbox, directory)


def acme_copy(tmp_path: Path) -> tuple[Path, Path]:
    """examples/acme's manifests (a copy under ``tmp_path``) and a sandbox seeded from its
    sandbox-seed.yaml, as a new user would set them up."""
    directory = tmp_path / "manifests"
    shutil.copytree(ACME / "manifests", directory)
    return directory, seeded_sandbox(tmp_path, ACME / "sandbox-seed.yaml")


def replace_text(path: Path, old: str, new: str) -> None:
    """Edit a manifest file as a person would: ``old`` (which must be there) becomes ``new``."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def prune_too(directory: Path, *kinds: str) -> None:
    """Turn on ``prune`` for ``kinds`` in examples/acme's organization.yaml (a copy of it)."""
    extra = "".join(f", {kind}: true" for kind in kinds)
    replace_text(
        directory / "organization.yaml",
        "prune: {members: true, teams: true}",
        "prune: {members: true, teams: true" + extra + "}",
    )


def write_manifests(directory: Path, yaml_text: str, name: str = "main.yaml") -> Path:
    """Write ``yaml_text`` (dedented) as ``directory/name``, replacing it; returns ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(textwrap.dedent(yaml_text), encoding="utf-8")
    return directory


def append_manifests(directory: Path, yaml_text: str, name: str = "main.yaml") -> Path:
    """Add ``yaml_text`` (dedented) at the end of ``directory/name``; returns ``directory``."""
    with (directory / name).open("a", encoding="utf-8") as file:
        file.write(textwrap.dedent(yaml_text))
    return directory


def run(
    cli_args: list[Any], sandbox: Path, token: str = CANARY_TOKEN, answer: str | None = None
) -> Result:
    """``docform *cli_args`` with ``DOCFORM_API_URL=sandbox:<sandbox>`` and ``token``: by
    default the canary token (tests/canary.py), which docform must never show. ``answer`` is
    typed at its prompts. Never raises."""
    env = {
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "DOCFORM_API_TOKEN": token,
        "NO_COLOR": "1",
    }
    return CliRunner().invoke(cli, [str(arg) for arg in cli_args], env=env, input=answer)


def plan_json(directory: Path, sandbox: Path) -> dict[str, Any]:
    """The plan of ``directory`` as JSON (``docform plan --json``); fails the test on error."""
    result = run(["plan", directory, "--json"], sandbox)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def apply(directory: Path, sandbox: Path, *, rehearse: bool = True) -> Result:
    """``docform apply DIR --yes``; fails the test unless it exits 0.

    ``rehearse=False`` adds ``--no-rehearse``: only for an apply that arranges the organization
    a test starts from (a fixture's), never for one whose behaviour the test checks, which
    keeps the rehearsal every user's apply runs."""
    no_rehearse = [] if rehearse else ["--no-rehearse"]
    result = run(["apply", directory, "--yes", *no_rehearse], sandbox)
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"
    # Every apply of the suite holds the plan's audience prediction to the service's lists,
    # and the ways in it predicted to what their own routes read back.
    assert "audience differs" not in result.output, result.output
    assert "ways in differ" not in result.output, result.output
    return result


def applied_rich_organization(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sandbox holding ``fixtures/rich-org`` applied over ``fixtures/rich-seed.yaml`` (users
    and sites); returns the sandbox's path. The organization is applied once per test process
    (the manifests applied are a copy: apply writes docform.lock beside them); each call
    returns a copy of that sandbox, the caller's own."""
    global _rich_original
    if _rich_original is None or not _rich_original.exists():
        sandbox = seeded_sandbox(tmp_path_factory.mktemp("rich"), FIXTURES / "rich-seed.yaml")
        manifests = tmp_path_factory.mktemp("rich-org") / "manifests"
        shutil.copytree(FIXTURES / "rich-org", manifests)
        apply(manifests, sandbox, rehearse=False)
        _rich_original = sandbox
    return copy_sandbox(_rich_original, tmp_path_factory.mktemp("rich-copy"))


_rich_original: Path | None = None


def assert_converged(directory: Path, sandbox: Path) -> None:
    """A second plan has no changes: ``plan --detailed-exitcode`` exits 0."""
    result = run(["plan", directory, "--detailed-exitcode"], sandbox)
    assert result.exit_code == 0, result.output


def apply_and_converge(directory: Path, sandbox: Path) -> None:
    """`apply`, then `assert_converged`."""
    apply(directory, sandbox)
    assert_converged(directory, sandbox)


def planned_in_process(
    applied: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> tuple[Plan, CallStats]:
    """The plan of an applied copy (``applied``: its manifests and sandbox), made as a program
    using docform's library makes it, against the sandbox in-process."""
    directory, sandbox = applied
    monkeypatch.setenv("DOCFORM_API_URL", f"sandbox:{sandbox}")
    return asyncio.run(plan_manifests(load_manifest_set(directory)))


def plan_request_count(directory: Path, sandbox: Path) -> int:
    """How many API requests ``docform plan -v`` made (from its "N API requests" line)."""
    result = run(["plan", directory, "-v"], sandbox)
    assert result.exit_code == 0, result.output
    found = REQUEST_COUNT.search(result.stderr)
    assert found, result.stderr
    return int(found.group(1))


def denied_by_policy(directory: Path, sandbox: Path) -> tuple[str, str, str]:
    """The one policy a plan of ``directory`` breaks, as ``(policy, address, output)``: the
    plan exits 1 and its JSON names that one result."""
    result = run(["plan", directory, "--json"], sandbox)
    assert result.exit_code == 1, result.output
    (denied,) = json.loads(result.stdout)["policies"]["results"]
    return denied["policy"], denied["address"], result.output


def change(plan: dict[str, Any], address: str, action: str | None = None) -> dict[str, Any]:
    """The one change of ``plan`` at ``address`` (with ``action``, when given)."""
    found = [
        c
        for c in plan["changes"]
        if c["address"] == address and (action is None or c["action"] == action)
    ]
    assert len(found) == 1, f"{len(found)} changes at {address} {action or ''}: {actions(plan)}"
    return found[0]


def actions(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """``(address, action)`` of every change, in plan order."""
    return [(c["address"], c["action"]) for c in plan["changes"]]


def calls(change_json: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """``(method, path, body)`` of every call of one change, in order."""
    return [(c["method"], c["path"], c["body"]) for c in change_json["calls"]]


@contextmanager
def open_store(sandbox: Path) -> Iterator[Store]:
    """The sandbox's store, opened for reading or arranging live state; closed afterwards."""
    store = Store(sandbox)
    try:
        yield store
    finally:
        store.close()


def live_api(sandbox: Path, method: str, path: str, body: Any = None) -> Any:
    """One API call (``/orgs/org_acme``-style path) through docform's ``ApiClient``."""

    async def call() -> Any:
        async with Client(f"sandbox:{sandbox}") as client:
            return await client.request(method, path, json=body)

    return asyncio.run(call())


UI_ADMIN_TOKEN = "tok_ui_admin_0123456789"


def in_ui(sandbox: Path, user: str, method: str, path: str, body: Any = None) -> Any:
    """A hand change: ``method path`` made by ``user`` (an id or email) in the service's UI,
    through the sandbox's ``POST /_sandbox/ui``; returns the API's answer (fails on error)."""
    from docform_sandbox.app import SandboxConfig
    from docform_sandbox.transport import SandboxTransport

    async def call() -> httpx.Response:
        transport = SandboxTransport(sandbox, SandboxConfig(admin_tokens=(UI_ADMIN_TOKEN,)))
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox.test") as c:
            asked = {"user": user, "method": method, "path": path, "body": body}
            headers = {"Authorization": f"Bearer {UI_ADMIN_TOKEN}"}
            return await c.post("/_sandbox/ui", json=asked, headers=headers)

    answer = asyncio.run(call())
    assert answer.status_code < 300, answer.text
    return answer.json() if answer.content else None


def free_port() -> int:
    """A loopback port free now (another process may take it before it is used)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served_sandbox(data: Path, *options: str) -> Iterator[tuple[str, list[str]]]:
    """``docform sandbox serve`` with ``options`` on a free loopback port, seeded from
    ``fixtures/seed.yaml``, its token `SERVE_TOKEN`: yields its root URL and a list that holds
    the server's output once it has stopped."""
    port = free_port()
    command = [sys.executable, "-m", "docform", "sandbox", "serve", "--port", str(port)]
    command += ["--data", str(data), "--token", SERVE_TOKEN, "--seed", str(SEED_FILE), *options]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    root, output = f"http://127.0.0.1:{port}", []
    try:
        # Starting Python and docform alone can take seconds on a loaded machine.
        deadline = time.monotonic() + 60.0
        # One client for all the tries: each new one builds its TLS settings again.
        with httpx.Client(timeout=1.0) as client:
            while not _answers(client, root):
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                assert time.monotonic() < deadline, "sandbox serve did not start"
                time.sleep(0.05)
        yield root, output
    finally:
        process.terminate()
        output.append(process.communicate(timeout=10)[0])


def _answers(client: httpx.Client, root: str) -> bool:
    try:
        client.get(f"{root}/_sandbox/faults")
    except httpx.TransportError:
        return False
    return True


@contextmanager
def served_in_thread(sandbox: Path, **options: Any) -> Iterator[str]:
    """The sandbox database ``sandbox`` served over HTTP by uvicorn in a thread of the test
    process, with the `SandboxConfig` ``options``, its admin token `SERVE_TOKEN`; yields its
    root URL. For tests of docform processes against a served sandbox that do not test the
    ``docform sandbox serve`` command (`served_sandbox` starts that, a second process)."""
    from docform_sandbox.app import SandboxConfig, create_app

    store = Store(sandbox)
    try:
        with served_app(create_app(store, SandboxConfig((SERVE_TOKEN,), **options))) as root:
            yield root
    finally:
        store.close()


@contextmanager
def served_app(app: Any) -> Iterator[str]:
    """``app`` behind uvicorn on a free loopback port, in a thread; yields its root URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = PromptServer(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10.0
    while not server.serving.wait(timeout=0.02):
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
        thread.join(timeout=10)


def plan_changes(
    kinds: Sequence[Kind],
    manifests: ManifestView,
    live: LiveState,
    organization: str,
    prune: Mapping[str, bool],
    *,
    finishing: bool = False,
) -> Plan:
    """The plan of ``live`` read whole, then matched kind by kind in plan order (docform itself
    matches each kind as its read finishes: `docform.workflow.run.plan_while_loading`)."""
    matcher = ProgressiveMatcher(kinds, manifests, finishing=finishing)
    for kind in matcher.order:
        matcher.kind_read(kind, live.of(kind.name))
    return plan_from_matcher(matcher, manifests, live, organization, prune)
