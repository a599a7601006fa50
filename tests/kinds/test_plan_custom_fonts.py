"""End to end: the organization's custom fonts (``customFonts:``), made by hand through the
sandbox's API as an admin would, exported, planned, edited, drifted, adopted and pruned; and
the sandbox's font routes as the definition and the UI have them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from docform.api.errors import ApiError
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    denied_by_policy,
    in_ui,
    live_api,
    plan_json,
    run,
    write_manifests,
)

FONTS = "/orgs/org_acme/fonts"
SANS = """\
    organization: {id: org_acme, title: Acme}
    customFonts:
      acme-sans:
        family: Acme Sans
        faces:
          - {weight: 400, storageKey: fonts/acme-sans-regular.woff2}
          - {weight: 700, storageKey: fonts/acme-sans-bold.woff2}
"""
MADE_BY_HAND = {
    "fontFamily": "Acme Serif",
    "fontFaces": [
        {"weight": 400, "storageKey": "uploads/serif-400.woff2"},
        {"weight": 900, "storageKey": "uploads/serif-900.woff"},
    ],
}


def test_a_font_is_made_with_every_face_and_converges(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, SANS)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("customFont.acme-sans", "create")]
    assert calls(change(plan, "customFont.acme-sans")) == [
        (
            "PUT",
            FONTS,
            {
                "fontFamily": "Acme Sans",
                "fontFaces": [
                    {"weight": 400, "storageKey": "fonts/acme-sans-regular.woff2"},
                    {"weight": 700, "storageKey": "fonts/acme-sans-bold.woff2"},
                ],
            },
        )
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    (live,) = live_api(sandbox, "GET", FONTS)["items"]
    assert [(f["weight"], f["sources"][0]["format"]) for f in live["fontFaces"]] == [
        (400, "woff2"),
        (700, "woff2"),
    ]


def test_a_hand_made_font_exports_plans_empty_edits_one_field_and_drifts(
    sandbox: Path, tmp_path: Path
) -> None:
    made = in_ui(sandbox, "alice@acme.test", "PUT", FONTS, MADE_BY_HAND)
    exported = tmp_path / "exported"
    result = run(["export", "org_acme", exported], sandbox)
    assert result.exit_code == 0, result.output
    fonts = yaml.safe_load((exported / "fonts.yaml").read_text())["customFonts"]
    assert fonts == {
        "acme-serif": {
            "family": "Acme Serif",
            "faces": [
                {"weight": 400, "storageKey": "uploads/serif-400.woff2"},
                {"weight": 900, "storageKey": "uploads/serif-900.woff"},
            ],
        }
    }
    assert_converged(exported, sandbox)

    text = (exported / "fonts.yaml").read_text().replace("serif-900.woff", "serif-black.woff2")
    (exported / "fonts.yaml").write_text(text)
    plan = plan_json(exported, sandbox)
    assert actions(plan) == [("customFont.acme-serif", "update")]
    edited = change(plan, "customFont.acme-serif")
    assert [(f["path"], f["after"]) for f in edited["fields"]] == [
        ("faces.900", "uploads/serif-black.woff2")
    ]
    assert calls(edited) == [
        (
            "POST",
            f"{FONTS}/{made['id']}",
            {"fontFaces": [{"weight": 900, "storageKey": "uploads/serif-black.woff2"}]},
        )
    ]

    apply(exported, sandbox)
    assert_converged(exported, sandbox)
    in_ui(
        sandbox,
        "alice@acme.test",
        "POST",
        f"{FONTS}/{made['id']}",
        {"fontFaces": [{"weight": 900, "storageKey": None}]},
    )
    drift = run(["drift", exported, "--json"], sandbox)
    assert drift.exit_code == 2, drift.output
    (drifted,) = json.loads(drift.stdout)["organizations"][0]["changes"]
    assert (drifted["address"], [f["path"] for f in drifted["fields"]]) == (
        "customFont.acme-serif",
        ["faces.900"],
    )
    assert drifted["changed_by"][0]["actor"]["email"] == "alice@acme.test"


def test_a_font_without_a_regular_face_is_refused_at_its_line(
    sandbox: Path, manifests: Path
) -> None:
    write_manifests(manifests, SANS.replace("weight: 400", "weight: 300"))
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "main.yaml:" in result.output
    assert "a font needs a regular face: add one of weight 400" in result.output


def test_a_weight_written_twice_is_refused(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, SANS.replace("weight: 700", "weight: 400"))
    result = run(["validate", manifests], sandbox)
    assert result.exit_code == 1
    assert "weight 400 is written twice: a weight has one file" in result.output


def test_renaming_the_family_keeps_the_font(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, SANS)
    apply(manifests, sandbox)
    write_manifests(manifests, SANS.replace("family: Acme Sans", "family: Acme Grotesk"))
    plan = plan_json(manifests, sandbox)
    (renamed,) = plan["changes"]
    (live,) = live_api(sandbox, "GET", FONTS)["items"]
    assert calls(renamed) == [("POST", f"{FONTS}/{live['id']}", {"fontFamily": "Acme Grotesk"})]


def test_an_unlisted_font_is_listed_then_deleted_only_under_prune(
    sandbox: Path, manifests: Path
) -> None:
    made = live_api(sandbox, "PUT", FONTS, MADE_BY_HAND)
    bare = "    organization: {id: org_acme, title: Acme}\n"
    write_manifests(manifests, bare)
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == []
    assert made["id"] in [u["id"] for u in plan["unmanaged"]]
    write_manifests(manifests, bare + "    docform: {prune: {customFonts: true}}\n")
    plan = plan_json(manifests, sandbox)
    (gone,) = plan["changes"]
    assert (gone["action"], calls(gone)) == ("delete", [("DELETE", f"{FONTS}/{made['id']}", None)])
    apply(manifests, sandbox)
    assert live_api(sandbox, "GET", FONTS)["items"] == []


WOFF2_ONLY = """\
    policies:
      woff2-only:
        description: Fonts are served as WOFF2.
        each: change
        rule: "!(change.kind == 'custom_font' && change.after.faces['700'].endsWith('.woff'))"
        message: "change.human_key + ' has a WOFF face'"
"""


def test_a_policy_sees_a_fonts_faces(sandbox: Path, manifests: Path) -> None:
    write_manifests(manifests, SANS.replace("bold.woff2", "bold.woff") + WOFF2_ONLY)
    assert denied_by_policy(manifests, sandbox)[:2] == ("woff2-only", "customFont.acme-sans")


def test_adopt_writes_a_hand_change_into_the_entry_and_keeps_comments(
    sandbox: Path, manifests: Path
) -> None:
    commented = SANS.replace("      acme-sans:\n", "      # The brand font.\n      acme-sans:\n")
    write_manifests(manifests, commented)
    apply(manifests, sandbox)
    (live,) = live_api(sandbox, "GET", FONTS)["items"]
    in_ui(sandbox, "alice@acme.test", "POST", f"{FONTS}/{live['id']}", {"fontFamily": "Acme"})
    result = run(["adopt", manifests], sandbox)
    assert result.exit_code == 0, result.output
    text = (manifests / "main.yaml").read_text()
    assert "# The brand font." in text and "family: Acme\n" in text
    assert_converged(manifests, sandbox)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"fontFamily": "Bare", "fontFaces": [{"weight": 700, "storageKey": "b.woff2"}]}, 412),
        (
            {
                "fontFamily": "Twice",
                "fontFaces": [
                    {"weight": 400, "storageKey": "a.woff2"},
                    {"weight": 400, "storageKey": "b.woff2"},
                ],
            },
            412,
        ),
    ],
    ids=["no regular face", "a weight twice"],
)
def test_the_sandbox_refuses_a_font_it_cannot_draw(
    sandbox: Path, body: dict[str, object], status: int
) -> None:
    with pytest.raises(ApiError) as refused:
        live_api(sandbox, "PUT", FONTS, body)
    assert refused.value.status == status


def test_the_sandbox_keeps_a_regular_face_and_deletes_once(sandbox: Path) -> None:
    made = live_api(sandbox, "PUT", FONTS, MADE_BY_HAND)
    one = f"{FONTS}/{made['id']}"
    with pytest.raises(ApiError) as refused:
        live_api(sandbox, "POST", one, {"fontFaces": [{"weight": 400, "storageKey": None}]})
    assert refused.value.status == 412
    assert live_api(sandbox, "GET", one)["fontFamily"] == "Acme Serif"
    live_api(sandbox, "DELETE", one)
    live_api(sandbox, "DELETE", one)
    with pytest.raises(ApiError) as gone:
        live_api(sandbox, "GET", one)
    assert gone.value.status == 404
