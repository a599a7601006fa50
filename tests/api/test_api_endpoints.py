"""Every sandbox endpoint, called through docform's own `ApiClient` on a ``sandbox:FILE`` URL.

The family tests (tests/api/families/, `endpoint_families`) call each route family's
endpoints. `test_every_sandbox_endpoint_is_called_by_a_family_test` runs the family tests again
while recording each call below the client (those this process has not run), maps the concrete
paths to the sandbox's path templates and fails naming every endpoint of ``ENDPOINTS`` that no
family test calls successfully, so a new endpoint cannot land without a client test. Here too:
how the client reports the sandbox's refusals.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from endpoint_families import (
    FAMILY_CALLS,
    SentCall,
    Session,
    every_family,
    open_session,
    seeded_sandbox,
)

from conftest import ORG
from docform.api import ApiStatusError
from docform.workflow.connect import Client
from docform_sandbox.http import Endpoint
from docform_sandbox.routes import ENDPOINTS
from docform_sandbox.transport import SandboxTransport

pytestmark = pytest.mark.anyio

WRONG_TOKEN = "tok_wrong_5a4b3c2d1e0f"


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
async def test_a_limit_above_1000_raises_400_with_the_sandbox_message(session: Session) -> None:
    with pytest.raises(ApiStatusError) as caught:
        await session.api.get(f"/orgs/{ORG}/teams", params={"limit": 1001})
    exc = caught.value
    assert (exc.status, exc.method, exc.path) == (400, "GET", f"/orgs/{ORG}/teams")
    assert exc.api_message == "limit: must be an integer from 0 to 1000"
    assert str(exc) == (
        f"GET /orgs/{ORG}/teams failed: 400 limit: must be an integer from 0 to 1000. "
        "The service refused the request as invalid; check the value the message names."
    )


async def test_an_unknown_team_raises_404_naming_it(session: Session) -> None:
    with pytest.raises(ApiStatusError) as caught:
        await session.api.get(f"/orgs/{ORG}/teams/team_missing")
    exc = caught.value
    assert (exc.status, exc.path) == (404, f"/orgs/{ORG}/teams/team_missing")
    assert exc.api_message == "team 'team_missing' not found"


async def test_a_wrong_token_raises_401_without_the_token(tmp_path: Path) -> None:
    sandbox = seeded_sandbox(tmp_path)
    # A transport of its own makes the sandbox check the token instead of trusting it.
    transport = SandboxTransport(sandbox)
    async with Client(f"sandbox:{sandbox}", token=WRONG_TOKEN, transport=transport) as api:
        with pytest.raises(ApiStatusError) as caught:
            await api.get(f"/orgs/{ORG}")
    exc = caught.value
    assert (exc.status, exc.api_message) == (401, "the bearer token is not valid")
    assert WRONG_TOKEN not in f"{exc} {exc!r} {exc.api_message}"


# -- coverage ----------------------------------------------------------------------------------


def template_pattern(template: str) -> re.Pattern[str]:
    """A path template (``/spaces/{spaceId}``) as a pattern of the concrete paths it routes."""
    segments = [
        "[^/]+" if s.startswith("{") and s.endswith("}") else re.escape(s)
        for s in template.split("/")
    ]
    return re.compile("/".join(segments))


def endpoint_of(method: str, path: str) -> Endpoint | None:
    """The endpoint a call reaches; a literal segment (``versions/latest``) beats a variable."""
    matches = [
        ep for ep in ENDPOINTS if ep.method == method and template_pattern(ep.path).fullmatch(path)
    ]
    return min(matches, key=lambda ep: ep.path.count("{"), default=None)


async def test_every_sandbox_endpoint_is_called_by_a_family_test(tmp_path: Path) -> None:
    calls: list[SentCall] = []
    for test in every_family():
        if test.__name__ not in FAMILY_CALLS:
            async with open_session(tmp_path / test.__name__) as session:
                await test(session)
                FAMILY_CALLS[test.__name__] = session.calls
        calls.extend(FAMILY_CALLS[test.__name__])
    reached = {(c.method, c.path): endpoint_of(c.method, c.path) for c in calls}
    assert [call for call, ep in reached.items() if ep is None] == []
    covered = {
        (ep.method, ep.path)
        for c in calls
        if 200 <= c.status < 300 and (ep := reached[c.method, c.path]) is not None
    }
    missing = [f"{ep.method} {ep.path}" for ep in ENDPOINTS if (ep.method, ep.path) not in covered]
    assert missing == [], f"endpoints no client test calls: {', '.join(missing)}"
