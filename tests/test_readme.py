"""The README and docs/ document what docform really does (JSON keys, the seed format, shell
completion), in the order a user reads, with links that lead somewhere."""

import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import metadata
from pathlib import Path

from click.testing import CliRunner

from docform.cli import cli

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
FIXTURES = Path(__file__).parent / "fixtures"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def fenced_block(after_heading: str, language: str, text: str = README) -> str:
    section = text[text.index(after_heading) :]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match, f"no {language} block after {after_heading}"
    return match.group(1)


def real_plan(tmp_path: Path) -> dict:
    data = tmp_path / "sandbox.sqlite"
    runner = CliRunner()
    seeded = runner.invoke(
        cli, ["sandbox", "seed", "--data", str(data), str(FIXTURES / "seed.yaml")]
    )
    assert seeded.exit_code == 0, seeded.output
    manifests = tmp_path / "manifests"
    shutil.copytree(FIXTURES / "basic", manifests)
    result = runner.invoke(
        cli, ["plan", str(manifests), "--json"], env={"DOCFORM_API_URL": f"sandbox:{data}"}
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_documented_plan_json_has_the_keys_of_a_real_plan(tmp_path):
    documented = json.loads(fenced_block("## Plan JSON", "json", doc("json-formats.md")))
    plan = real_plan(tmp_path)
    assert set(documented) == set(plan) - {"manifest_directory"}
    assert set(documented["changes"][0]) == set(plan["changes"][0])
    assert set(documented["changes"][0]["calls"][0]) == set(plan["changes"][0]["calls"][0])
    assert set(documented["summary"]) == set(plan["summary"])
    assert set(documented["unmanaged"][0]) == set(plan["unmanaged"][0])


def test_documented_seed_file_loads(tmp_path):
    seed = tmp_path / "seed.yaml"
    seed.write_text(fenced_block("## Seed files", "yaml", doc("sandbox.md")), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["sandbox", "seed", "--data", str(tmp_path / "s.sqlite"), str(seed)]
    )
    assert result.exit_code == 0, result.output


def test_the_readme_starts_with_the_two_commands_of_a_fresh_machine():
    assert README.splitlines()[:5] == [
        "# docform",
        "",
        "```sh",
        "make demo   # fresh machine: creates .venv, then runs docform end to end against the "
        "built-in sandbox",
        "make test   # fresh machine: creates .venv, then runs ruff, mypy and the test suite "
        "(CI adds make test-network)",
    ]


def test_the_readme_goes_in_the_order_a_user_reads():
    headings = re.findall(r"^## (.+)$", README, re.MULTILINE)
    wanted = [
        "Quick start",
        "Manifest format",
        "Identity: how an entry keeps its live object",
        "Commands",
        "CI and GitOps",
        "Safety",
        "Reference",
    ]
    assert [h for h in headings if h in wanted] == wanted
    # What and why come before the first section.
    assert "Why:" in README[: README.index("## Quick start")]


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of ``markdown``."""
    found = set()
    for heading in re.findall(r"^#+ (.+)$", markdown, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", "")).replace(" ", "-")
        found.add(slug)
    return found


def test_every_link_of_the_readme_and_docs_leads_somewhere():
    pages = [ROOT / "README.md", *DOCS.glob("*.md"), ROOT / "examples" / "acme" / "README.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            assert "shared" not in path and not path.endswith("cli.py"), f"{page.name}: {target}"
            linked = (page.parent / path).resolve() if path else page
            assert linked.exists(), f"{page.name}: {target} does not exist"
            assert linked.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
            if anchor and linked.suffix == ".md":
                assert anchor in anchors(linked.read_text(encoding="utf-8")), f"{page}: {target}"


def test_the_documented_shell_completion_works():
    env = {**os.environ, "_DOCFORM_COMPLETE": "bash_source"}
    docform = [sys.executable, "-m", "docform"]
    script = subprocess.run(docform, env=env, capture_output=True, text=True, check=True)
    assert "_docform_completion()" in script.stdout
    assert "_DOCFORM_COMPLETE=bash_source docform" in README
    env |= {"_DOCFORM_COMPLETE": "bash_complete", "COMP_WORDS": "docform dri", "COMP_CWORD": "1"}
    words = subprocess.run(docform, env=env, capture_output=True, text=True, check=True)
    assert words.stdout == "plain,drift\n"


def test_the_license_is_mit_and_the_package_says_so():
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    package = metadata("docform")
    assert package["License-Expression"] == "MIT"
    assert package.get_all("License-File") == ["LICENSE"]
    assert package["Author"] == "The docform authors"
    urls = dict(url.split(", ", 1) for url in package.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Documentation", "Repository", "Issues"}
    assert "MIT License" in README[README.index("## License") :]
