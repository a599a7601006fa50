"""``docform show PLANFILE`` (cli/show.py): a saved plan reads as it was reviewed, offline;
``apply PLANFILE`` shows it too."""

from __future__ import annotations

import json
from pathlib import Path

from planning import run, write_manifests


def saved(directory: Path, sandbox: Path, *options: str) -> tuple[Path, str]:
    """The plan of ``directory`` saved beside it, and what ``plan`` printed."""
    out = directory.parent / "docform.plan"
    result = run(["plan", directory, "--out", out, *options], sandbox)
    assert result.exit_code == 0, result.output
    return out, result.stdout


def test_show_prints_the_text_plan_as_it_was_made(sandbox, basic):
    out, printed = saved(basic, sandbox)
    sandbox.unlink()  # no service: show reads the file only
    result = run(["show", out], sandbox)
    assert result.exit_code == 0, result.output
    assert result.stdout == printed


def test_show_prints_rails_targeting_unmanaged_and_ignored_as_planned(tmp_path, sandbox):
    manifests = write_manifests(
        tmp_path / "m",
        "docform: {prune: {members: true}, ignore: [organization.title]}\n"
        "organization: {id: org_acme, title: Renamed}\n"
        "members: {alice@acme.test: admin, erin@acme.test: read}\n",
    )
    out, printed = saved(manifests, sandbox, "--target", "member", "--compact")
    result = run(["show", out, "--compact"], sandbox)
    assert result.stdout == printed
    for part in ("Checked only at apply:", "Targeting is in effect", "site.~site_docs (Acme"):
        assert part in result.stdout
    assert "organization.title (differs): ignored by organization.title" in result.stdout


def test_show_json_prints_the_saved_document(sandbox, basic):
    out, _ = saved(basic, sandbox)
    result = run(["show", out, "--json"], sandbox)
    assert json.loads(result.stdout) == json.loads(out.read_text(encoding="utf-8"))


def test_show_markdown_prints_the_pull_request_comment(sandbox, basic):
    out, _ = saved(basic, sandbox)
    planned = run(["plan", basic, "--markdown"], sandbox).stdout
    shown = run(["show", out, "--markdown"], sandbox).stdout
    # plan adds a diagram of the structure, drawn from the manifests; show has none
    assert planned.startswith(shown.rstrip("\n"))


def test_show_refuses_a_plan_edited_after_it_was_saved(sandbox, basic):
    out, _ = saved(basic, sandbox)
    doc = json.loads(out.read_text(encoding="utf-8"))
    doc["changes"][0]["calls"][0]["path"] = "/orgs/org_other"
    out.write_text(json.dumps(doc), encoding="utf-8")
    result = run(["show", out], sandbox)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {out}: the plan was edited after it was saved (its checksum does not match); "
        "make a new one with 'docform plan --out'\n"
    )


def test_apply_prints_a_saved_plan_before_applying_it(sandbox, basic):
    out, printed = saved(basic, sandbox)
    result = run(["apply", out], sandbox)
    assert result.exit_code == 0, result.output
    plan_part = printed.split("Unmanaged")[0]
    assert result.stdout.startswith(plan_part)
    assert result.stdout.index(plan_part) < result.stdout.index("Apply complete")
