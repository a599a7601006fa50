"""A site's grouped sections have one order: the group's `sections:` list. Written in another
order under the site's `sections:`, validate says so at the group's list, naming both orders,
instead of planning "No changes" for a reorder that does nothing."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from planning import run

ROOT = Path(__file__).parents[2]
MANIFESTS = ROOT / "examples" / "acme" / "manifests"

API = """      api:
        title: API
        path: api
        spaces:
          guide: {space: api-guide, path: guide}
"""
SDKS = """      sdks:
        title: SDKs
        path: sdks
        description: Client libraries
        spaces:
          js: {space: sdk-js, path: javascript, default: true}
          python: {space: sdk-python, path: python}
"""


def example(tmp_path: Path, sites_text: str) -> Path:
    directory = tmp_path / "manifests"
    shutil.copytree(MANIFESTS, directory)
    (directory / "sites.yaml").write_text(sites_text, encoding="utf-8")
    return directory


def test_the_example_writes_one_order():
    result = run(["validate", MANIFESTS], ROOT / "unused.sqlite")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("listed", list(itertools.permutations(["api", "sdks"])))
@pytest.mark.parametrize("written", list(itertools.permutations(["api", "sdks"])))
def test_a_group_and_the_sections_in_two_orders_is_a_mistake(tmp_path, listed, written):
    text = (MANIFESTS / "sites.yaml").read_text(encoding="utf-8")
    assert API + SDKS in text and "reference: {title: Reference, sections: [api, sdks]}" in text
    blocks = {"api": API, "sdks": SDKS}
    text = text.replace(API + SDKS, "".join(blocks[name] for name in written))
    text = text.replace("sections: [api, sdks]}", f"sections: [{', '.join(listed)}]}}")
    result = run(["validate", example(tmp_path, text)], tmp_path / "unused.sqlite")
    if listed == written:
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 1
    assert (
        "sites.devdocs.sectionGroups.reference.sections: section group 'reference' lists its "
        f"sections as {', '.join(listed)}, but sites.devdocs.sections writes them as "
        f"{', '.join(written)}: write them in one order (the group's list is their order on "
        "the site)"
    ) in result.output
    assert "sites.yaml:13:" in result.output
