"""The sandbox's OpenAPI description (sandbox/openapi_description.py), and a property test of
every operation it describes: any request, well-formed or not, gets a documented answer.

For each operation, hypothesis sends requests built from the description: path ids that exist
or do not, bodies that follow the request schema or are any JSON at all, broken JSON or too
large, and query strings of the right or wrong type. Every answer must be one the description
lists, never a 5xx, and its body must validate against the schema the description gives for
that status (the error body, or the object the route answers); an answer to a read that
docform's client checks (`docform.api.shapes`) also fits what the client expects.

Examples per operation: 3 by default, ``DOCFORM_FUZZ_EXAMPLES`` when set.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from answer_fields import UNNAMED, unnamed_fields
from contract_contradictions import contradiction_of
from contract_definition import Mismatch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from conftest import ADMIN_TOKEN, ORG, SyncApi, fuzz_examples
from docform.api.answers import envelope_misfit, items_misfit
from docform.workflow.connect import KIND_SHAPES
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.http import MAX_BODY_BYTES
from docform_sandbox.openapi_description import ERROR_STATUSES, openapi_description
from docform_sandbox.routes import ENDPOINTS, route_modules
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.store import Store
from kinds.test_lifecycle import SECRETS_IN_ENV, applicable_corpus
from planning import apply, seeded_sandbox

DESCRIPTION = openapi_description()
SCHEMAS = DESCRIPTION["components"]["schemas"]
OPERATIONS = [
    (method.upper(), path, operation)
    for path, item in DESCRIPTION["paths"].items()
    for method, operation in item.items()
]
FUZZ = settings(
    max_examples=fuzz_examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- the description itself -----------------------------------------------------------------


def test_every_endpoint_is_described_once() -> None:
    described = sorted(f"{method} {path}" for method, path, _ in OPERATIONS)
    assert described == sorted(f"{ep.method} {ep.path}" for ep in ENDPOINTS)


def test_every_write_with_a_body_has_a_body_schema() -> None:
    """Only the writes that take no body at all (a restore, a ping, a publish, a hostname's
    revalidation) lack one."""
    bodyless = {
        f"{method} {path}"
        for method, path, operation in OPERATIONS
        if method in ("POST", "PUT", "PATCH") and "requestBody" not in operation
    }
    assert bodyless == {
        "POST /orgs/{organizationId}/members/{userId}/sso",
        "POST /orgs/{organizationId}/ping",
        "POST /orgs/{organizationId}/sites/{siteId}/publish",
        "POST /orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate",
        "POST /orgs/{organizationId}/sites/{siteId}/unpublish",
        "POST /spaces/{spaceId}/restore",
        "POST /orgs/{organizationId}/translations/{translationId}/run",
        "PATCH /custom-hostnames/{hostname}",
    }


def test_a_field_the_definition_does_not_name_is_found() -> None:
    """The check of answers above finds a field beside the definition's (the check of a
    schema alone lets it through), in an object and in an object of a list."""
    site = {"$ref": "#/components/schemas/Site"}
    listed = {"type": "object", "properties": {"items": {"type": "array", "items": site}}}
    # icon: a oneOf of CustomizationFavicon's forms or null, which opens nothing.
    icon = {"emoji": "1f600", "size": 2}
    answer = {
        "items": [{"object": "site", "nickname": "docs", "urls": {"home": "x"}, "icon": icon}]
    }
    assert unnamed_fields(answer, [listed], SCHEMAS) == [
        "$.items[0].nickname",
        "$.items[0].urls.home",
        "$.items[0].icon.size",
    ]


def test_every_schema_reference_resolves() -> None:
    references = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(DESCRIPTION))
    assert references
    assert sorted(set(references) - set(SCHEMAS)) == []


def test_every_route_module_is_found() -> None:
    """Route modules are discovered, not listed: each one's endpoints are the sandbox's."""
    families = {ep.handler.__module__ for ep in ENDPOINTS}
    assert families <= {module.__name__ for module in route_modules()}
    assert len(families) >= 14


def test_routes_that_may_match_one_path_are_in_one_module_the_literal_first() -> None:
    """Starlette takes the first route that matches, and route modules are found in name
    order: a path that two templates match (``versions/latest``, ``versions/{versionId}``)
    must reach the literal one, so both live in one module, which declares it first."""

    def may_match_one_path(a: str, b: str) -> bool:
        parts_a, parts_b = a.split("/"), b.split("/")
        return len(parts_a) == len(parts_b) and all(
            x == y or "{" in x or "{" in y for x, y in zip(parts_a, parts_b, strict=True)
        )

    for n, first in enumerate(ENDPOINTS):
        for later in ENDPOINTS[n + 1 :]:
            if first.method == later.method and may_match_one_path(first.path, later.path):
                assert first.handler.__module__ == later.handler.__module__
                assert first.path.count("{") < later.path.count("{"), (first.path, later.path)


def test_every_success_answer_is_described() -> None:
    """A route answers a body exactly when it does not answer 204 or 205, and the body has a
    schema (the definition's)."""
    for method, path, operation in OPERATIONS:
        for status, response in operation["responses"].items():
            if status.startswith("2"):
                has_body = status not in ("204", "205")
                assert ("content" in response) == has_body, f"{method} {path} {status}"


def test_the_description_is_served(api: SyncApi) -> None:
    served = api.get("http://sandbox.test/_sandbox/openapi.json")
    assert served.status_code == 200
    assert served.json() == json.loads(json.dumps(DESCRIPTION))


# -- malformed requests, one by one ----------------------------------------------------------


def error_of(answer: Any) -> tuple[int, str]:
    body = answer.json()
    assert set(body) == {"error"} and body["error"]["code"] == answer.status_code
    return answer.status_code, body["error"]["message"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_broken_json_is_a_400(api: SyncApi) -> None:
    answer = api.put(f"orgs/{ORG}/teams", content=b'{"title": "A', headers=JSON)
    assert error_of(answer) == (400, "request body is not valid JSON")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_body_that_is_not_an_object_is_a_400(api: SyncApi) -> None:
    status, message = error_of(api.put(f"orgs/{ORG}/teams", json=["title"]))
    assert status == 400 and message.startswith("body: "), message


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_wrong_type_is_a_400_naming_the_field(api: SyncApi) -> None:
    status, message = error_of(api.put(f"orgs/{ORG}/teams", json={"title": 5}))
    assert status == 400 and message.startswith("title: "), message


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_an_oversized_body_is_a_400_before_it_is_read(api: SyncApi) -> None:
    body = b'{"title": "' + b"x" * MAX_BODY_BYTES + b'"}'
    answer = api.put(f"orgs/{ORG}/teams", content=body, headers=JSON)
    assert error_of(answer) == (400, f"request body is larger than {MAX_BODY_BYTES} bytes")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_an_oversized_body_without_a_length_is_a_400_once_over_the_limit(api: SyncApi) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"title": "'
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"x" * 65536

    answer = api.put(f"orgs/{ORG}/teams", content=chunks(), headers=JSON)
    assert error_of(answer) == (400, f"request body is larger than {MAX_BODY_BYTES} bytes")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_an_unknown_route_and_a_wrong_method_answer_the_error_body(api: SyncApi) -> None:
    assert error_of(api.get("nothing/here")) == (404, "no endpoint GET /v1/nothing/here")
    assert error_of(api.post(f"orgs/{ORG}")) == (405, f"POST is not allowed on /v1/orgs/{ORG}")


def test_an_unknown_id_in_the_path_is_a_404(api: SyncApi) -> None:
    assert error_of(api.patch(f"orgs/{ORG}/teams/nope", json={"title": "T"})) == (
        404,
        "team 'nope' not found",
    )


JSON = {"content-type": "application/json"}
SUPERUSER_TOKEN = "tok_fuzz_superuser_0123456789"


# -- every operation, any request ------------------------------------------------------------


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    """A seeded sandbox with the corpus of every field applied (tests/manifests/valid/full:
    objects of every kind to act on, a new kind's with its entries there), and what manifests
    cannot make: a member whose user has no email, custom hostnames of the organization and of
    a site, a nested section group, grants, redirects, and a site that is published behind a
    proxy; and its ids by path parameter name (`known_ids`), the same in every copy of it."""
    directory = tmp_path_factory.mktemp("openapi-description")
    sandbox = seeded_sandbox(directory)
    with pytest.MonkeyPatch.context() as env:
        for name, value in SECRETS_IN_ENV.items():
            env.setenv(name, value)
        apply(applicable_corpus(directory / "manifests"), sandbox, rehearse=False)
    extra = directory / "extra-seed.yaml"
    extra.write_text(
        f"organizations: [{{id: {ORG}, title: Acme, customHostname: www.acme.test, members: "
        "[{id: u_dana, displayName: Dana, role: read}], "
        "sites: [{id: site_docs, title: Acme Docs, hostname: docs.acme.test}]}]\n",
        encoding="utf-8",
    )
    store = Store(sandbox)
    try:
        apply_seed(store, load_seed_file(extra))
        client = SyncApi(
            create_app(store, SandboxConfig(admin_tokens=(SUPERUSER_TOKEN,))), SUPERUSER_TOKEN
        )
        try:
            add_nested_group_and_proxy(client)
            add_grants_and_redirects(client)
            add_link_invites(client)
            add_integrations_and_syncs(client)
            ids = known_ids(client)
        finally:
            client.close()
    finally:
        store.close()
    return sandbox, ids


def add_nested_group_and_proxy(client: SyncApi) -> None:
    """A section group inside another with an external link, and site_docs published behind a
    proxy."""
    site = f"orgs/{ORG}/sites/site_docs"
    outer = client.get(f"{site}/section-groups").json()["items"][0]["id"]
    nested = client.post(f"{site}/section-groups", json={"title": "Nested", "parent": outer})
    assert nested.status_code == 201, nested.text
    link = {"title": "Status", "url": "https://status.acme.test/", "parent": outer}
    assert client.post(f"{site}/external-links", json=link).status_code == 201
    assert client.patch(site, json={"proxy": "acme.test/docs"}).status_code == 200
    assert client.post(f"{site}/publish").status_code == 200


def add_grants_and_redirects(client: SyncApi) -> None:
    """Grants to teams and to users (the user without an email among them), and a redirect to
    each kind of destination."""
    ids = known_ids(client)
    users = sorted({*ids["userId"][:2], "u_dana"})
    site = f"orgs/{ORG}/sites/site_docs"
    objects = [f"spaces/{ids['spaceId'][0]}", f"collections/{ids['collectionId'][0]}", site]
    for granted_on in objects:
        for body in (
            {"role": "edit", "teams": ids["teamId"][:2]},
            {"role": None, "users": users},
        ):
            assert client.post(f"{granted_on}/permissions", json=body).status_code == 204
    destinations = [
        {"kind": "site-section", "siteSectionId": ids["siteSectionId"][0]},
        {"kind": "site-space", "siteSpaceId": ids["siteSpaceId"][0]},
        {"kind": "site-page", "siteSpaceId": ids["siteSpaceId"][0], "pageId": "page_1"},
        {"kind": "external", "url": "https://example.test/"},
    ]
    for i, destination in enumerate(destinations):
        body = {"source": f"/old-{i}", "destination": destination}
        assert client.post(f"{site}/redirects", json=body).status_code == 201


def add_link_invites(client: SyncApi) -> None:
    """A link invite of each form (the organization, a space, a collection)."""
    ids = known_ids(client)
    bodies = [
        {"role": "read"},
        {"level": "edit", "space": ids["spaceId"][0]},
        {"level": None, "collection": ids["collectionId"][0]},
    ]
    for body in bodies:
        assert client.post(f"orgs/{ORG}/link-invites", json=body).status_code == 201


def add_integrations_and_syncs(client: SyncApi) -> None:
    """The corpus's integration installed on every space and every site too, and Git Syncs of
    every space and of the site (409 for a Git Sync the corpus made already)."""
    ids = known_ids(client)
    base = f"integrations/segment/installations/{ids['installationId'][0]}"
    for space in ids["spaceId"]:
        assert client.post(f"{base}/spaces", json={"space": space}).status_code == 201
    for site in ids["siteId"]:
        assert client.post(f"{base}/sites", json={"siteId": site}).status_code == 201
    targets = [{"type": "space", "spaceId": space} for space in ids["spaceId"]]
    for target in [*targets, {"type": "site", "siteId": "site_docs"}]:
        body = {"provider": "github", "target": target}
        assert client.post("git/installations", json=body).status_code in (201, 409)


@pytest.fixture
def live(
    applied: tuple[Path, dict[str, list[str]]], tmp_path: Path
) -> Iterator[tuple[SyncApi, dict[str, list[str]]]]:
    """Raw HTTP to a copy of ``applied`` (each operation starts from it: requests delete
    things), and its ids by path parameter name."""
    sandbox, ids = applied
    copy = tmp_path / "sandbox.sqlite"
    shutil.copyfile(sandbox, copy)
    store = Store(copy)
    # A token of every organization, not a seeded user's: requests may remove any member.
    client = SyncApi(
        create_app(store, SandboxConfig(admin_tokens=(SUPERUSER_TOKEN,))), SUPERUSER_TOKEN
    )
    try:
        yield client, ids
    finally:
        client.close()
        store.close()


def known_ids(client: SyncApi) -> dict[str, list[str]]:
    """The ids of each path parameter: those the list one level up answers (the ids of
    ``/orgs/{organizationId}/fonts`` for ``{fontId}``), found for every route alike, and the
    few parameters a list does not name by ``id``."""
    site = f"orgs/{ORG}/sites/site_docs"
    installations = client.get(f"orgs/{ORG}/installations").json()["items"]
    syncs = client.get(f"{site}/spaces/git/installations").json()["items"]
    structure = client.get(f"{site}/structure").json()
    ids = {
        "organizationId": [ORG] * 5 + ["org_other"],  # another organization: 403
        "siteId": [
            "site_docs",
            *(i for i in listed_ids(client, f"orgs/{ORG}/sites") if i != "site_docs"),
        ],
        "specSlug": [item["slug"] for item in client.get(f"orgs/{ORG}/openapi").json()["items"]],
        "auditEventId": listed_ids(client, f"orgs/{ORG}/audit-events?limit=5"),
        "hostname": ["www.acme.test", "docs.acme.test"],
        "integrationName": ["segment"],
        "installationId": [i["installation"]["id"] for i in installations],
        "gitInstallationId": [i["id"] for i in syncs],
        "siteExternalLinkId": objects_in(structure, "site-external-link"),
    }
    waiting = [(template, name) for template, name in list_parameters() if name not in ids]
    while ready := [(t, p) for t, p in waiting if all(ids.get(n) for n in placeholders(t))]:
        for template, parameter in ready:
            values = itertools.product(*(ids[name] for name in placeholders(template)))
            paths = dict.fromkeys(
                template.format_map(dict(zip(placeholders(template), each, strict=True)))
                for each in values
            )
            ids[parameter] = [i for path in paths for i in listed_ids(client, path.lstrip("/"))]
            waiting.remove((template, parameter))
    return ids


def list_parameters() -> list[tuple[str, str]]:
    """``(list path, parameter)`` for each path parameter: the list its path follows
    (``/orgs/{organizationId}/teams`` for ``teamId``), or the organization's list of its noun
    (``/orgs/{organizationId}/spaces`` for ``/spaces/{spaceId}``), the one with the fewest
    parameters of its own."""
    lists = {path for method, path, _ in OPERATIONS if method == "GET"}
    candidates: dict[str, set[str]] = {}
    for _, path, _ in OPERATIONS:
        for match in re.finditer(r"/\{(\w+)\}", path):
            name, noun = match.group(1), match.group(1).removesuffix("Id")
            found = {path[: match.start()], f"/orgs/{{organizationId}}/{noun}s"} & lists
            candidates.setdefault(name, set()).update(found)
    return sorted(
        (min(paths, key=lambda p: (p.count("{"), len(p), p)), name)
        for name, paths in candidates.items()
        if paths
    )


def objects_in(answer: Any, name: str) -> list[str]:
    """The ids of the objects called ``name`` anywhere in ``answer``."""
    if isinstance(answer, list):
        return [found for item in answer for found in objects_in(item, name)]
    if not isinstance(answer, dict):
        return []
    own = [answer["id"]] if answer.get("object") == name else []
    return own + [found for value in answer.values() for found in objects_in(value, name)]


def placeholders(template: str) -> list[str]:
    return re.findall(r"\{(\w+)\}", template)


def listed_ids(client: SyncApi, path: str) -> list[str]:
    answer = client.get(path)
    return [item["id"] for item in answer.json()["items"]] if answer.status_code == 200 else []


def test_every_path_parameter_has_ids_to_act_on(
    live: tuple[SyncApi, dict[str, list[str]]],
) -> None:
    """So that requests get past the lookups to the checks: an object of every kind a route
    acts on is in the fixture (a new route family's objects come with its kind's entries in
    the corpus of every field, tests/manifests/valid/full)."""
    _, ids = live
    parameters = {
        parameter["name"]
        for _, _, operation in OPERATIONS
        for parameter in operation["parameters"]
        if parameter["in"] == "path"
    }
    assert sorted(name for name in parameters if not ids.get(name)) == []


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values following a JSON Schema of the kind pydantic writes (the subset it uses)."""
    if "$ref" in schema:
        return st.deferred(lambda: from_schema(SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]))
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema["oneOf"]
        return st.one_of([from_schema(option) for option in options])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        return strings(schema)
    if kind == "array":
        items = from_schema(schema.get("items", {}))
        return st.lists(items, min_size=schema.get("minItems", 0), max_size=4)
    if kind == "object":
        properties = {k: from_schema(v) for k, v in schema.get("properties", {}).items()}
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {k: v for k, v in properties.items() if k in required},
            optional={k: v for k, v in properties.items() if k not in required},
        )
    simple = {"integer": st.integers(-5, 2000), "number": st.floats(-5, 2000),
              "boolean": st.booleans(), "null": st.none()}  # fmt: skip
    return simple.get(kind, ANY_JSON)


def strings(schema: dict[str, Any]) -> st.SearchStrategy[str]:
    low, high = schema.get("minLength", 0), min(schema.get("maxLength", 40), 300)
    if "pattern" in schema:
        pattern = st.from_regex(schema["pattern"], fullmatch=True)
        return pattern.filter(lambda text: low <= len(text) <= high)
    return st.text(min_size=low, max_size=high)


ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


# JSON that Python reads but the API never sends, and bodies that are not JSON at all.
ODD_BODIES = [b"", b"null", b"[]", b'"x"', b"NaN", b'{"title": NaN}', b'{"position": 1e999}',
              b'{"title": "\\ud800"}', b"\xff\xfe{}", b'{"a": 1, "a": 2}']  # fmt: skip


@st.composite
def requests(
    draw: st.DrawFn, operation: dict[str, Any], ids: dict[str, list[str]]
) -> tuple[str, bytes | None, dict[str, str]]:
    """A path with its ids filled in, a body (or None) and query parameters."""
    path_values: dict[str, str] = {}
    query: dict[str, str] = {}
    for parameter in operation["parameters"]:
        name = parameter["name"]
        if parameter["in"] == "path":
            # Mostly ids that exist, so that requests get past the lookups to the checks.
            if ids.get(name) and draw(st.integers(0, 9)):
                path_values[name] = draw(st.sampled_from(ids[name]))
            else:
                path_values[name] = draw(st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True))
        elif draw(st.booleans()):
            value = draw(from_schema(parameter["schema"]) | st.text(max_size=10))
            query[name] = value if isinstance(value, str) else json.dumps(value).strip('"')
    body = None
    if "requestBody" in operation:
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        body = draw(
            st.one_of(
                from_schema(schema).map(lambda value: json.dumps(value).encode()),
                ANY_JSON.map(lambda value: json.dumps(value).encode()),
                st.binary(max_size=20),
                st.sampled_from(ODD_BODIES),
            )
        )
    return path_values, body, query


@pytest.mark.parametrize(
    ("method", "template", "operation"),
    OPERATIONS,
    ids=[f"{method} {path}" for method, path, _ in OPERATIONS],
)
@pytest.mark.contract_exempt("draws any request, most of them outside the definition")
def test_any_request_gets_a_documented_answer(
    live: tuple[SyncApi, dict[str, list[str]]],
    method: str,
    template: str,
    operation: dict[str, Any],
) -> None:
    client, ids = live

    @FUZZ
    @given(request=requests(operation, ids))
    def check(request: tuple[dict[str, str], bytes | None, dict[str, str]]) -> None:
        path_values, body, query = request
        path = template.format(**path_values).lstrip("/")
        headers = JSON if body is not None else {}
        answer = client.request(method, path, content=body, params=query, headers=headers)
        where = f"{method} /{path} {query} {body!r:.200}: {answer.status_code} {answer.text:.300}"
        event(str(answer.status_code))
        assert answer.status_code < 500, where
        assert str(answer.status_code) in operation["responses"], where
        assert_as_described(operation, answer, where, f"{method} {template}")
        if answer.status_code >= 400:
            error_of(answer)
        elif answer.status_code not in (204, 205):
            assert_fits_the_client(method, "/" + path, answer.json(), where)

    check()


def assert_as_described(operation: dict[str, Any], answer: Any, where: str, name: str) -> None:
    """The answer's body validates against the schema the description gives for its status
    (an answer the description gives no content has none), and holds no field it does not
    name, but where the definition contradicts itself (`contract_contradictions`); ``name``:
    ``METHOD /template``."""
    content = operation["responses"][str(answer.status_code)].get("content")
    if content is None:
        assert not answer.content, where
        return
    assert answer.headers["content-type"].startswith("application/json"), where
    schema = content["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": DESCRIPTION["components"]})
    found = [(error.json_path, error.message) for error in validator.iter_errors(answer.json())]
    # The definition leaves most objects open to more fields; the sandbox sends none of those.
    found += [(path, UNNAMED) for path in unnamed_fields(answer.json(), [schema], SCHEMAS)]
    problems = [
        f"{path}: {message:.300}"
        for path, message in found
        if not contradiction_of(Mismatch(name, answer.status_code, "answer", path, message))
    ]
    assert not problems, f"{where}\n" + "\n".join(problems[:5])


READS = [(path, operation) for method, path, operation in OPERATIONS if method == "GET"]
# GET /user answers the token's own user; the superuser token of `live` is no user's (a 404).
CALLER_HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.mark.parametrize(("template", "operation"), READS, ids=[path for path, _ in READS])
def test_every_read_of_live_objects_answers_as_described(
    live: tuple[SyncApi, dict[str, list[str]]], template: str, operation: dict[str, Any]
) -> None:
    """Each read, of every object of its kind (within the first objects of the others that
    hold it), answers 200 and its body validates: not left to the draw of the property test
    above."""
    client, ids = live
    names = re.findall(r"\{(\w+)\}", template)
    varying = next((n for n in reversed(names) if n != "organizationId"), None)
    for value in ids.get(varying, [None]) if varying else [None]:
        answer, path = first_answering(client, template, ids, {varying: value} if varying else {})
        where = f"GET /{path}: {answer.status_code} {answer.text:.300}"
        assert answer.status_code == 200, where
        assert_as_described(operation, answer, where, f"GET {template}")
        assert_fits_the_client("GET", "/" + path, answer.json(), where)


def first_answering(
    client: SyncApi, template: str, ids: dict[str, list[str]], fixed: dict[str, Any]
) -> tuple[Any, str]:
    """The first GET of ``template`` with ``fixed`` that answers 200, its other parameters
    drawn in order from ``ids`` (an object read per site is found in the site that holds it);
    else the first one tried."""
    names = [name for name in re.findall(r"\{(\w+)\}", template) if name not in fixed]
    tried = []
    for each in itertools.product(*(dict.fromkeys(ids[name]) for name in names)):
        path = template.format(**fixed, **dict(zip(names, each, strict=True))).lstrip("/")
        answer = client.get(path, headers=CALLER_HEADERS if template == "/user" else None)
        if answer.status_code == 200:
            return answer, path
        tried.append((answer, path))
    return tried[0]


def assert_fits_the_client(method: str, path: str, answer: Any, where: str) -> None:
    """A read docform's client checks is one it accepts (`docform.api.shapes`)."""
    if method != "GET":
        return
    assert KIND_SHAPES.object_misfit(path, answer) is None, where
    if KIND_SHAPES.item_shape(path) is not None:
        assert envelope_misfit(answer) is None, where
        assert items_misfit(answer["items"], KIND_SHAPES.item_shape(path)) is None, where


def test_error_statuses_are_the_ones_the_sandbox_uses() -> None:
    """Every status the route modules raise is documented for every operation."""
    raised = set()
    for module in Path(ENDPOINTS[0].handler.__code__.co_filename).parent.glob("*.py"):
        raised |= set(re.findall(r"ApiError\(\s*(\d{3})", module.read_text(encoding="utf-8")))
    assert raised - {"429"} <= set(ERROR_STATUSES), raised
