"""What the endpoint family tests share (tests/api/families/, one module per area): a client
on a freshly seeded sandbox that records each call it sends, the `family` mark, and the
families themselves, for `test_api_endpoints.py`'s coverage test; a plugin of the suite
(tests/conftest.py), for the ``session`` fixture.

A family test calls the endpoints of one route family through docform's own `ApiClient` and
checks, for each call, the HTTP status the sandbox answered and the answer as a user of the
client sees it (parsed JSON, None for 204): its ``object``, its ids, and the list envelope
``{count, items}``. A new route family adds its test to the module of its area, or a module
of its own (``test_family_<area>.py``): the coverage test finds it there.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest

from conftest import ORG, SANDBOX_ADMIN_TOKEN, SEED_FILE
from docform.api import ApiClient
from docform.api.urls import API_PREFIX
from docform.workflow.connect import Client
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.store import Store

FAMILIES = Path(__file__).parent / "families"

ID = re.compile(r"^[a-zA-Z0-9_-]+$")
SITE = "site_docs"
SITES = f"/orgs/{ORG}/sites"


class SentCall(NamedTuple):
    method: str
    path: str
    status: int


@dataclass
class Session:
    """A client on a freshly seeded sandbox, and every call it sent with the answer's status."""

    api: ApiClient
    sandbox: Path
    calls: list[SentCall] = field(default_factory=list)

    async def send(self, method: str, path: str, expect: int, **kwargs: Any) -> Any:
        """Call through the client's method for ``method``; check the status the call got."""
        answer = await getattr(self.api, method.lower())(path, **kwargs)
        assert self.calls[-1] == (method, path, expect), f"{method} {path}: expected {expect}"
        if expect in (204, 205):
            assert answer is None
        return answer


def seeded_sandbox(directory: Path) -> Path:
    """A sandbox file seeded with tests/fixtures/seed.yaml, closed so a client can open it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "sandbox.sqlite"
    store = Store(path)
    apply_seed(store, load_seed_file(SEED_FILE))
    store.close()
    return path


@asynccontextmanager
async def open_session(directory: Path) -> AsyncIterator[Session]:
    """A client on a new seeded sandbox under ``directory``, recording each answered call."""
    sandbox = seeded_sandbox(directory)
    async with Client(f"sandbox:{sandbox}", token=SANDBOX_ADMIN_TOKEN) as api:
        session = Session(api, sandbox)
        record_calls(session, api)
        yield session


def record_calls(session: Session, api: ApiClient) -> None:
    """Add each call ``api`` gets an answer to to ``session.calls``."""

    async def record(response: httpx.Response) -> None:
        request = response.request
        path = request.url.path.removeprefix(API_PREFIX)
        session.calls.append(SentCall(request.method, path, response.status_code))

    api.http.event_hooks["response"].append(record)


def object_id(answer: Any, kind: str) -> str:
    """The id of an answer that is one API object of ``kind``."""
    assert isinstance(answer, dict)
    assert answer["object"] == kind
    assert ID.match(answer["id"])
    return answer["id"]


def page_ids(answer: Any, kind: str | None) -> list[str]:
    """The item ids of a one-page list answer ``{count, items}`` whose items are ``kind``."""
    assert set(answer) == {"count", "items"}
    assert answer["count"] == len(answer["items"])
    if kind is None:
        return []
    return [object_id(item, kind) for item in answer["items"]]


FamilyTest = Callable[[Session], Awaitable[None]]
FAMILY_TESTS: list[FamilyTest] = []
FAMILY_CALLS: dict[str, list[SentCall]] = {}
"""The calls of each family test run in this process, by its name: the coverage test runs
again only those it finds no calls of (another worker ran them, or only it was selected)."""


def family(test: FamilyTest) -> FamilyTest:
    """Mark a test as one endpoint family's, for the coverage test to run again."""
    FAMILY_TESTS.append(test)
    return test


async def new_space(s: Session, title: str, parent: str | None = None) -> str:
    # The definition gives parent no null: a top-level space is created without one.
    body = {"title": title} if parent is None else {"title": title, "parent": parent}
    return object_id(await s.send("POST", f"/orgs/{ORG}/spaces", 201, json=body), "space")


async def exercise_permissions(s: Session, permissions: str) -> None:
    """Every content-permission operation on one object, through ``permissions``."""
    team_body = {"title": "Writers", "members": ["u_bob"]}
    team_id = object_id(await s.send("PUT", f"/orgs/{ORG}/teams", 201, json=team_body), "team")
    await s.send("POST", permissions, 204, json={"role": "read", "teams": [team_id]})
    await s.send("POST", permissions, 204, json={"role": "comment", "users": ["u_erin"]})
    await s.send("PATCH", f"{permissions}/teams/{team_id}", 204, json={"role": "edit"})
    await s.send("PATCH", f"{permissions}/users/u_erin", 204, json={"role": "admin"})
    teams = await s.send("GET", f"{permissions}/teams", 200)
    page_ids(teams, None)
    assert [(i["permission"], object_id(i["team"], "team")) for i in teams["items"]] == [
        ("edit", team_id)
    ]
    users = await s.send("GET", f"{permissions}/users", 200)
    page_ids(users, None)
    assert [(i["permission"], object_id(i["user"], "user")) for i in users["items"]] == [
        ("admin", "u_erin")
    ]
    everyone = await s.send("GET", f"{permissions}/aggregate", 200)
    page_ids(everyone, None)
    roles = {object_id(i["user"], "user"): i["permission"] for i in everyone["items"]}
    assert roles == {"u_alice": "admin", "u_bob": "edit", "u_erin": "admin"}
    await s.send("DELETE", f"{permissions}/teams/{team_id}", 205)
    await s.send("DELETE", f"{permissions}/users/u_erin", 205)
    assert (await s.send("GET", f"{permissions}/users", 200))["items"] == []


@pytest.fixture
async def session(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Session]:
    async with open_session(tmp_path) as opened:
        yield opened
    if request.function in FAMILY_TESTS:
        FAMILY_CALLS[request.function.__name__] = opened.calls


def every_family() -> list[FamilyTest]:
    """The family tests of every module of tests/api/families, imported here when pytest has
    not (only some tests were selected); a module pytest imported is the same module."""
    if str(FAMILIES) not in sys.path:
        sys.path.insert(0, str(FAMILIES))
    for path in sorted(FAMILIES.glob("test_family_*.py")):
        importlib.import_module(path.stem)
    return list(FAMILY_TESTS)
