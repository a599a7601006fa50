"""Markdown that fits a pull-request comment or an issue (render/limit.py): over the limit it
is summarised, never cut, keeping every deletion and safety rail, and the whole of it goes to
``--markdown-out``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from planning import run, write_manifests

GITHUB_LIMIT = 65_536
INVITES = 400


def big_plan(tmp_path: Path, invites: int = INVITES) -> Path:
    """Manifests that invite ``invites`` members and prune Bob, so the plan deletes one member,
    and (with maxDeletions 0) breaks a safety rail."""
    members = "".join(f"  person{n:04}@acme.test: read\n" for n in range(invites))
    yaml = (
        "docform: {prune: {members: true}, limits: {maxDeletions: 0}}\n"
        "organization: {id: org_acme}\n"
        "members:\n  alice@acme.test: admin\n  erin@acme.test: edit\n" + members
    )
    return write_manifests(tmp_path / "m", yaml)


def assert_valid_markdown(text: str) -> None:
    """No code fence or <details> block left open."""
    assert len(re.findall(r"^```", text, re.MULTILINE)) % 2 == 0
    assert text.count("<details>") == text.count("</details>")


def test_a_plan_over_a_comment_s_limit_is_summarised_within_it(tmp_path, sandbox):
    whole = tmp_path / "plan-full.md"
    result = run(
        ["plan", big_plan(tmp_path), "--markdown", "--force", "--markdown-out", whole], sandbox
    )
    assert result.exit_code == 0, result.output
    comment = result.stdout
    assert len(comment) <= 64_000
    assert len(whole.read_text(encoding="utf-8")) > GITHUB_LIMIT
    assert_valid_markdown(comment)
    assert comment.startswith("### docform plan\n\n**Plan: 400 to create, 0 to update, 1 to ")
    assert "> **`--force` bypasses 1 safety rail:**\n>\n> - `max-deletions`: " in comment
    assert "- :wastebasket: **delete** `member.~u_bob` (bob@acme.test)\n" in comment
    assert "the rest is summarised. The whole plan is in `" + str(whole) + "`." in comment


def test_the_whole_markdown_plan_holds_every_call(tmp_path, sandbox):
    whole = tmp_path / "plan-full.md"
    run(["plan", big_plan(tmp_path), "--force", "--markdown-out", whole], sandbox)
    text = whole.read_text(encoding="utf-8")
    assert_valid_markdown(text)
    assert text.count('POST /orgs/org_acme/invites {"emails": ["person') == INVITES


def test_a_plan_within_the_limit_is_printed_whole(tmp_path, sandbox):
    manifests = big_plan(tmp_path, invites=3)
    whole = tmp_path / "plan-full.md"
    result = run(["plan", manifests, "--markdown", "--markdown-out", whole], sandbox)
    assert result.stdout == whole.read_text(encoding="utf-8")
    assert "Too long" not in result.stdout


def test_without_markdown_out_the_summary_says_how_to_get_the_whole(tmp_path, sandbox):
    result = run(
        ["plan", big_plan(tmp_path, 40), "--markdown", "--markdown-limit", "3000"], sandbox
    )
    assert len(result.stdout) <= 3000
    assert_valid_markdown(result.stdout)
    assert "Write the whole of it with `--markdown-out FILE`." in result.stdout
    assert re.search(
        r"\n\.\.\.and \d+ more changes \(\d+ member create\): see the whole plan", result.stdout
    )
    assert "> - `max-deletions`: the plan deletes 1 objects, more than the 0 allowed" in (
        result.stdout
    )


def test_a_drift_report_over_the_limit_is_summarised_within_it(tmp_path, sandbox):
    manifests = big_plan(tmp_path)
    report, whole = tmp_path / "drift.md", tmp_path / "drift-full.md"
    result = run(["drift", manifests, "--report", report, "--markdown-out", whole], sandbox)
    assert result.exit_code == 2, result.output
    body = report.read_text(encoding="utf-8")
    assert len(body) <= 64_000 < len(whole.read_text(encoding="utf-8"))
    assert_valid_markdown(body)
    assert "| `-` | `member.~u_bob` (bob@acme.test) | live, not in the manifests" in body
    assert "> - `max-deletions`: the plan deletes 1 objects" in body
    assert f"The whole report is in `{whole}`." in body


def test_a_drift_report_cut_to_a_small_limit_keeps_every_deletion(tmp_path, sandbox):
    result = run(
        ["drift", big_plan(tmp_path), "--format", "markdown", "--markdown-limit", "6000"], sandbox
    )
    assert len(result.stdout) <= 6000
    assert_valid_markdown(result.stdout)
    assert "`member.~u_bob` (bob@acme.test)" in result.stdout
    assert re.search(r"\.\.\.and \d+ more differences: see the whole report\.", result.stdout)


def test_drift_markdown_and_json_take_the_markdown_limit_and_out(tmp_path, sandbox):
    """drift's --markdown/--json (printed) beside --markdown-limit/--markdown-out (written)."""
    manifests, whole = big_plan(tmp_path), tmp_path / "drift-full.md"
    command = ["drift", manifests, "--markdown-out", whole]
    printed = run([*command, "--markdown", "--markdown-limit", "6000"], sandbox)
    assert printed.exit_code == 2, printed.output
    assert len(printed.stdout) <= 6000 < len(whole.read_text(encoding="utf-8"))
    assert_valid_markdown(printed.stdout)
    assert f"The whole report is in `{whole}`." in printed.stdout
    whole.unlink()
    as_json = run([*command, "--json"], sandbox)
    assert as_json.exit_code == 2, as_json.output
    assert json.loads(as_json.stdout)["status"] == "drift"
    assert whole.read_text(encoding="utf-8").startswith("### docform drift\n\n**Drift found.**")


def test_several_organizations_fit_the_limit_together(tmp_path, sandbox):
    repo = tmp_path / "repo"
    big_plan(repo / "acme")
    write_manifests(
        repo / "other",
        "organization: {id: org_other}\nmembers: {carol@other.test: admin}\n"
        "teams: {core: {title: Core}}\n",
    )
    result = run(["plan", repo, "--markdown", "--force", "--markdown-limit", "20000"], sandbox)
    assert result.exit_code == 0, result.output
    assert len(result.stdout) <= 20000
    assert_valid_markdown(result.stdout)
    assert "`member.~u_bob` (bob@acme.test)" in result.stdout
    assert "| `+` | `team.core` (Core) | create |" in result.stdout


def test_a_summarised_plan_keeps_every_replacement_with_the_deletions(tmp_path, sandbox):
    spaces = (
        "collections:\n  product: {title: Product}\n"
        "spaces:\n  help: {title: Help center, collection: product}\n"
    )
    manifests = write_manifests(
        tmp_path / "m",
        "docform: {prune: {spaces: true}}\norganization: {id: org_acme}\n" + spaces,
    )
    assert run(["apply", manifests, "--yes"], sandbox).exit_code == 0
    (manifests / "docform.lock").unlink()
    members = "".join(f"  person{n:04}@acme.test: read\n" for n in range(40))
    write_manifests(
        manifests,
        "docform: {prune: {spaces: true}}\norganization: {id: org_acme}\n"
        + spaces.replace("Help center", "Help Center")
        + "members:\n  alice@acme.test: admin\n"
        + members,
    )

    result = run(["plan", manifests, "--markdown", "--force", "--markdown-limit", "3000"], sandbox)

    assert result.exit_code == 0, result.output
    comment = result.stdout
    assert len(comment) <= 3000
    assert_valid_markdown(comment)
    old = re.search(r"`space\.~(\w+)` \(Help center\), \*\*replaced\*\* by `space\.help`", comment)
    assert old is not None, comment
    assert f"| `-/+` | `space.help` (Help Center) | create, **replaces** `{old[1]}` |" in comment
    assert f"> [!NOTE]\n> space.help is created while the plan deletes space {old[1]}" in comment
    assert re.search(
        r"\n\.\.\.and \d+ more changes \(\d+ member create\): see the whole plan", comment
    )
