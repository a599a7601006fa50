"""Which kind of token each call takes: docform's table (`docform.api.scopes`) and the
sandbox's (`docform_sandbox.routes.tokens`) name the same calls as a user's token only, for
every route the sandbox serves and whatever ids fill it; ``plan --explain-token`` shows the
token kind, role and scope the calls of the newer kinds need."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.api.scopes import need_of, token_needs, user_token_only
from docform_sandbox.app import ENDPOINTS
from docform_sandbox.routes.tokens import USER_ONLY
from planning import run, write_manifests

IDS = st.from_regex(r"[a-zA-Z0-9_-]{1,24}", fullmatch=True)
PLACEHOLDERS = st.builds(lambda name: "${" + name + ".id}", st.from_regex(r"[a-z_.]{1,20}"))


@pytest.mark.parametrize("fill", ["t_1", "${team.id}"], ids=["ids", "placeholders"])
def test_docform_and_the_sandbox_agree_on_every_route_for_a_users_token_only(fill: str) -> None:
    """Every route, its ids given as live ids or as placeholders of ids not known yet."""
    for endpoint in ENDPOINTS:
        path = re.sub(r"\{[^}]+\}", lambda _: fill, endpoint.path)
        expected = (endpoint.method, endpoint.path) in USER_ONLY
        assert user_token_only(endpoint.method, path) == expected, (endpoint.method, path)


# The routes are all checked above; this draws the ids that fill them.
@settings(max_examples=fuzz_examples(25))
@given(st.sampled_from(ENDPOINTS), st.data())
def test_docform_and_the_sandbox_agree_on_the_calls_for_a_users_token_only(
    endpoint: object, data: st.DataObject
) -> None:
    method, template = endpoint.method, endpoint.path  # type: ignore[attr-defined]
    path = re.sub(r"\{[^}]+\}", lambda _: data.draw(IDS | PLACEHOLDERS), template)
    assert user_token_only(method, path) == ((method, template) in USER_ONLY), (method, path)


def test_every_call_the_sandbox_reserves_is_one_it_serves() -> None:
    served = {(e.method, e.path) for e in ENDPOINTS}
    assert served >= USER_ONLY, sorted(USER_ONLY - served)


def test_the_facts_table_reads_as_written() -> None:
    """A row of each sort of the facts' table: user only, user or OAuth, user or integration
    or OAuth, integration only, the default."""
    assert need_of("DELETE", "/integrations/segment/installations/i1").kinds == ("user",)
    assert need_of("DELETE", "/integrations/segment/installations/i1").scope is None
    installing = need_of("POST", "/integrations/segment/installations")
    assert (installing.kinds, installing.scope) == (("user",), "integration:installations:write")
    on_space = need_of("PATCH", "/integrations/segment/installations/i1/spaces/s1")
    assert not on_space.user_only and on_space.scope == "integration:installations:write"
    assert need_of("GET", "/integrations/segment/installations").kinds == (
        "integration",
        "integration-installation",
    )
    assert not need_of("DELETE", "/integrations/segment/installations/i1/sites/s1").user_only
    assert not need_of("GET", "/orgs/o/installations").user_only
    assert need_of("GET", "/orgs/o/sites/s/adaptive-schema").scope == "site:read"
    assert not need_of("PUT", "/orgs/o/sites/s/adaptive-schema").user_only
    assert need_of("GET", "/spaces/s/git/info").scope == "space:read"
    assert need_of("PATCH", "/git/installations/g").user_only
    assert not need_of("PUT", "/orgs/o/translations/t").user_only
    assert not need_of("PUT", "/orgs/o/agent-instructions").user_only


def test_reads_that_show_secrets_need_an_admin_and_the_others_a_member() -> None:
    assert token_needs(["GET /orgs/{id}/teams", "GET /orgs/{id}/sites"], []).role == "any member"
    for secret in (
        "GET /orgs/{id}/installations",
        "GET /integrations/{id}/installations/{id}/sites",
        "GET /git/installations/{id}",
        "GET /orgs/{id}/sites/{id}/spaces/git/installations",
        "GET /orgs/{id}/sites/{id}/share-links",
    ):
        needs = token_needs(["GET /orgs/{id}/teams", secret], [])
        assert (needs.role, needs.why) == (
            "admin",
            "reading visitor sign-in, share links, link invites, integration installations or "
            "Git Sync shows secrets",
        ), secret
    assert token_needs([], ["PUT /orgs/{id}/agent-instructions"]).role == "admin"


def test_explain_token_names_the_kind_and_scope_of_the_newer_kinds_calls(
    sandbox: Path, manifests: Path
) -> None:
    doc = {
        "organization": {
            "id": "org_acme",
            "agentInstructions": {"markdown": "# Rules\n\nBe brief."},
        },
        "spaces": {"handbook": {"title": "Handbook", "language": "en"}},
        "integrations": {
            "analytics": {
                "integration": "segment",
                "configuration": {"region": "eu"},
                "spaces": {"handbook": {}},
            }
        },
        "gitSync": {
            "handbook": {
                "space": "handbook",
                "provider": "github",
                "repository": 7,
                "branch": "main",
            }
        },
        "translations": {
            "french": {"source": {"space": "handbook", "language": "en"}, "language": "fr"}
        },
    }
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    result = run(["plan", manifests, "--json", "--explain-token"], sandbox)
    assert result.exit_code == 0, result.output
    token = json.loads(result.stdout)["token"]
    assert token["role"] == "admin"
    assert token["kind"] == "a user's token (an integration's is refused for some calls)"
    user_only = token["kinds"]["a user's token only"]
    assert {
        "POST /git/installations",
        "PATCH /git/installations/{id}",
        "POST /integrations/{id}/installations",
    } <= set(user_only)
    either = token["kinds"]["a user's or an integration's token"]
    assert {
        "PATCH /integrations/{id}/installations/{id}",
        "POST /integrations/{id}/installations/{id}/spaces",
    } <= set(either)
    assert set(token["scopes"]["integration:installations:write"]) == {
        "PATCH /integrations/{id}/installations/{id}",
        "POST /integrations/{id}/installations",
        "POST /integrations/{id}/installations/{id}/spaces",
    }
    assert {
        "GET /orgs/{id}/translations",
        "POST /orgs/{id}/translations",
        "PUT /orgs/{id}/agent-instructions",
        "POST /git/installations",
    } <= set(token["unscoped"])
    text = run(["plan", manifests, "--explain-token"], sandbox).stdout
    assert "  kind: a user's token (an integration's is refused for some calls)\n" in text
    assert "    a user's token only: " in text
