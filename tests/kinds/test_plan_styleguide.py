"""End to end: a site's style guide (``sites.<site>.styleguide: {space}``), made by hand through
the sandbox's API as an admin would, exported, planned, edited and drifted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from docform.api import ApiError
from live_objects import space_id
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    in_ui,
    live_api,
    plan_json,
    run,
    write_manifests,
)

SITE = "/orgs/org_acme/sites/site_docs"
MANIFESTS = """\
    organization: {id: org_acme, title: Acme}
    spaces: {rules: {title: House rules}, tone: {title: Tone}}
    sites: {docs: {id: site_docs, title: Acme Docs%s}}
"""


def styleguide(sandbox: Path) -> object:
    return live_api(sandbox, "GET", SITE).get("styleguide")


def test_a_new_space_is_made_then_set_as_the_style_guide(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, MANIFESTS % ", styleguide: {space: rules}")
    plan = plan_json(manifests, sandbox)
    assert ("site.docs.styleguide", "update") in actions(plan)
    set_it = change(plan, "site.docs.styleguide")
    assert set_it["after"] == {"space": {"$ref": "space.rules"}}
    assert set_it["depends_on"] == ["space.rules#create"]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    rules = space_id(sandbox, "House rules")
    assert styleguide(sandbox) == {"kind": "space", "space": rules}

    write_manifests(manifests, MANIFESTS % ", styleguide: {space: tone}")
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("site.docs.styleguide", "update")]
    tone = space_id(sandbox, "Tone")
    assert calls(change(plan, "site.docs.styleguide")) == [("PATCH", SITE, {"styleguide": tone})]


def test_a_hand_made_style_guide_exports_plans_empty_edits_and_drifts(
    sandbox: Path, tmp_path: Path
) -> None:
    made = in_ui(sandbox, "alice@acme.test", "POST", f"{SITE}/styleguide", {"template": "plain"})
    assert styleguide(sandbox) == {"kind": "space", "space": made["id"]}
    again = live_api(sandbox, "POST", f"{SITE}/styleguide")
    assert again["id"] == made["id"]  # one per site: asking again answers the same space
    live_api(sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Tone"})
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    sites = yaml.safe_load((exported / "sites.yaml").read_text())["sites"]
    spaces = yaml.safe_load((exported / "content.yaml").read_text())["spaces"]
    name = sites["acme-docs"]["styleguide"]["space"]
    assert spaces[name]["title"] == "Style guide"
    assert_converged(exported, sandbox)

    (other,) = [n for n, s in spaces.items() if s["title"] == "Tone"]
    text = (exported / "sites.yaml").read_text().replace(f"space: {name}", f"space: {other}")
    (exported / "sites.yaml").write_text(text)
    plan = plan_json(exported, sandbox)
    assert actions(plan) == [("site.acme-docs.styleguide", "update")]
    assert [f["path"] for f in change(plan, "site.acme-docs.styleguide")["fields"]] == ["space"]

    apply(exported, sandbox)
    in_ui(sandbox, "alice@acme.test", "PATCH", SITE, {"styleguide": made["id"]})
    report = json.loads(run(["drift", exported, "--json"], sandbox).stdout)
    (drifted,) = [c for c in report["organizations"][0]["changes"] if c["kind"] == "styleguide"]
    assert drifted["changed_by"][0]["actor"]["email"] == "alice@acme.test"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_a_style_guide_is_a_live_space_of_the_organization(sandbox: Path) -> None:
    made = live_api(sandbox, "POST", "/orgs/org_acme/spaces", {"title": "Gone"})
    live_api(sandbox, "DELETE", f"/spaces/{made['id']}")
    for wrong in ("space_nowhere", made["id"]):
        with pytest.raises(ApiError) as refused:
            live_api(sandbox, "PATCH", SITE, {"styleguide": wrong})
        assert refused.value.status == 400
        assert f"styleguide: no space '{wrong}'" in str(refused.value)


def test_a_space_not_written_is_refused_at_its_line(manifests: Path, sandbox: Path) -> None:
    write_manifests(manifests, MANIFESTS % ", styleguide: {space: nowhere}")
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:3:" in result.output and "nowhere" in result.output
