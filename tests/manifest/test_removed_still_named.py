"""Off-boarding: an entry removed from its section while another entry still names it is
reported where it is named, as removed (docform.lock still ties it), with what to do; never
as an unknown name with a guess at another one."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from planning import apply, run, seeded_sandbox

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "acme"


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/acme applied once: its manifests with the docform.lock apply wrote."""
    folder = tmp_path_factory.mktemp("applied")
    shutil.copytree(EXAMPLE / "manifests", folder / "manifests")
    apply(
        folder / "manifests", seeded_sandbox(folder, EXAMPLE / "sandbox-seed.yaml"), rehearse=False
    )
    return folder / "manifests"


@pytest.mark.parametrize(
    ("file", "removed", "noun", "section", "holder"),
    [
        ("people.yaml", "  noah.kim@acme.test: edit\n", "member", "members", "team payments"),
        ("people.yaml", "  platform:\n    title: Platform\n    members:\n"
         "      maria.garcia@acme.test: owner\n      tom.walker@acme.test: member\n"
         "      aisha.bello@acme.test: member\n      lukas.schmidt@acme.test: member\n",
         "team", "teams", "collection runbooks"),
        ("content.yaml", "  platform-eng: {title: Platform, parent: engineering}\n",
         "collection", "collections", "space k8s-platform"),
    ],
    ids=["member-in-a-team", "team-with-access", "collection-holding-spaces"],
)  # fmt: skip
def test_a_removed_entry_still_named_elsewhere_says_so_where_it_is_named(
    applied, tmp_path, file, removed, noun, section, holder
):
    manifests = tmp_path / "manifests"
    shutil.copytree(applied, manifests)
    text = (manifests / file).read_text(encoding="utf-8")
    assert removed in text
    (manifests / file).write_text(text.replace(removed, ""), encoding="utf-8")
    result = run(["validate", manifests], tmp_path / "unused.sqlite")
    assert result.exit_code == 1
    name = re.match(r"\s*([\w.@-]+):", removed).group(1)  # type: ignore[union-attr]
    expected = (
        f"{noun} '{name}' was removed from {section}, but {holder} still names it: remove it "
        f"here too (every place that names it is listed), or keep the {noun}"
    )
    assert expected in result.output, result.output
    assert "did you mean" not in result.output
