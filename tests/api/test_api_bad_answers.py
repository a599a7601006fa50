"""Malformed answers (api/answers.py, api/shapes.py): `docform plan` over real HTTP stops with an
error naming the call, never a traceback and never a plan built on a bad answer.

The sandbox answers every call; a thin ASGI layer in front of it spoils the answer of one route
(a field missing, a wrong type, an HTML page, a body cut short, a wrong content type, a list
envelope without ``items``...). Both are served by uvicorn on a loopback port, and the CLI plans
against that URL exactly as against the real service.

Examples of the property test: 10 by default, ``DOCFORM_FUZZ_EXAMPLES`` when set.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.api.client import LIST_REREADS
from docform.api.shapes import misfit
from docform.cli import cli
from docform.service.answer_fields import Field
from docform.workflow.connect import KIND_SHAPES
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from planning import FIXTURES, apply, seeded_sandbox, served_app

TOKEN = "tok_bad_answers_admin_0123"
ORG_PATH = "/v1/orgs/org_acme"
Spoil = Callable[[bytes, dict[str, str], int], tuple[bytes, dict[str, str], int]]


@dataclass
class Spoiler:
    """Which answer to spoil (method and path, exactly) and how; None passes all through."""

    route: str | None = None
    spoil: Spoil | None = None
    seen: list[str] = field(default_factory=list)

    def wrap(self, app: Any) -> Any:
        async def spoiling(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return await app(scope, receive, send)
            route = f"{scope['method']} {scope['path']}"
            self.seen.append(route)
            if route != self.route or self.spoil is None:
                return await app(scope, receive, send)
            await self._spoiled(app, scope, receive, send)

        return spoiling

    async def _spoiled(self, app: Any, scope: dict, receive: Any, send: Any) -> None:
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def keep(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await app(scope, receive, keep)
        headers = {k.decode(): v.decode() for k, v in start["headers"]}
        headers.pop("content-length", None)
        assert self.spoil is not None
        body, headers, status = self.spoil(b"".join(chunks), headers, start["status"])
        raw_headers = [(k.encode(), v.encode()) for k, v in headers.items()]
        raw_headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": body})


@contextmanager
def spoiled_service(sandbox: Path, token: str) -> Iterator[tuple[str, Spoiler]]:
    """The sandbox over the file ``sandbox`` behind uvicorn, ``token`` its admin, its answers
    passed through a `Spoiler` the test arms: yields the root URL and the spoiler."""
    store = Store(sandbox)
    spoiler = Spoiler()
    app = spoiler.wrap(create_app(store, SandboxConfig(admin_tokens=(token,))))
    try:
        with served_app(app) as root:
            yield root, spoiler
    finally:
        store.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Spoiler]]:
    """The basic fixture applied to a seeded sandbox, served behind a `Spoiler`."""
    directory = tmp_path_factory.mktemp("bad-answers")
    sandbox = seeded_sandbox(directory)
    # A copy: apply writes docform.lock beside the manifests it applies.
    shutil.copytree(FIXTURES / "basic", directory / "manifests")
    apply(directory / "manifests", sandbox, rehearse=False)
    with spoiled_service(sandbox, TOKEN) as spoiled:
        yield spoiled


def plan(
    served: tuple[str, Spoiler], route: str | None = None, spoil: Spoil | None = None
) -> Result:
    root, spoiler = served
    spoiler.route, spoiler.spoil = route, spoil
    env = {"DOCFORM_API_URL": root, "DOCFORM_API_TOKEN": TOKEN, "NO_COLOR": "1"}
    try:
        return CliRunner().invoke(cli, ["plan", str(FIXTURES / "basic"), "--json"], env=env)
    finally:
        spoiler.route, spoiler.spoil = None, None


def assert_refused(result: Result, call: str, detail: str) -> None:
    """Exit 1, no plan printed, one error naming ``call`` and saying ``detail``."""
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, repr(result.exception)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.output
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("Error: reading the live "), error
    assert f"{call} failed" in error, error
    assert detail in error, error


# -- spoilers --------------------------------------------------------------------------------


def edit_json(change: Callable[[Any], None]) -> Spoil:
    def spoil(body: bytes, headers: dict[str, str], status: int) -> tuple[bytes, dict, int]:
        value = json.loads(body)
        change(value)
        return json.dumps(value).encode(), headers, status

    return spoil


def replace(body: bytes, content_type: str, status: int = 200) -> Spoil:
    def spoil(_: bytes, headers: dict[str, str], __: int) -> tuple[bytes, dict, int]:
        return body, {**headers, "content-type": content_type}, status

    return spoil


def cut_short(body: bytes, headers: dict[str, str], status: int) -> tuple[bytes, dict, int]:
    return body[: len(body) // 2], headers, status


def relabel(body: bytes, headers: dict[str, str], status: int) -> tuple[bytes, dict, int]:
    return body, {**headers, "content-type": "text/plain"}, status


def first_item(change: Callable[[dict], None]) -> Spoil:
    return edit_json(lambda page: change(page["items"][0]))


SIGN_IN_PAGE = b"<!DOCTYPE html><html><head><title>Sign in - Corp SSO</title></head></html>"
TEAMS, MEMBERS = f"GET {ORG_PATH}/teams", f"GET {ORG_PATH}/members"
SITE = f"{ORG_PATH}/sites/site_docs"

CASES = {
    "a list item without its key field": (
        TEAMS, first_item(lambda t: t.pop("title")),
        "the answer does not fit the API: items[0].title is missing (a string expected)",
    ),
    "a wrong type": (
        MEMBERS, first_item(lambda m: m.update(role=5)),
        "items[0].role is a number (5), not a string or null",
    ),
    "a boolean where a number is not meant": (
        MEMBERS, first_item(lambda m: m.update(sso="yes")),
        "items[0].sso is a string ('yes'), not true or false",
    ),
    "a nested field missing": (
        f"GET {ORG_PATH}/teams/*/members", first_item(lambda m: m["organization"].pop("user")),
        "items[0].organization.user is missing (an object expected)",
    ),
    "an object other than the one asked for": (
        f"GET {ORG_PATH}", edit_json(lambda org: org.update(id="org_other")),
        "the answer does not fit the API: id is a string ('org_other'), not the id asked for",
    ),
    "an object missing its id": (
        f"GET {ORG_PATH}", edit_json(lambda org: org.pop("id")),
        "the answer does not fit the API: id is missing (a string expected)",
    ),
    "an HTML sign-in page with 200": (
        f"GET {ORG_PATH}/collections", replace(SIGN_IN_PAGE, "text/html"),
        "is an HTML page titled 'Sign in - Corp SSO', not JSON",
    ),
    "an HTML error page": (  # a 5xx page would be retried first: same message, slower
        f"GET {ORG_PATH}/spaces", replace(SIGN_IN_PAGE, "text/html", 403),
        "403 Forbidden (an HTML page titled 'Sign in - Corp SSO', not the API's error body)",
    ),
    "a truncated body": (
        f"GET {ORG_PATH}/openapi", cut_short, "is JSON cut short or broken after",
    ),
    "an empty body": (
        f"GET {ORG_PATH}/saml", replace(b"", "application/json"), "is empty",
    ),
    "a wrong content type": (
        f"GET {ORG_PATH}/sites", relabel, "is labelled text/plain, not application/json",
    ),
    "a list envelope without items": (
        MEMBERS, edit_json(lambda page: page.pop("items")), "is not a list (no 'items' array)",
    ),
    "a next that is not a cursor": (
        TEAMS, edit_json(lambda page: page.update(next="page2")),
        "has a 'next' that is a string ('page2'), not {page: CURSOR}",
    ),
    "a list cut short without next": (
        MEMBERS, edit_json(lambda page: page["items"].pop()),
        "said the list holds 4 objects, but its pages held 3",
    ),
    "an embedded object of the wrong type": (
        f"GET {ORG_PATH}/saml", first_item(lambda s: s.update(defaultTeam="team_1")),
        "items[0].defaultTeam is a string ('team_1'), not an object",
    ),
    "a site space without its space": (
        f"GET {SITE}/site-spaces", first_item(lambda s: s.pop("space")),
        "items[0].space is missing (an object expected)",
    ),
    "a section group's sections without ids": (
        f"GET {SITE}/section-groups", first_item(lambda g: g.update(sections=[{}])),
        "items[0].sections[0].id is missing (a string expected)",
    ),
}  # fmt: skip


def concrete(served: tuple[str, Spoiler], route: str) -> str:
    """``route`` with ``*`` filled in from the calls an unspoiled plan makes."""
    if "*" not in route:
        return route
    pattern = re.compile("^" + re.escape(route).replace(r"\*", "[^/]+") + "$")
    plan(served)
    return next(seen for seen in served[1].seen if pattern.match(seen))


def test_an_unspoiled_plan_has_no_changes(served: tuple[str, Spoiler]) -> None:
    result = plan(served)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["changes"] == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_answer_stops_the_plan_naming_the_call(
    served: tuple[str, Spoiler], case: str
) -> None:
    route, spoil, detail = CASES[case]
    route = concrete(served, route)
    call = route.replace("/v1/", "/", 1)
    assert_refused(plan(served, route, spoil), call, detail)


# -- any spoiled field: refused, or the very same plan ---------------------------------------

WRONG_VALUES = st.sampled_from([None, 5, 2.5, True, "x", [], {}, [1], {"a": 1}])
DELETE = object()
PLANNED_ROUTES: set[str] = set()


def walk(answer: Any, steps: list[float]) -> tuple[Any, Any, list[str | int]]:
    """Follow ``steps`` into ``answer``: the container, the key in it, and the path taken."""
    node, path = answer, []
    for number, step in enumerate(steps):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = keys[int(step * len(keys))]
        path.append(key)
        last = number == len(steps) - 1
        if last or not isinstance(node[key], dict | list) or not node[key]:
            return node, key, path
        node = node[key]
    return None, None, path


def expectation(route: str, path: list[str | int], value: Any) -> str:
    """``refused``, ``same`` (docform does not read that field) or ``either`` (a value the API
    may answer: an optional field left out, another value that fits, one element fewer in a
    list). Whether a value fits is judged on the answer's description alone, the same way at
    every depth: a list envelope's ``items`` is a list of objects of the item's shape, so an
    empty list fits there as anywhere else."""
    bare = route.split(" ", 1)[1].removeprefix("/v1")
    listed = KIND_SHAPES.item_shape(bare)
    if listed is not None and path[:1] != ["items"]:
        return "either"  # the envelope's count, next or previous
    shape: Any = (
        {"items": Field((list,), items=Field((dict,), shape=listed))}
        if listed is not None
        else KIND_SHAPES.object_shape(bare)
    )
    field_shape: Field | None = None
    for part in path:
        if isinstance(part, int):
            field_shape = field_shape.items if field_shape else None
        else:
            field_shape = (shape or {}).get(part)
        if field_shape is None:
            return "same"
        shape = field_shape.shape
    assert field_shape is not None
    if value is DELETE and isinstance(path[-1], int):
        return "either"  # one element fewer in a list: another valid answer
    if value is DELETE:
        return "refused" if field_shape.required else "either"
    return "either" if misfit({"v": value}, {"v": field_shape}) is None else "refused"


INSTALLATIONS = "GET /v1/orgs/org_acme/installations"
ORACLE_CASES = [
    # The draw that once failed `make test`: no installation is a valid answer.
    (INSTALLATIONS, ["items"], [], "either"),
    (INSTALLATIONS, ["items"], DELETE, "refused"),
    (INSTALLATIONS, ["items"], [1], "refused"),
    (INSTALLATIONS, ["items"], {}, "refused"),
    (INSTALLATIONS, ["items", 0], DELETE, "either"),
    (INSTALLATIONS, ["items", 0], {}, "refused"),
    (INSTALLATIONS, ["items", 0], 5, "refused"),
    (INSTALLATIONS, ["items", 0, "installation", "externalIds"], [], "either"),
    (INSTALLATIONS, ["items", 0, "installation", "externalIds", 0], DELETE, "either"),
    (INSTALLATIONS, ["items", 0, "installation", "externalIds", 0], 5, "refused"),
    (INSTALLATIONS, ["items", 0, "installation", "id"], "x", "either"),
    (INSTALLATIONS, ["items", 0, "installation", "id"], DELETE, "refused"),
    (INSTALLATIONS, ["items", 0, "unread"], 5, "same"),
    (INSTALLATIONS, ["next"], None, "either"),
    (f"GET {ORG_PATH}", ["title"], 5, "refused"),
]


@pytest.mark.parametrize(("route", "path", "value", "expected"), ORACLE_CASES)
def test_the_oracle_calls_a_spoil_only_what_the_description_refuses(
    route: str, path: list[str | int], value: Any, expected: str
) -> None:
    assert expectation(route, path, value) == expected


@settings(
    max_examples=fuzz_examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    pick=st.floats(0, 1, exclude_max=True),
    steps=st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=5),
    value=st.one_of(WRONG_VALUES, st.just(DELETE)),
)
# Found by the fuzzer: a site's id spoiled into another valid id, under an entry pinning it.
@example(pick=0.4375, steps=[0.5, 0.0, 0.0625], value="x")
def test_any_spoiled_field_is_refused_or_changes_nothing(
    served: tuple[str, Spoiler], pick: float, steps: list[float], value: Any
) -> None:
    baseline = baseline_plan(served)
    routes = sorted(PLANNED_ROUTES)
    route = routes[int(pick * len(routes))]
    taken: list[list[str | int]] = []

    def change(answer: Any) -> None:
        container, key, path = walk(answer, steps)
        if container is None:
            return
        taken.append(path)
        if value is DELETE:
            del container[key]
        else:
            container[key] = copy.deepcopy(value)

    result = plan(served, route, edit_json(change))
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, repr(result.exception)
    if not taken:
        return
    expected = expectation(route, taken[0], value)
    event(f"{expected}, exit {result.exit_code}")
    if result.exit_code == 1:
        assert expected != "same", f"{taken[0]}: {result.stderr}"
        if expected == "refused":
            assert route.split(" ")[1].removeprefix("/v1") in result.stderr, result.stderr
        # A value that fits may still stop the plan for what it says (a site id changed under
        # an entry that pins the old one): that message names the entry, not the route.
        return
    assert result.exit_code == 0, result.output
    assert expected != "refused", f"{route} {taken[0]} = {value!r} was planned on"
    if expected == "same":
        assert without_checksums(json.loads(result.stdout)) == baseline, taken[0]


_BASELINE: dict[str, Any] = {}


def baseline_plan(served: tuple[str, Spoiler]) -> Any:
    if not _BASELINE:
        result = plan(served)
        _BASELINE["plan"] = without_checksums(json.loads(result.stdout))
        routes = {seen for seen in served[1].seen if seen.startswith("GET /v1/")}
        PLANNED_ROUTES.update(routes)
    return _BASELINE["plan"]


def without_checksums(plan_json: dict[str, Any]) -> dict[str, Any]:
    """The plan without what hashes the raw answers (an unused field changes those)."""
    return {k: v for k, v in plan_json.items() if k not in ("checksum", "fingerprints")}


def test_every_route_docform_reads_has_a_shape(served: tuple[str, Spoiler]) -> None:
    """A route read without a shape would be trusted blindly."""
    baseline_plan(served)
    templates = KIND_SHAPES.templates()
    # No route seen would pass for every route having a shape.
    assert PLANNED_ROUTES, f"the plan read no GET /v1/ route: {sorted(served[1].seen)}"
    for route in PLANNED_ROUTES:
        path = route.split(" ", 1)[1].removeprefix("/v1")
        assert KIND_SHAPES.object_shape(path) or KIND_SHAPES.item_shape(path), (
            f"{route} (shapes: {templates})"
        )


def test_a_list_that_changed_while_it_was_read_is_read_again(served) -> None:
    """A list whose pages hold other than its count once (written to while it was read, as an
    apply's own creates do) is read again from its first page; one that keeps doing so is
    refused after `LIST_REREADS` more reads, not read for ever."""
    spoiled: list[int] = []

    def once(body: bytes, headers: dict[str, str], status: int) -> tuple[bytes, dict, int]:
        spoiled.append(status)
        if len(spoiled) > 1:
            return body, headers, status
        return edit_json(lambda page: page["items"].pop())(body, headers, status)

    _root, spoiler = served
    spoiler.seen.clear()
    result = plan(served, MEMBERS, once)
    assert result.exit_code == 0, result.output
    assert spoiler.seen.count(MEMBERS) == 2

    spoiler.seen.clear()
    always = edit_json(lambda page: page["items"].pop())
    refused = plan(served, MEMBERS, always)
    assert_refused(refused, MEMBERS.replace("/v1", "", 1), "but its pages held 3")
    assert spoiler.seen.count(MEMBERS) == 1 + LIST_REREADS
