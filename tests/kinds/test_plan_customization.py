"""End to end: a site's ``customization:`` block planned, applied, exported and checked at load,
through the CLI against a seeded in-process sandbox (site_docs, never customized)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from docform.errors import ServiceCallError
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    live_api,
    plan_json,
    plan_request_count,
    run,
    write_manifests,
)

DOCS = "/orgs/org_acme/sites/site_docs"
ADDRESS = "site.docs.customization"


def manifests(directory: Path, customization: dict[str, Any] | None) -> Path:
    site: dict[str, Any] = {"id": "site_docs"}
    if customization is not None:
        site["customization"] = customization
    document = {"organization": {"id": "org_acme"}, "sites": {"docs": site}}
    return write_manifests(directory, yaml.safe_dump(document, sort_keys=False))


def field_changes(plan: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    found = change(plan, ADDRESS, "update")
    return {f["path"]: (f["before"], f["after"]) for f in found["fields"]}


def test_one_color_changes_that_field_only(tmp_path: Path, sandbox: Path) -> None:
    directory = manifests(tmp_path / "m", {"styling": {"primaryColor": {"light": "#0B5FFF"}}})
    plan = plan_json(directory, sandbox)
    assert actions(plan) == [(ADDRESS, "update")]
    assert field_changes(plan) == {"styling.primaryColor.light": ("#346DDB", "#0B5FFF")}
    [(method, path, body)] = calls(change(plan, ADDRESS))
    assert (method, path) == ("PUT", f"{DOCS}/customization")
    # The whole live document goes back, with the one field changed.
    assert body["styling"]["primaryColor"] == {"light": "#0B5FFF", "dark": "#346DDB"}
    assert body["internationalization"] == {"locale": "en"}
    assert "updatedAt" not in body
    apply(directory, sandbox)
    live = live_api(sandbox, "GET", f"{DOCS}/customization")
    assert live["styling"]["primaryColor"] == {"light": "#0B5FFF", "dark": "#346DDB"}
    assert_converged(directory, sandbox)


def test_fields_left_out_stay_as_they_are_live(tmp_path: Path, sandbox: Path) -> None:
    apply(
        manifests(tmp_path / "a", {"footer": {"copyright": "Acme"}, "themes": {"default": "dark"}}),
        sandbox,
    )
    directory = manifests(tmp_path / "b", {"themes": {"default": "light"}})
    plan = plan_json(directory, sandbox)
    assert field_changes(plan) == {"themes.default": ("dark", "light")}
    apply(directory, sandbox)
    live = live_api(sandbox, "GET", f"{DOCS}/customization")
    assert live["footer"]["copyright"] == "Acme"


def test_whole_block_shows_each_reset(tmp_path: Path, sandbox: Path) -> None:
    first = {"footer": {"copyright": "Acme"}, "themes": {"default": "dark"}}
    apply(manifests(tmp_path / "a", first), sandbox)
    directory = manifests(tmp_path / "b", {"managed": "whole", "themes": {"default": "dark"}})
    plan = plan_json(directory, sandbox)
    assert field_changes(plan) == {"footer.copyright": ("Acme", None)}
    apply(directory, sandbox)
    assert "copyright" not in live_api(sandbox, "GET", f"{DOCS}/customization")["footer"]
    assert_converged(directory, sandbox)


def test_page_actions_compare_as_the_service_stores_them(tmp_path: Path, sandbox: Path) -> None:
    wanted = {"ai": {"mode": "assistant"}, "pageActions": {"items": ["markdown", "pdf"]}}
    directory = manifests(tmp_path / "m", wanted)
    plan = plan_json(directory, sandbox)
    assert field_changes(plan)["pageActions.items"] == ([], ["assistant", "markdown", "pdf"])
    apply(directory, sandbox)
    assert_converged(directory, sandbox)
    # Without the mode in the manifest, the live mode decides.
    directory = manifests(tmp_path / "n", {"pageActions": {"items": ["markdown", "pdf"]}})
    assert_converged(directory, sandbox)


LINK = {"kind": "url", "url": "https://acme.test"}
FACES = [{"weight": w, "sources": [{"url": f"https://f.acme.test/{w}.woff2"}]} for w in (400, 700)]
FONT = {"id": "acme-sans", "custom": True, "fontFamily": "Acme Sans", "fontFaces": FACES}


def test_a_font_s_faces_compare_in_any_order(tmp_path: Path, sandbox: Path) -> None:
    apply(manifests(tmp_path / "a", {"styling": {"font": FONT}}), sandbox)
    shuffled = {**FONT, "fontFaces": list(reversed(FACES))}
    assert_converged(manifests(tmp_path / "b", {"styling": {"font": shuffled}}), sandbox)
    # A face that changes shows the faces whole: which index moved says nothing.
    bolder = {**FONT, "fontFaces": [FACES[0], {**FACES[1], "weight": 800}]}
    plan = plan_json(manifests(tmp_path / "c", {"styling": {"font": bolder}}), sandbox)
    assert field_changes(plan) == {"styling.font.fontFaces": (FACES, bolder["fontFaces"])}


def test_a_header_link_s_title_is_named_by_its_place(tmp_path: Path, sandbox: Path) -> None:
    links = [{"title": t, "to": LINK, "links": []} for t in ("Docs", "Blog")]
    apply(manifests(tmp_path / "a", {"header": {"links": links}}), sandbox)
    renamed = [links[0], {**links[1], "title": "News"}]
    plan = plan_json(manifests(tmp_path / "b", {"header": {"links": renamed}}), sandbox)
    assert field_changes(plan) == {"header.links[1].title": ("Blog", "News")}
    # Links in another order are another header: order matters there.
    swapped = manifests(tmp_path / "c", {"header": {"links": list(reversed(links))}})
    assert set(field_changes(plan_json(swapped, sandbox))) == {
        "header.links[0].title",
        "header.links[1].title",
    }


def test_export_then_plan_shows_no_changes(tmp_path: Path, sandbox: Path) -> None:
    custom = {
        "styling": {
            "primaryColor": {"light": "#0B5FFF"},
            "tint": {"color": {"light": "#111", "dark": "#222"}},
        },
        "announcement": {"enabled": True, "message": "Hello", "style": "info"},
        "socialAccounts": [
            {"platform": "github", "handle": "acme", "display": {"footer": True, "header": False}}
        ],
    }
    apply(manifests(tmp_path / "m", custom), sandbox)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    sites = yaml.safe_load((exported / "sites.yaml").read_text())
    block = next(iter(sites["sites"].values()))["customization"]
    assert block["styling"] == {
        "primaryColor": {"light": "#0B5FFF"},
        "tint": custom["styling"]["tint"],
    }
    assert "footer" not in block  # only what differs from the defaults
    assert_converged(exported, sandbox)


def test_read_only_for_sites_that_write_the_block(tmp_path: Path, sandbox: Path) -> None:
    without = plan_request_count(manifests(tmp_path / "a", None), sandbox)
    with_block = plan_request_count(
        manifests(tmp_path / "b", {"themes": {"default": "dark"}}), sandbox
    )
    assert with_block == without + 1


def test_bad_values_refused_at_load_with_their_place(tmp_path: Path, sandbox: Path) -> None:
    directory = write_manifests(
        tmp_path / "m",
        """\
        organization: {id: org_acme}
        sites:
          docs:
            id: site_docs
            customization:
              styling:
                theme: bolt
                primaryColor: {light: "0B5FFF"}
              privacyPolicy: {url: "ftp://example.com"}
              managed: whol
        """,
    )
    result = run(["validate", directory], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:7:" in result.output
    assert "'bolt' is not allowed (did you mean 'bold'?)" in result.output
    assert "'0B5FFF' is not a color" in result.output
    assert "main.yaml:9:" in result.output and "is not a URL" in result.output
    assert "'whol' is not allowed (did you mean 'whole'?)" in result.output


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_sandbox_refuses_a_document_missing_a_required_key(sandbox: Path) -> None:
    document = live_api(sandbox, "GET", f"{DOCS}/customization")
    del document["styling"]
    with pytest.raises(ServiceCallError, match="styling") as refused:
        live_api(sandbox, "PUT", f"{DOCS}/customization", document)
    assert refused.value.status == 400
