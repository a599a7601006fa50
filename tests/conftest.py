"""Fixtures shared by the whole suite: a seeded sandbox, in-process."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from canary import canary_session, report_leaks
from docform import runtime
from docform.api import ApiClient
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from docform_sandbox.transport import SandboxTransport
from fast_clock import FastClock
from skipped_time import SkippedTime

FIXTURES = Path(__file__).parent / "fixtures"

# The tests live in folders that mirror the packages; a test module of one folder may import
# another's helpers (test_manifest_corpus's corpus), whichever file pytest collects first.
for _folder in sorted(Path(__file__).parent.iterdir()):
    if _folder.is_dir() and any(_folder.glob("test_*.py")):
        sys.path.append(str(_folder))
# Every exchange with the sandbox is checked against the service's definition (tests/contract/);
# the endpoint family tests (tests/api/families/) share their session fixture.
pytest_plugins = ["contract_plugin", "endpoint_families"]
SEED_FILE = FIXTURES / "seed.yaml"
ORG = "org_acme"
ADMIN_TOKEN = "tok_alice_0123456789"
EDITOR_TOKEN = "tok_erin_0123456789"
OTHER_ORG_TOKEN = "tok_carol_0123456789"
SANDBOX_ADMIN_TOKEN = "tok_sandbox_admin_0123456789"
"""Not a seeded user's: the in-process sandbox trusts it as an admin of every organization."""


# `make test` draws the same examples on every run and machine (each property test's are seeded
# from its own source), so it fails only when the code does; a draw the service could answer
# but no run tried is for `make explore`: random draws, more of them, and the failures it finds
# kept in an example database under .hypothesis/ that its next run tries first. Hypothesis keeps
# no database where draws are derandomized: a failure explore found is kept for `make test` as an
# `@example` on its test. Per-test settings (example counts) apply on top of either profile.
settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
settings.register_profile(
    "explore",
    derandomize=False,
    deadline=None,
    print_blob=True,
    database=DirectoryBasedExampleDatabase(
        Path(__file__).resolve().parent.parent / ".hypothesis" / "examples"
    ),
)
settings.load_profile("deterministic")


def pytest_sessionstart(session: pytest.Session) -> None:
    # The sandbox plugs into docform through entry points, which exist once docform is
    # installed from the current pyproject.toml: without them every sandbox test would fail
    # on its URL.
    if not entry_points(group="docform.transports", name="sandbox"):
        pytest.exit(
            "docform's entry points are not installed in this environment (pyproject.toml "
            "changed since it was made): run `pip install -e '.[sandbox,dev]'` or `make test`.",
            returncode=4,
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        help="Run the long, nightly-style checks too (or set DOCFORM_SLOW=1).",
    )


def slow_mode(config: pytest.Config) -> bool:
    """Whether the long checks run: ``pytest --slow`` or ``DOCFORM_SLOW=1``."""
    return bool(config.getoption("--slow")) or os.environ.get("DOCFORM_SLOW", "") not in ("", "0")


def needs_the_definition() -> None:
    """Skips the calling test module when the service's pinned definition is not installed,
    which only DOCFORM_CONTRACT=off lets a run go on without (contract_plugin stops it
    otherwise, saying to run make node-tools)."""
    from contract_definition import DEFINITION

    if not DEFINITION.exists():
        pytest.skip(
            f"the service's definition is not installed ({DEFINITION.name}): make node-tools",
            allow_module_level=True,
        )


def fuzz_examples(quick: int) -> int:
    """Examples a property test draws: ``quick`` in the default run (``make test``), or
    ``DOCFORM_FUZZ_EXAMPLES`` for every property test when set (a deep run: 500)."""
    deep = os.environ.get("DOCFORM_FUZZ_EXAMPLES", "")
    return int(deep) if deep else quick


@pytest.fixture(scope="session", autouse=True)
def bytecode_kept_for_subprocesses(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Where the environment says not to write bytecode beside the sources
    (PYTHONDONTWRITEBYTECODE, as many containers set it), the Python processes the tests start
    (docform, bash steps running docform, an inner pytest) keep it in one folder of the run
    instead (PYTHONPYCACHEPREFIX): otherwise each docform process compiles docform again,
    about 0.2 s of CPU, for hundreds of processes. Nothing is written beside the sources."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        yield
        return
    # Beside the workers' temporary folders, not in them: the canary watch reads every file
    # there, and the bytecode of canary.py holds the token.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = tmp_path_factory.getbasetemp()
    folder = base.parent / "bytecode" if worker else Path(tempfile.mkdtemp(prefix="bytecode-"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPYCACHEPREFIX", str(folder))
        patch.delenv("PYTHONDONTWRITEBYTECODE")
        yield
    if not worker:
        shutil.rmtree(folder, ignore_errors=True)


# -- the canary token (tests/canary.py) --------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def canary_token(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """DOCFORM_API_TOKEN for the whole session: a canary that must never be shown or saved."""
    yield from canary_session(tmp_path_factory)


@pytest.fixture(autouse=True)
def untuned() -> Iterator[None]:
    """Each test starts with the process's knobs off (`docform.runtime`), as a program using
    docform as a library does; a command run in-process (CliRunner) turns them on, and this
    turns them off again."""
    runtime.enable(False)
    yield
    runtime.enable(False)


@pytest.fixture
def tuned() -> Iterator[None]:
    """The process's knobs on, as in the docform command."""
    runtime.enable()
    yield


@pytest.fixture(autouse=True)
def docform_debug_logs(caplog: pytest.LogCaptureFixture) -> None:
    """docform's debug lines are captured too, so the canary watch reads them."""
    caplog.set_level(logging.DEBUG, logger="docform")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report_leaks(outcome.get_result())  # type: ignore[attr-defined]


@pytest.fixture
def instant_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every API client made while the test runs is handed a sleep that notes each wait the
    client asks for (back-off, Retry-After, its rate budget) and returns at once: the retry
    logic runs as it does, the test does not spend the waits. Returns the waits asked for."""
    waits: list[float] = []

    async def noted(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    original = ApiClient.__init__

    def init(self: ApiClient, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("sleep", noted)
        original(self, *args, **kwargs)

    monkeypatch.setattr(ApiClient, "__init__", init)
    return waits


@pytest.fixture
def fast_clock(monkeypatch: pytest.MonkeyPatch) -> FastClock:
    """The sandbox's rate limiter, the client's rate budget and its sender read ``time``
    through their modules: each gets a clock ten times faster than the real one
    (`fast_clock.FastClock`), and every API client made while the test runs sleeps on it."""
    clock = FastClock()
    for module in ("docform_sandbox.app", "docform.api.retry", "docform.api.sender"):
        monkeypatch.setattr(f"{module}.time", clock)
    original = ApiClient.__init__

    def init(self: ApiClient, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("sleep", clock.sleep)
        original(self, *args, **kwargs)

    monkeypatch.setattr(ApiClient, "__init__", init)
    return clock


@pytest.fixture
def skipped_sandbox_time(monkeypatch: pytest.MonkeyPatch) -> SkippedTime:
    """Every in-process sandbox opened while the test runs (`SandboxTransport`, as docform
    opens one for a ``sandbox:`` URL) takes its waits on `SkippedTime`: its latency and slow
    answers cost no real time, and a slow answer still comes after the client's read timeout.
    Returns those waits, which note each one asked for."""
    skipped = SkippedTime()
    original = SandboxTransport.__init__

    def init(
        self: SandboxTransport,
        path: str | Path,
        config: SandboxConfig | None = None,
        **given: Any,
    ) -> None:
        original(self, path, dataclasses.replace(config or SandboxConfig(), waits=skipped), **given)

    monkeypatch.setattr(SandboxTransport, "__init__", init)
    return skipped


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def store(sandbox: Path) -> Iterator[Store]:
    """A sandbox database seeded with ``fixtures/seed.yaml`` (the test's own copy of one seeded
    once, `sandbox`), open."""
    db = Store(sandbox)
    yield db
    db.close()


@pytest.fixture(scope="session")
def seeded_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sandbox database seeded with ``fixtures/seed.yaml`` once per test process; tests take
    copies of it (``sandbox``), never this."""
    from planning import seeded_sandbox  # imported late: planning imports this module

    return seeded_sandbox(tmp_path_factory.mktemp("seeded"))


@pytest.fixture
def sandbox(tmp_path: Path, seeded_once: Path) -> Path:
    """A sandbox database file seeded with ``fixtures/seed.yaml``, closed for docform to open:
    ``tmp_path/sandbox.sqlite``, a copy of one seeded once, the test's own."""
    from planning import copy_sandbox

    return copy_sandbox(seeded_once, tmp_path)


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    """Where a test writes its manifests (not created: ``write_manifests`` makes it)."""
    return tmp_path / "manifests"


@pytest.fixture
def basic(tmp_path: Path) -> Path:
    """A copy of the worked example manifests (``fixtures/basic``), free to edit."""
    directory = tmp_path / "manifests"
    shutil.copytree(FIXTURES / "basic", directory)
    return directory


class SyncApi:
    """Synchronous raw HTTP to an ASGI app, for tests of the sandbox's own answers."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._loop = asyncio.new_event_loop()
        self._client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://sandbox.test/v1/",
            headers={"Authorization": f"Bearer {token}"},
        )

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return self._loop.run_until_complete(self._client.request(method, path, **kwargs))

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)

    def control(self, method: str, route: str, **kwargs: Any) -> httpx.Response:
        """``METHOD /_sandbox/{route}`` with the sandbox admin token the control routes need."""
        headers = {"Authorization": f"Bearer {SANDBOX_ADMIN_TOKEN}"}
        return self.request(
            method, f"http://sandbox.test/_sandbox/{route}", headers=headers, **kwargs
        )

    def close(self) -> None:
        self._loop.run_until_complete(self._client.aclose())
        self._loop.close()


@pytest.fixture
def api(store: Store) -> Iterator[SyncApi]:
    """Raw HTTP access to the seeded sandbox as Alice (an admin of org_acme), at /v1; its
    ``control`` calls ``/_sandbox/*`` with the sandbox admin token."""
    config = SandboxConfig(admin_tokens=(SANDBOX_ADMIN_TOKEN,))
    client = SyncApi(create_app(store, config), ADMIN_TOKEN)
    yield client
    client.close()


@pytest.fixture(scope="session")
def acme_applied_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """examples/acme applied to a sandbox seeded from its sandbox-seed.yaml, once per test
    process; tests take copies of it (``applied_acme``), never this."""
    from planning import acme_copy, apply

    directory, sandbox = acme_copy(tmp_path_factory.mktemp("acme-applied"))
    apply(directory, sandbox, rehearse=False)
    return directory, sandbox


@pytest.fixture(scope="session")
def acme_planned_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkout of examples/acme after the Plan step of its plan workflow (run in bash, a
    docform process planning against a sandbox seeded from its sandbox-seed.yaml), once per
    test process: the folder holding the checkout (``acme``: plan.md, plan-full.md and
    plan.json beside the manifests) and that sandbox (``sandbox.sqlite``). Tests copy them."""
    from test_examples_ci_tools import BIN, EXAMPLE, bash_step, step

    from planning import seeded_sandbox

    folder = tmp_path_factory.mktemp("acme-planned")
    shutil.copytree(EXAMPLE, folder / "acme")
    sandbox = seeded_sandbox(folder, EXAMPLE / "sandbox-seed.yaml")
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    env |= {"MANIFESTS": "manifests", "DOCFORM_API_URL": f"sandbox:{sandbox}"}
    done = bash_step(step("docform-plan.yml", "Plan")["run"], folder / "acme", env)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


@pytest.fixture
def applied_acme(tmp_path: Path, acme_applied_once: tuple[Path, Path]) -> tuple[Path, Path]:
    """examples/acme applied once to a sandbox seeded from its sandbox-seed.yaml (docform.lock
    written, as a new user would start): a copy of its manifests, and a copy of the sandbox,
    both the test's own to change."""
    from planning import copy_applied

    return copy_applied(acme_applied_once, tmp_path)
