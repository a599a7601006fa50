"""Text from the service in every output: a live title or value with a carriage return, a
newline, an escape sequence, a bell or a direction change is shown escaped in the terminal
(render/text.py, render/drift.py, render/apply.py, the CLI's notes and errors), and as words in
Markdown: never a forged line, a moved cursor, a link or a mention."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.engine.plan import Change, FieldChange, Plan, Unmanaged
from docform.render.markdown import render_markdown
from docform.render.text import render_text
from planning import live_api, run, write_manifests

FORGED = "Plan: 0 to create."
CONTROLLING = "Old\r\n" + FORGED + "\x1b[2J\u202eX\x07\u2028"
LINKING = "[Approve](https://e.test/a) @octocat #12"
# Everything a terminal could act on but the line ends docform writes itself.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
SGR = re.compile(r"\x1b\[[0-9;]*m")
"""The colours and styles a terminal is sent (the only escapes docform writes itself)."""


@pytest.fixture
def hostile(sandbox: Path, tmp_path: Path) -> Path:
    """Manifests that retitle one live team (its title full of controls) and leave two
    unmanaged (one with controls, one with Markdown)."""
    team = live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": CONTROLLING})
    live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Other" + CONTROLLING})
    live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": LINKING})
    doc = f"organization: {{id: org_acme}}\nteams:\n  a: {{id: {team['id']}, title: New}}\n"
    return write_manifests(tmp_path / "m", doc)


@pytest.mark.parametrize(
    "command",
    [["plan"], ["plan", "-v"], ["drift"], ["drift", "-v"], ["apply", "--yes"]],
    ids=" ".join,
)
def test_terminal_output_shows_the_service_s_controls_escaped(
    sandbox: Path, hostile: Path, command: list[str]
) -> None:
    result = run([command[0], hostile, *command[1:]], sandbox)

    assert result.exit_code in (0, 2), result.output
    assert not RAW_CONTROL.search(result.output), repr(result.output)
    assert not any(line.startswith(FORGED) for line in result.output.splitlines())
    assert '"Old\\r\\nPlan: 0 to create.\\u001b[2J\\u202eX\\u0007\\u2028"' in result.output
    assert "(OtherOld\\r\\nPlan: 0 to create.\\u001b[2J\\u202eX\\u0007\\u2028)" in result.output


@pytest.mark.parametrize("command", [["plan", "--markdown"], ["drift", "--markdown"]])
def test_markdown_output_shows_the_service_s_text_as_words(
    sandbox: Path, hostile: Path, command: list[str]
) -> None:
    result = run([command[0], hostile, *command[1:]], sandbox)

    assert result.exit_code in (0, 2), result.output
    assert not RAW_CONTROL.search(result.stdout), repr(result.stdout)
    assert not any(line.startswith(FORGED) for line in result.stdout.splitlines())
    assert "](https://" not in result.stdout and "@octocat" not in result.stdout
    assert "\\[Approve\\](https:\u2060//e.test/a) @\u2060octocat #\u206012" in result.stdout


def plan_of(text: str) -> Plan:
    """A plan whose change, field, key and unmanaged title all hold ``text``."""
    plan = Plan(organization="org_acme")
    plan.unmanaged.append(Unmanaged("team", "t1", text))
    before = {"title": text}
    change = Change("team.a", "team", "update", "differs", before, {"title": "New"})
    change.fields.append(FieldChange("title", text, "New"))
    change.human_key = text
    plan.changes.append(change)
    plan.notes.append(text)
    return plan


@settings(max_examples=fuzz_examples(100))  # quick: hypothesis' default count
@given(st.text(min_size=1, max_size=30))
def test_no_title_or_value_changes_the_lines_of_a_plan(title: str) -> None:
    """Whatever a live title or value holds, the text and Markdown plans have the lines of a
    plain one and no character a terminal acts on."""
    for render in (render_text, render_markdown):
        shown, plain = render(plan_of(title)), render(plan_of("plain"))
        assert not RAW_CONTROL.search(shown), repr(shown)
        assert shown.count("\n") == plain.count("\n"), repr(shown)


@settings(max_examples=fuzz_examples(50), deadline=None)
@given(
    st.sampled_from(["notes", "warnings", "unmanaged"]), st.sampled_from(["\n", "\r\n", "\u2028"])
)
def test_no_line_of_a_plan_can_be_forged_by_a_note_a_warning_or_a_title(where, end):
    """Whatever a note, a warning or an unmanaged title holds, the plan's summary line is the
    only one that starts with "Plan:" (a saved plan's note read `x\\nPlan: 0 to create`)."""
    text = "all reviewed" + end + FORGED
    plan = Plan(organization="org_acme")
    if where == "unmanaged":
        plan.unmanaged = [Unmanaged("team", "tm_1", text)]
    else:
        setattr(plan, where, [text])
    lines = render_text(plan).splitlines()
    assert not any(line.strip() == FORGED for line in lines)


@settings(max_examples=fuzz_examples(100))
@given(st.text(min_size=1, max_size=30))
def test_the_plain_plan_is_the_coloured_one_without_its_colours(title: str) -> None:
    """The plain text (written without the console) says exactly what the coloured one says,
    whatever a title holds (tabs, wide characters, controls, markup)."""
    plan = plan_of(title)
    coloured = render_text(plan, color=True)
    assert SGR.sub("", coloured) == render_text(plan, color=False)
