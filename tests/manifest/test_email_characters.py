"""Emails with invisible or direction-changing characters (model/fields.py): refused in the
manifests with their location, and shown escaped when a live member has one, so that one
address never passes for another in review."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.untrusted.lookalikes import deceptive_text
from planning import live_api, run, write_manifests

HEAD = "organization: {id: org_acme}\nmembers:\n  alice@acme.test: admin\n"
# Cyrillic and Greek letters and the Latin ones they pass for.
LATIN_LOOK_ALIKES = {"\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p",
                     "\u0441": "c", "\u0445": "x", "\u0443": "y", "\u03bf": "o",
                     "\u0456": "i", "\u0455": "s"}  # fmt: skip
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


@pytest.mark.parametrize(
    ("email", "problem"),
    [
        ("\u0430da@acme.test", "mixes scripts (Cyrillic, Latin) in '\\u0430da'"),
        ("ada@acm\u0435.test", "mixes scripts (Cyrillic, Latin) in 'acm\\u0435'"),
        ("\uff46\uff55\uff4c\uff4c@acme.test", "writes 'full@acme.test' with look-alike forms"),
        ("ada@acme.te\u0455t", "mixes scripts (Cyrillic, Latin) in 'te\\u0455t'"),
    ],
    ids=["cyrillic-a", "cyrillic-e-in-domain", "fullwidth", "cyrillic-dze"],
)
def test_a_look_alike_email_is_refused_where_written(tmp_path, sandbox, email, problem):
    manifests = write_manifests(tmp_path / "m", HEAD + f"  {email}: read\n")
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1, result.output
    assert f"main.yaml:4:3: members.{email}: " in result.output
    assert problem in result.output


@pytest.mark.parametrize(
    "email", ["jos\u00e9@acme.test", "m\u00fcller@acme.test", "\u0438\u0432\u0430\u043d@acme.test"]
)
def test_an_email_in_one_script_with_no_look_alike_is_kept(tmp_path, sandbox, email):
    manifests = write_manifests(tmp_path / "m", HEAD + f"  {email}: read\n")
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 0, result.output


@settings(max_examples=fuzz_examples(25), deadline=None)
@given(
    name=st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=8),
    at=st.integers(min_value=0, max_value=7),
    swap=st.sampled_from(sorted(LATIN_LOOK_ALIKES)),
)
def test_a_latin_address_with_one_letter_swapped_for_a_look_alike_never_validates(
    name: str, at: int, swap: str
) -> None:
    """Any one Latin letter replaced by its Cyrillic or Greek twin is refused (as long as the
    part keeps a Latin letter: a part all in one other script is that script's own name)."""
    if LATIN_LOOK_ALIKES[swap] not in name:
        name = name[: at % len(name)] + LATIN_LOOK_ALIKES[swap] + name[at % len(name) + 1 :]
    spoofed = name.replace(LATIN_LOOK_ALIKES[swap], swap, 1)
    assert deceptive_text(f"{spoofed}@acme.test") is not None
    assert deceptive_text(f"{name}@acme.test") is None
