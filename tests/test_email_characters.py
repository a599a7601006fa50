"""Emails with invisible or direction-changing characters (model/fields.py): refused in the
manifests with their location, and shown escaped when a live member has one, so that one
address never passes for another in review."""

from __future__ import annotations

import pytest

from planning import live_api, run, write_manifests

HEAD = "organization: {id: org_acme}\nmembers:\n  alice@acme.test: admin\n"
EMAIL_MESSAGE = (
    "is not an email address (one without spaces, and without invisible or direction-changing "
    "characters, which make one address look like another)"
)


@pytest.mark.parametrize(
    ("email", "shown"),
    [
        ("bob\u200b@acme.test", "bob\\u200b@acme.test"),
        ("\u202etset.emca@bob", "\\u202etset.emca@bob"),
        ("bob@acme\u2066.test", "bob@acme\\u2066.test"),
        ("bob@\ufeffacme.test", "bob@\\ufeffacme.test"),
    ],
)
def test_a_member_email_with_an_invisible_character_is_refused_where_written(
    tmp_path, sandbox, email, shown
):
    manifests = write_manifests(tmp_path / "m", HEAD + f"  {email}: read\n")
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert f"main.yaml:4:3: members.{email}: '{shown}' {EMAIL_MESSAGE}" in result.output
    assert email not in result.output.replace(f"members.{email}", "")


def test_a_team_member_email_with_a_zero_width_space_is_refused(tmp_path, sandbox):
    teams = (
        'teams:\n  platform:\n    title: Platform\n    members: {"alice\u200b@acme.test": owner}\n'
    )
    manifests = write_manifests(tmp_path / "m", HEAD + teams)
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert EMAIL_MESSAGE in result.output


def test_a_live_member_email_with_a_direction_override_is_shown_escaped(tmp_path, sandbox):
    spoofed = "alice\u202e@acme.test"
    live_api(sandbox, "POST", "/orgs/org_acme/invites", {"emails": [spoofed], "role": "read"})
    manifests = write_manifests(tmp_path / "m", HEAD)
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 0, result.output
    assert "member.~" in result.output
    assert "(alice\\u202e@acme.test)" in result.output
    assert spoofed not in result.output
