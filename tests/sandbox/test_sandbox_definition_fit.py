"""The sandbox's answers that once left the service's definition now fit it, checked against the
pinned definition (tests/contract/contract_definition.py) exchange by exchange: each case builds
the state the answer shows through the sandbox's own routes, then makes the request.

The cases are the classes of issue #39's mismatches: Git Sync priority, translation stats,
integrations on the organization and their statuses, link invites listed and read one by one
(every form), a site's proxy, a site's aggregate permissions, SAML providers made with a label
only, OpenAPI version content, and a member removal answered 202.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from contract_definition import Definition

from conftest import EDITOR_TOKEN, ORG

DEFINITION = Definition()
SITE = f"orgs/{ORG}/sites/site_docs"
PETSTORE = "https://example.com/petstore.json"


def fits(
    response: httpx.Response, body: Any = None, *, known: tuple[str, ...] = ()
) -> httpx.Response:
    """``response`` after checking its exchange against the definition: no mismatch but the
    ``known`` ones (the end of each line)."""
    request = response.request
    sent = None if body is None else json.dumps(body)
    mismatches = DEFINITION.check(
        request.method,
        request.url.path,
        request.url.query.decode(),
        sent,
        response.status_code,
        response.text,
    )
    assert [m.line() for m in mismatches if not m.line().endswith(known)] == []
    return response


def new_space(api: Any, title: str = "Handbook") -> str:
    return str(api.post(f"orgs/{ORG}/spaces", json={"title": title}).json()["id"])


def sent(
    api: Any, method: str, path: str, body: Any = None, *, known: tuple[str, ...] = ()
) -> httpx.Response:
    """A request whose request and answer both must fit."""
    kwargs = {} if body is None else {"json": body}
    return fits(api.request(method, path, **kwargs), body, known=known)


def git_installation(api: Any) -> list[httpx.Response]:
    target = {"type": "space", "spaceId": new_space(api)}
    made = sent(api, "POST", "git/installations", {"provider": "github", "target": target})
    one = f"git/installations/{made.json()['id']}"
    config = {"repositoryId": 42, "branch": "refs/heads/main"}
    body = {"provider": "github", "providerConfiguration": config, "priority": "gitbook"}
    return [made, sent(api, "PATCH", one, body), sent(api, "GET", one)]


def translation(api: Any) -> list[httpx.Response]:
    body = {"language": "fr", "source": {"space": new_space(api), "language": "en"}}
    made = sent(api, "POST", f"orgs/{ORG}/translations", body)
    one = f"orgs/{ORG}/translations/{made.json()['id']}"
    return [made, sent(api, "GET", f"orgs/{ORG}/translations"), sent(api, "GET", one)]


def installations(api: Any) -> list[httpx.Response]:
    made = sent(api, "POST", "integrations/segment/installations", {"organization": ORG})
    on_space = f"integrations/segment/installations/{made.json()['id']}/spaces"
    sent(api, "POST", on_space, {"space": new_space(api)})
    status = f"orgs/{ORG}/integrations/installations-status"
    return [
        sent(api, "GET", f"orgs/{ORG}/installations"),
        sent(api, "GET", status),
        sent(api, "GET", f"{status}?target=space"),
    ]


def link_invites(api: Any) -> list[httpx.Response]:
    invites = f"orgs/{ORG}/link-invites"
    made = [
        sent(api, "POST", invites, {"role": "read"}),
        sent(api, "POST", invites, {"level": "read", "space": new_space(api)}),
    ]
    one = [sent(api, "GET", f"{invites}/{invite.json()['id']}") for invite in made]
    return [*made, *one, sent(api, "GET", invites)]


def proxied_site(api: Any) -> list[httpx.Response]:
    return [
        sent(api, "PATCH", SITE, {"proxy": "acme.test/help"}),
        sent(api, "GET", SITE),
        sent(api, "GET", f"orgs/{ORG}/sites"),
        sent(api, "POST", f"{SITE}/publish"),
    ]


def site_aggregate(api: Any) -> list[httpx.Response]:
    sent(api, "POST", f"{SITE}/permissions", {"role": "edit", "users": ["u_bob"]})
    team = api.put(f"orgs/{ORG}/teams", json={"title": "Writers", "members": ["u_erin"]}).json()
    sent(api, "POST", f"{SITE}/permissions", {"role": "admin", "teams": [team["id"]]})
    return [sent(api, "GET", f"{SITE}/permissions/aggregate")]


#: The definition's create takes a label alone, yet its answer requires an ``ssoURL`` that is a
#: URI: the sandbox answers an unset one as "" and invents no URL (docs/service.md).
UNSET_SSO_URL = ("ssoURL: '' is not a 'uri'",)


def saml_with_a_label_only(api: Any) -> list[httpx.Response]:
    made = sent(api, "POST", f"orgs/{ORG}/saml", {"label": "Okta"}, known=UNSET_SSO_URL)
    assert {k: made.json()[k] for k in ("entityID", "ssoURL", "certificate", "status")} == {
        "entityID": "",
        "ssoURL": "",
        "certificate": "",
        "status": "pending",
    }
    one = f"orgs/{ORG}/saml/{made.json()['id']}"
    configured = {"entityID": "https://idp.example.com", "ssoURL": "https://idp.example.com/sso"}
    configured["certificate"] = "MIIC-test-certificate"
    return [
        made,
        sent(api, "GET", f"orgs/{ORG}/saml", known=UNSET_SSO_URL),
        sent(api, "PATCH", one, configured),
        sent(api, "GET", one),
    ]


def openapi_content(api: Any) -> list[httpx.Response]:
    made = sent(api, "POST", f"orgs/{ORG}/openapi", {"slug": "pets", "source": {"url": PETSTORE}})
    spec = f"orgs/{ORG}/openapi/pets"
    version = made.json()["lastVersion"]
    private = sent(api, "GET", f"{spec}/versions/latest/content")
    sent(api, "PATCH", spec, {"visibility": "public"})
    return [private, sent(api, "GET", f"{spec}/versions/{version}/content")]


def member_removal_request(api: Any) -> list[httpx.Response]:
    asked = api.delete(
        f"orgs/{ORG}/members/u_bob", headers={"Authorization": f"Bearer {EDITOR_TOKEN}"}
    )
    return [fits(asked), sent(api, "DELETE", f"orgs/{ORG}/members/u_bob")]


CASES: dict[str, Callable[[Any], list[httpx.Response]]] = {
    "git-sync-priority": git_installation,
    "translation-stats": translation,
    "organization-installations": installations,
    "link-invites": link_invites,
    "site-proxy": proxied_site,
    "site-aggregate": site_aggregate,
    "saml-label-only": saml_with_a_label_only,
    "openapi-content": openapi_content,
    "member-removal": member_removal_request,
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_answers_fit_the_definition(api: Any, case: str) -> None:
    answers = CASES[case](api)
    assert all(response.status_code < 300 for response in answers), [
        (r.request.url.path, r.status_code, r.text) for r in answers
    ]


def test_enabling_an_installation_on_a_space_twice_answers_it_as_it_stands(api: Any) -> None:
    # The definition lists 201 and 404 only: no conflict for a space already enabled.
    made = sent(api, "POST", "integrations/segment/installations", {"organization": ORG})
    on_space = f"integrations/segment/installations/{made.json()['id']}/spaces"
    space = new_space(api)
    first = sent(api, "POST", on_space, {"space": space})
    again = sent(api, "POST", on_space, {"space": space})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    listed = sent(api, "GET", on_space).json()["items"]
    assert [item["space"] for item in listed].count(space) == 1
