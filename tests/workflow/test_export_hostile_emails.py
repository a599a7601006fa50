"""Export never reports success for manifests that do not validate: a member whose email
could pass for another address (look-alike letters, an invisible or direction-changing
character, a line break) or differs from another only in case is written as it is, reads
back as itself, and export exits 1 naming each one at its line and what to do."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from planning import run, seeded_sandbox

ADMIN = "admin@acme.test"
TOKEN = "tok_export_hostile_0123456789"
HOSTILE = {
    "look-alike": "p\u0430ypal@acme.test",
    "right-to-left": "eve\u202e@acme.test",
    "zero-width": "ma\u200bria@acme.test",
    "newline": "nl\n@acme.test",
    "next-line": "nel\u0085@acme.test",
    "case-duplicate": "Admin@acme.test",
}


def sandbox_with(tmp_path: Path, email: str) -> Path:
    members = [
        {"id": "u_admin", "email": ADMIN, "displayName": "Admin", "role": "admin"},
        {"id": "u_odd", "email": email, "displayName": "Odd", "role": "read"},
    ]
    seed = {
        "organizations": [{"id": "org_acme", "title": "Acme", "members": members}],
        "tokens": [{"token": TOKEN, "user": "u_admin"}],
    }
    seed_file = tmp_path / "seed.yaml"
    seed_file.write_text(yaml.safe_dump(seed), encoding="utf-8")  # escapes read back exactly
    return seeded_sandbox(tmp_path, seed_file)


@pytest.mark.parametrize("email", HOSTILE.values(), ids=HOSTILE.keys())
def test_an_email_docform_cannot_manage_fails_the_export_named_at_its_line(tmp_path, email):
    sandbox = sandbox_with(tmp_path, email)
    out = tmp_path / "exported"
    result = run(["export", "org_acme", out], sandbox, TOKEN)
    assert result.exit_code == 1, result.output
    written = (out / "members.yaml").read_text(encoding="utf-8")
    assert set(yaml.safe_load(written)["members"]) == {ADMIN, email}  # reads back as itself
    assert "\u202e" not in written and "\u200b" not in written  # never written raw
    assert f"{out}/members.yaml:" in result.stderr
    assert "the exported manifests do not validate (1 problem above)" in result.stderr
    assert "Fix each in the service" in result.stderr
    validated = run(["validate", out], sandbox, TOKEN)
    assert validated.exit_code == 1


def test_an_organization_of_ordinary_emails_exports_with_success(tmp_path):
    sandbox = sandbox_with(tmp_path, "zoë.müller@acme.test")
    out = tmp_path / "exported"
    result = run(["export", "org_acme", out], sandbox, TOKEN)
    assert result.exit_code == 0, result.output
    assert "zoë.müller@acme.test" in (out / "members.yaml").read_text(encoding="utf-8")
