"""Resolved secrets never show when the service echoes them (engine/apply.py,
untrusted/redact.py): a server in front of the sandbox answers the SAML and OpenAPI creates
with a 400 whose message repeats what it was sent, and `docform apply` prints FAIL lines and a
summary without it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from docform.cli import cli
from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.store import Store
from planning import served_app, write_manifests

TOKEN = "tok_secret_echo_admin_0123"
CERT_LINE = "MIIBsecretcertificatebody0123456789"
CERT = f"-----BEGIN CERTIFICATE-----\n{CERT_LINE}\n-----END CERTIFICATE-----"
PRIVATE = "glpat-private0123456789"
SOURCE = f"https://gitlab.example.test/api/v4/projects/7/raw/openapi.yaml?private_token={PRIVATE}"


def echoing(app: Any) -> Any:
    """``app``, except that creating a SAML provider or an OpenAPI spec answers 400 with a
    message that repeats the request body, as some services do."""

    async def serve(scope: dict, receive: Any, send: Any) -> None:
        route = f"{scope.get('method')} {scope.get('path')}"
        if route not in ("POST /v1/orgs/org_acme/saml", "POST /v1/orgs/org_acme/openapi"):
            return await app(scope, receive, send)
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        sent = json.loads(body)
        echoed = sent.get("certificate") or sent.get("source", {}).get("url")
        error = {"error": {"code": 400, "message": f"not accepted: {echoed}"}}
        raw = json.dumps(error).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(raw))]
        await send({"type": "http.response.start", "status": 400, "headers": headers})
        await send({"type": "http.response.body", "body": raw})

    return serve


@contextmanager
def echoing_sandbox(sandbox: Path) -> Iterator[str]:
    store = Store(sandbox)
    app = echoing(create_app(store, SandboxConfig(admin_tokens=(TOKEN,))))
    try:
        with served_app(app) as root:
            yield root
    finally:
        store.close()


def apply_with_secrets(root: str, manifests: Path, *more: str) -> Result:
    env = {
        "DOCFORM_API_URL": root,
        "DOCFORM_API_TOKEN": TOKEN,
        "NO_COLOR": "1",
        "CERT": CERT,
        "SPEC_URL": SOURCE,
    }
    return CliRunner().invoke(cli, ["apply", str(manifests), "--yes", *more], env=env)


MANIFESTS = """\
organization: {id: org_acme}
saml:
  okta:
    label: Okta
    entityID: https://okta.example.test/entity
    ssoURL: https://okta.example.test/sso
    certificate: ${env:CERT}
openapi:
  petstore:
    slug: petstore
    source: {url: "${env:SPEC_URL}"}
"""


def test_secrets_the_service_echoes_in_errors_are_masked(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", MANIFESTS)
    with echoing_sandbox(sandbox) as root:
        result = apply_with_secrets(root, manifests)
    assert result.exit_code == 1
    for secret in (CERT, CERT_LINE, SOURCE, PRIVATE):
        assert secret not in result.output
    failures = [line for line in result.stderr.splitlines() if line.startswith("  failed: ")]
    assert failures == [
        "  failed: openapi.petstore#create: POST /orgs/org_acme/openapi failed: 400 not "
        "accepted: https://gitlab.example.test/api/v4/projects/7/raw/openapi.yaml?"
        "private_token=*** The service refused the request as invalid; check the value the "
        "message names.",
        "  failed: saml.okta#create: POST /orgs/org_acme/saml failed: 400 not accepted: ***. "
        "The service refused the request as invalid; check the value the message names.",
    ]
    with echoing_sandbox(sandbox) as root:
        as_json = apply_with_secrets(root, write_manifests(tmp_path / "j", MANIFESTS), "--json")
    for secret in (CERT, CERT_LINE, SOURCE, PRIVATE):
        assert secret not in as_json.output
    events = [json.loads(line) for line in as_json.stdout.splitlines()]
    calls = [e for e in events if e["type"] == "call"]
    # Events are written as the calls fail, and the two creates run concurrently.
    assert sorted(e["message"].split(": 400 ")[1][:18] for e in calls) == [
        "not accepted: ***.",
        "not accepted: http",
    ]
    assert sorted(f["message"].split(": 400 ")[1][:18] for f in events[-1]["failed"]) == [
        "not accepted: ***.",
        "not accepted: http",
    ]


def test_each_line_of_a_certificate_and_the_credentials_of_a_url_are_masked_alone():
    from docform.untrusted.redact import redact_text, secret_fragments

    fragments = secret_fragments([CERT, "https://user:pass-w0rd-9@host.test/x?sig=abcdefgh12"])
    echoed = f"line 2 is {CERT_LINE}; password pass-w0rd-9; sig abcdefgh12"
    assert redact_text(echoed, fragments) == "line 2 is ***; password ***; sig ***"
