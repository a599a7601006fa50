"""The README documents what docform really does (its plan JSON keys and its seed format)."""

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from docform.cli import cli

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FIXTURES = Path(__file__).parent / "fixtures"


def fenced_block(after_heading: str, language: str) -> str:
    section = README[README.index(after_heading) :]
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
    documented = json.loads(fenced_block("## Plan JSON", "json"))
    plan = real_plan(tmp_path)
    assert set(documented) == set(plan) - {"manifest_directory"}
    assert set(documented["changes"][0]) == set(plan["changes"][0])
    assert set(documented["changes"][0]["calls"][0]) == set(plan["changes"][0]["calls"][0])
    assert set(documented["summary"]) == set(plan["summary"])
    assert set(documented["unmanaged"][0]) == set(plan["unmanaged"][0])


def test_documented_seed_file_loads(tmp_path):
    seed = tmp_path / "seed.yaml"
    seed.write_text(fenced_block("### Seed files", "yaml"), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["sandbox", "seed", "--data", str(tmp_path / "s.sqlite"), str(seed)]
    )
    assert result.exit_code == 0, result.output
