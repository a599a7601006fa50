"""How plans read to people (render/values.py and its users): every value and call in full,
long ones over several lines, human keys after addresses, a compact form, named nulls."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.render.values import word_changes
from docform.untrusted.lookalikes import escape_controls
from planning import apply, live_api, run, write_manifests

ORG = "organization: {id: org_acme}\n"
PEOPLE = "members:\n  alice@acme.test: admin\n  erin@acme.test: edit\n  bob@acme.test: guest\n"
MANY = [f"member{n:02}@acme.test" for n in range(12)]


def many_members(tmp_path: Path) -> Path:
    """A team of twelve invited members: its calls are far longer than one line."""
    members = "".join(f"  {email}: read\n" for email in MANY)
    team = "".join(f"      {email}: member\n" for email in MANY)
    yaml = ORG + PEOPLE + members + "teams:\n  crowd:\n    title: Crowd\n    members:\n" + team
    return write_manifests(tmp_path / "m", yaml)


def test_text_shows_a_long_call_whole_over_several_lines(tmp_path, sandbox):
    result = run(["plan", many_members(tmp_path)], sandbox)
    assert result.exit_code == 0, result.output
    assert "..." not in result.stdout
    head = "      PUT /orgs/org_acme/teams/${team.crowd.id}/members\n        {\n"
    assert head in result.stdout
    body = result.stdout.split(head, 1)[1].split("\n        }\n", 1)[0]
    assert json.loads("{" + body + "}") == {"add": sorted(MANY)}


def test_text_shows_a_long_field_whole(tmp_path, sandbox):
    result = run(["plan", many_members(tmp_path)], sandbox)
    lines = result.stdout.split("  + team.crowd (Crowd)  (create)\n", 1)[1].splitlines()
    assert lines[:3] == ['      + title: "Crowd"', "      + members:", "          {"]
    assert f'            "{MANY[-1]}": "member"' in lines


def test_markdown_details_show_every_call_whole(tmp_path, sandbox):
    result = run(["plan", many_members(tmp_path), "--markdown"], sandbox)
    assert result.exit_code == 0, result.output
    assert "..." not in result.stdout
    assert all(f'"{email}"' in result.stdout for email in MANY)


def test_compact_leaves_the_calls_out(tmp_path, sandbox):
    manifests = many_members(tmp_path)
    text = run(["plan", manifests, "--compact"], sandbox)
    markdown = run(["plan", manifests, "--compact", "--markdown"], sandbox)
    assert (text.exit_code, markdown.exit_code) == (0, 0)
    for output in (text.stdout, markdown.stdout):
        assert "POST /orgs" not in output and "PUT /orgs" not in output
        assert '"Crowd"' in output
    assert "<details><summary>Details: fields</summary>" in markdown.stdout


def test_a_removed_member_is_named_by_email_in_text_markdown_and_drift(tmp_path, sandbox):
    manifests = write_manifests(
        tmp_path / "m", "docform: {prune: {members: true}}\n" + ORG + PEOPLE.split("  bob")[0]
    )
    text = run(["plan", manifests], sandbox).stdout
    markdown = run(["plan", manifests, "--markdown"], sandbox).stdout
    drift = run(["drift", manifests], sandbox).stdout
    drift_markdown = run(["drift", manifests, "--format", "markdown"], sandbox).stdout
    assert "  - member.~u_bob (bob@acme.test)  (delete u_bob)\n" in text
    assert "- :wastebasket: **delete** `member.~u_bob` (bob@acme.test)\n" in markdown
    assert "  - member.~u_bob (bob@acme.test)  (live, not in the manifests" in drift
    assert "| `-` | `member.~u_bob` (bob@acme.test) |" in drift_markdown


def test_unmanaged_objects_are_named_by_address_and_human_key(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", ORG + PEOPLE.split("  bob")[0])
    text = run(["plan", manifests], sandbox).stdout
    markdown = run(["plan", manifests, "--markdown"], sandbox).stdout
    drift = run(["drift", manifests], sandbox).stdout
    assert "  member.~u_bob (bob@acme.test)\n  site.~site_docs (Acme Docs)\n" in text
    assert "- `member.~u_bob` (bob@acme.test)\n- `site.~site_docs` (Acme Docs)\n" in markdown
    assert "    member.~u_bob (bob@acme.test)\n" in drift


def test_a_renamed_team_is_named_by_its_new_title(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", ORG + "teams:\n  core: {title: Core}\n")
    apply(manifests, sandbox)
    write_manifests(manifests, ORG + "teams:\n  core: {title: Core Team, formerly: [Core]}\n")
    result = run(["plan", manifests], sandbox)
    assert "  ~ team.core (Core Team)  (update " in result.stdout


def test_the_guest_role_reads_guest_not_none(tmp_path, sandbox):
    live_api(sandbox, "PATCH", "/orgs/org_acme", {"defaultRole": "read"})
    manifests = write_manifests(
        tmp_path / "m", "organization: {id: org_acme, defaultRole: guest}\n" + PEOPLE
    )
    text = run(["plan", manifests], sandbox).stdout
    drift = run(["drift", manifests], sandbox).stdout
    assert '      ~ defaultRole: "read" -> guest\n' in text
    assert "(none)" not in text
    assert '      defaultRole: live "read", manifests guest\n' in drift
    plan = json.loads(run(["plan", manifests, "--json"], sandbox).stdout)
    assert plan["changes"][0]["fields"] == [
        {"path": "defaultRole", "before": "read", "after": None, "null_means": "guest"}
    ]


def test_an_invited_guest_reads_guest(tmp_path, sandbox):
    manifests = write_manifests(tmp_path / "m", ORG + PEOPLE + "  dave@acme.test: guest\n")
    result = run(["plan", manifests], sandbox)
    assert "  + member.dave@acme.test  (create)\n      + role: guest\n" in result.stdout


WORDS = st.lists(
    st.sampled_from(["alpha", "beta", "gamma", "delta", "\u202e", "x\ny"]), max_size=40
)


@settings(max_examples=fuzz_examples(100))  # quick: hypothesis' default count
@given(WORDS, WORDS)
def test_a_word_diff_names_every_word_gone_and_new_on_lines_of_its_own(
    old: list[str], new: list[str]
) -> None:
    """Each removed word is in a ``[-...-]`` and each added one in a ``{+...+}``, counted
    exactly, and no line holds a character a terminal acts on."""
    lines = word_changes(" ".join(old), " ".join(new))
    gone = [w for line in lines for run_ in re.findall(r"\[-(.*?)-\]", line) for w in run_.split()]
    added = [
        w for line in lines for run_ in re.findall(r"\{\+(.*?)\+\}", line) for w in run_.split()
    ]
    old_words, new_words = " ".join(old).split(), " ".join(new).split()
    shown = [escape_controls(w) for w in old_words]
    assert Counter(gone) <= Counter(shown)
    assert len(old_words) - len(gone) == len(new_words) - len(added)
    assert (lines == ["  (only spacing)"]) == (old_words == new_words)
    assert not any("\n" in line or "\u202e" in line for line in lines)


def test_a_long_text_edited_shows_the_words_changed(tmp_path, sandbox):
    words = " ".join(f"rule{n}" for n in range(40))
    org = "organization:\n  id: org_acme\n  agentInstructions: {{markdown: '{}'}}\n"
    manifests = write_manifests(tmp_path / "m", org.format(words))
    apply(manifests, sandbox)
    write_manifests(manifests, org.format(words.replace("rule20", "law20")))
    text = run(["plan", manifests], sandbox).stdout
    assert "      ~ instructions: (words changed)\n" in text
    assert (
        "        ... rule17 rule18 rule19 [-rule20-] {+law20+} rule21 rule22 rule23 ...\n" in text
    )
    assert '- "rule0 ' not in text and '+ "rule0 ' not in text
    markdown = run(["plan", manifests, "--markdown"], sandbox).stdout
    assert "[-rule20-] {+law20+}" in markdown
