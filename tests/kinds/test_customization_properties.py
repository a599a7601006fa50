"""Property: any customization block, in either mode, over any live document, converges in
one apply and then plans no change; the fields left out of a `fields` block keep their live
values. Blocks and live documents are drawn from the document's own enumerations and colors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.service.customization_stored import defaults
from planning import apply, assert_converged, live_api, seeded_sandbox, write_manifests

DOCS = "/orgs/org_acme/sites/site_docs"
COLORS = st.sampled_from(["#346DDB", "#0B5FFF", "#fff", "#000000", "#A1b2C3"])
FIELDS: dict[tuple[str, ...], st.SearchStrategy[Any]] = {
    ("styling", "theme"): st.sampled_from(["clean", "muted", "bold", "gradient"]),
    ("styling", "primaryColor", "light"): COLORS,
    ("styling", "dangerColor", "dark"): COLORS,
    ("styling", "corners"): st.sampled_from(["straight", "rounded", "circular"]),
    ("themes", "default"): st.sampled_from(["light", "dark", "system"]),
    ("ai", "mode"): st.sampled_from(["none", "search", "assistant"]),
    ("pageActions", "items"): st.lists(
        st.sampled_from(["assistant", "markdown", "pdf", "mcp"]), unique=True, max_size=3
    ),
    ("footer", "copyright"): st.sampled_from(["Acme", "Acme Corp"]),
    ("feedback", "enabled"): st.booleans(),
}
BLOCKS = st.fixed_dictionaries(
    {}, optional={".".join(path): strategy for path, strategy in FIELDS.items()}
)
EXAMPLES = settings(
    max_examples=fuzz_examples(4),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def nested(flat: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {}
    for name, value in flat.items():
        *parents, last = name.split(".")
        at = block
        for key in parents:
            at = at.setdefault(key, {})
        at[last] = value
    return block


def write(directory: Path, block: dict[str, Any]) -> Path:
    site = {"id": "site_docs", "customization": block}
    document = {"organization": {"id": "org_acme"}, "sites": {"docs": site}}
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


def value_at(document: Any, name: str) -> Any:
    for key in name.split("."):
        document = document.get(key) if isinstance(document, dict) else None
    return document


@EXAMPLES
@given(before=BLOCKS, after=BLOCKS, whole=st.booleans())
def test_any_block_converges_in_one_apply(
    tmp_path_factory: Any, before: dict[str, Any], after: dict[str, Any], whole: bool
) -> None:
    root = tmp_path_factory.mktemp("custom")
    sandbox = seeded_sandbox(root)
    apply(write(root / "before", nested(before)), sandbox)
    live = live_api(sandbox, "GET", f"{DOCS}/customization")
    block = nested(after) | ({"managed": "whole"} if whole else {})
    directory = write(root / "after", block)
    apply(directory, sandbox)
    assert_converged(directory, sandbox)
    now = live_api(sandbox, "GET", f"{DOCS}/customization")
    for name in FIELDS_NAMES:
        if name in after and name != "pageActions.items":
            assert value_at(now, name) == after[name], name
        elif name not in after and name != "pageActions.items":
            expected = value_at(defaults(), name) if whole else value_at(live, name)
            assert value_at(now, name) == expected, name


FIELDS_NAMES = [".".join(path) for path in FIELDS]
