"""End to end: secrets in plans and applies.

A SAML certificate (``{file: cert.pem}``), an OpenAPI source URL with credentials in it and
one written ``${env:NAME}`` never appear in any output docform prints or saves: plan text,
``--json``, ``--markdown``, the ``--out`` file and ``apply --json``. They show as
``(sensitive)``, calls carry ``{"$secret": "<address>.<field>"}``, and ``apply PLANFILE`` reads
them from the manifests again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from planning import (
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    run,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
CERT = "-----BEGIN CERTIFICATE-----\nMIIBc3cr3tCertBody\n-----END CERTIFICATE-----"
PASSWORD = "pa55word"
CREDENTIALS_URL = f"https://user:{PASSWORD}@specs.example.test/x.yaml"
ENV_TOKEN = "tok3nInEnvOnly"
ENV_URL = f"https://specs.example.test/internal.yaml?v={ENV_TOKEN}"
SECRET_TEXTS = ("MIIBc3cr3tCertBody", PASSWORD, ENV_TOKEN)

MANIFEST = {
    "organization": {"id": "org_acme"},
    "openapi": {
        "private": {"slug": "private", "source": {"url": CREDENTIALS_URL}},
        "internal": {"slug": "internal", "source": {"url": "${env:INTERNAL_SPEC_URL}"}},
    },
    "saml": {"okta": {"label": "Okta", "certificate": {"file": "cert.pem"}}},
}
SECRET_REFS = {
    "saml.okta": {"$secret": "saml.okta.certificate"},
    "openapi.private": {"$secret": "openapi.private.source.url"},
    "openapi.internal": {"$secret": "openapi.internal.source.url"},
}


@pytest.fixture
def manifests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The three secrets to create; ``INTERNAL_SPEC_URL`` is set for the whole test."""
    monkeypatch.setenv("INTERNAL_SPEC_URL", ENV_URL)
    directory = tmp_path / "manifests"
    write(directory, MANIFEST)
    (directory / "cert.pem").write_text(CERT + "\n", encoding="utf-8")
    return directory


def write(directory: Path, doc: dict[str, Any]) -> None:
    write_manifests(directory, yaml.safe_dump(doc, sort_keys=False))


def assert_no_secret(text: str) -> None:
    for secret in SECRET_TEXTS:
        assert secret not in text, f"{secret!r} leaked in:\n{text}"


def output_of(args: list[Any], sandbox: Path, exit_code: int = 0) -> str:
    """Everything ``docform *args`` printed (stdout and stderr), after checking its exit code."""
    result = run(args, sandbox)
    assert result.exit_code == exit_code, result.output
    return result.stdout + result.stderr


def save_plan(manifests: Path, sandbox: Path, tmp_path: Path) -> Path:
    out = tmp_path / "plan.json"
    output_of(["plan", manifests, "--out", out], sandbox)
    return out


def spec_url(sandbox: Path, slug: str) -> str:
    return live_api(sandbox, "GET", f"{ORG_PATH}/openapi/{slug}")["sourceURL"]


def only_provider(sandbox: Path) -> dict[str, Any]:
    [provider] = live_api(sandbox, "GET", f"{ORG_PATH}/saml")["items"]
    return provider


# -- what plans show -----------------------------------------------------------------------------


def test_plan_text_shows_secrets_as_sensitive(sandbox: Path, manifests: Path) -> None:
    text = output_of(["plan", manifests, "-v"], sandbox)
    assert_no_secret(text)
    assert "(sensitive)" in text


def test_plan_markdown_hides_secrets(sandbox: Path, manifests: Path) -> None:
    text = output_of(["plan", manifests, "--markdown"], sandbox)
    assert_no_secret(text)
    assert "(sensitive)" in text


def test_plan_json_marks_secrets_sensitive(sandbox: Path, manifests: Path) -> None:
    plan = plan_json(manifests, sandbox)
    assert_no_secret(json.dumps(plan))
    saml = change(plan, "saml.okta", "create")
    assert saml["after"]["certificate"] == "(sensitive)"
    assert {"path": "certificate", "before": "(sensitive)", "after": "(sensitive)"} in (
        saml["fields"]
    )
    for address in ("openapi.private", "openapi.internal"):
        spec = change(plan, address, "create")
        assert spec["after"]["sourceURL"] == "(sensitive)"


@pytest.mark.parametrize(
    ("address", "method", "path", "body"),
    [
        ("saml.okta", "POST", "saml", {"label": "Okta", "certificate": SECRET_REFS["saml.okta"]}),
        (
            "openapi.private",
            "POST",
            "openapi",
            {"slug": "private", "source": {"url": SECRET_REFS["openapi.private"]}},
        ),
        (
            "openapi.internal",
            "POST",
            "openapi",
            {"slug": "internal", "source": {"url": SECRET_REFS["openapi.internal"]}},
        ),
    ],
)
def test_plan_calls_carry_secret_references(
    sandbox: Path, manifests: Path, address: str, method: str, path: str, body: Any
) -> None:
    plan = plan_json(manifests, sandbox)
    assert calls(change(plan, address)) == [(method, f"{ORG_PATH}/{path}", body)]


def test_plain_source_url_is_not_sensitive(sandbox: Path, manifests: Path) -> None:
    url = "https://specs.example.test/public.yaml"
    write(
        manifests, {**MANIFEST, "openapi": {"public": {"slug": "public", "source": {"url": url}}}}
    )
    spec = change(plan_json(manifests, sandbox), "openapi.public")
    assert spec["after"]["sourceURL"] == url
    assert calls(spec) == [
        ("POST", f"{ORG_PATH}/openapi", {"slug": "public", "source": {"url": url}})
    ]


def test_saved_plan_holds_references_not_secrets(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    text = save_plan(manifests, sandbox, tmp_path).read_text(encoding="utf-8")
    assert_no_secret(text)
    saved = json.loads(text)
    bodies = json.dumps([c["calls"] for c in saved["changes"]])
    for ref in SECRET_REFS.values():
        assert json.dumps(ref) in bodies


# -- applying ------------------------------------------------------------------------------------


def test_apply_planfile_sends_the_real_secrets(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    out = save_plan(manifests, sandbox, tmp_path)
    printed = output_of(["apply", out, "--json"], sandbox)
    assert_no_secret(printed)
    assert only_provider(sandbox)["certificate"] == CERT
    assert spec_url(sandbox, "private") == CREDENTIALS_URL
    assert spec_url(sandbox, "internal") == ENV_URL
    assert_converged(manifests, sandbox)


def test_apply_directory_output_hides_secrets(sandbox: Path, manifests: Path) -> None:
    printed = output_of(["apply", manifests, "--yes", "--json"], sandbox)
    assert_no_secret(printed)
    assert only_provider(sandbox)["certificate"] == CERT


def test_apply_planfile_without_the_secret_in_manifests_fails(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    out = save_plan(manifests, sandbox, tmp_path)
    write(manifests, {**MANIFEST, "saml": {"okta": {"label": "Okta"}}})
    printed = output_of(["apply", out], sandbox, exit_code=1)
    assert "so nothing was applied: planned differently now: saml.okta (create): " in printed
    assert live_api(sandbox, "GET", f"{ORG_PATH}/saml")["items"] == []


def test_missing_secret_is_found_before_the_first_write(
    sandbox: Path, manifests: Path, tmp_path: Path
) -> None:
    out = save_plan(manifests, sandbox, tmp_path)
    write(manifests, {**MANIFEST, "saml": {"okta": {"label": "Okta"}}})
    output_of(["apply", out], sandbox, exit_code=1)
    assert live_api(sandbox, "GET", f"{ORG_PATH}/openapi")["items"] == []


def test_apply_planfile_without_the_env_variable_fails(
    sandbox: Path, manifests: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = save_plan(manifests, sandbox, tmp_path)
    monkeypatch.delenv("INTERNAL_SPEC_URL")
    printed = output_of(["apply", out], sandbox, exit_code=1)
    assert "INTERNAL_SPEC_URL" in printed
    assert live_api(sandbox, "GET", f"{ORG_PATH}/openapi")["items"] == []


# -- secrets already live ------------------------------------------------------------------------


def arrange_live(sandbox: Path) -> None:
    """The three secrets as live objects, as an earlier apply would have made them."""
    live_api(sandbox, "POST", f"{ORG_PATH}/saml", {"label": "Okta", "certificate": CERT})
    for slug, url in (("private", CREDENTIALS_URL), ("internal", ENV_URL)):
        live_api(sandbox, "POST", f"{ORG_PATH}/openapi", {"slug": slug, "source": {"url": url}})


def test_live_secrets_matching_manifests_converge(sandbox: Path, manifests: Path) -> None:
    arrange_live(sandbox)
    assert plan_json(manifests, sandbox)["changes"] == []


def test_changed_certificate_hides_old_and_new(sandbox: Path, manifests: Path) -> None:
    live_api(sandbox, "POST", f"{ORG_PATH}/saml", {"label": "Okta", "certificate": "OLDc3rt"})
    text = output_of(["plan", manifests, "--json"], sandbox)
    assert "OLDc3rt" not in text
    assert change(json.loads(text), "saml.okta", "update")["before"] == {
        "certificate": "(sensitive)"
    }
    apply(manifests, sandbox)
    assert only_provider(sandbox)["certificate"] == CERT


def test_pruned_saml_provider_hides_its_certificate(sandbox: Path, manifests: Path) -> None:
    arrange_live(sandbox)
    doc = {**MANIFEST, "saml": {}, "docform": {"prune": {"saml": True}}}
    write(manifests, doc)
    text = output_of(["plan", manifests, "--json"], sandbox)
    [pruned] = json.loads(text)["changes"]
    assert pruned["action"] == "delete"
    assert_no_secret(text)


def test_credentials_removed_from_source_url_stay_hidden(sandbox: Path, manifests: Path) -> None:
    arrange_live(sandbox)
    plain = "https://specs.example.test/x.yaml"
    openapi = {**MANIFEST["openapi"], "private": {"slug": "private", "source": {"url": plain}}}
    write(manifests, {**MANIFEST, "openapi": openapi})
    text = output_of(["plan", manifests, "--json"], sandbox)
    assert change(json.loads(text), "openapi.private", "update")["after"] == {"sourceURL": plain}
    assert_no_secret(text)


@pytest.mark.parametrize("format_option", [[], ["--markdown"], ["--json"]])
def test_drift_hides_credentials_removed_from_source_url(
    sandbox: Path, manifests: Path, format_option: list[str]
) -> None:
    arrange_live(sandbox)
    plain = "https://specs.example.test/x.yaml"
    openapi = {**MANIFEST["openapi"], "private": {"slug": "private", "source": {"url": plain}}}
    write(manifests, {**MANIFEST, "openapi": openapi})
    text = output_of(["drift", manifests, *format_option], sandbox, exit_code=2)
    assert_no_secret(text)
    assert ("sourceURL: live (sensitive)" in text) or format_option == ["--json"]


@pytest.mark.parametrize(
    "args",
    [["plan"], ["plan", "--markdown"], ["plan", "--json"], ["drift", "--markdown"]],
    ids=["plan", "markdown", "json", "drift"],
)
def test_a_settings_value_from_the_environment_is_refused_unread(
    sandbox: Path, tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``${env:}`` in an ignore pattern or the ``api:`` URL would print its value (the token)
    in messages, or send it into a DNS lookup: only secret fields may read the environment."""
    monkeypatch.setenv("HOME_SECRET", ENV_TOKEN)
    directory = write_manifests(
        tmp_path / "m",
        """\
        organization: {id: org_acme}
        docform:
          ignore: ["team.${env:DOCFORM_API_TOKEN}", "team.${env:HOME_SECRET}"]
        """,
    )
    text = output_of([args[0], directory, *args[1:]], sandbox, exit_code=1)
    assert_no_secret(text)
    assert "main.yaml:3:12: docform.ignore[0]: ${env:...} is only" in text
