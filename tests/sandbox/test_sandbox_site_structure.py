"""Section groups, sections and site spaces of a site in the sandbox
(sandbox/routes/site_structure.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN

SITE = f"orgs/{ORG}/sites/site_docs"
GROUPS, SECTIONS, SITE_SPACES = (
    f"{SITE}/{p}" for p in ("section-groups", "sections", "site-spaces")
)
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}
OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}


def add_space(store, space_id, title, **extra):
    """A space stored directly, so these tests do not depend on the spaces endpoints."""
    doc = {
        "id": space_id,
        "title": title,
        "emoji": "",
        "organization": ORG,
        "visibility": "private",
        "revision": "rev1",
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
        "mergeRules": {"type": "inherit"},
        "defaultLevel": "inherit",
    }
    store.insert("space", {**doc, **extra}, org=ORG)


@pytest.fixture(autouse=True)
def spaces(store):
    for name in ("guide", "api", "ops", "faq"):
        add_space(store, f"sp_{name}", name.title())


def error(response, status):
    assert response.status_code == status, response.text
    return response.json()["error"]["message"]


def created(response):
    assert response.status_code == 201, response.text
    return response.json()


def section(api, space_id, **body):
    return created(api.post(SECTIONS, json={"spaceId": space_id, **body}))


def group(api, **body):
    return created(api.post(GROUPS, json=body))


def site_space(api, space_id, **body):
    return created(api.post(SITE_SPACES, json={"spaceId": space_id, **body}))


def titles(items):
    return [item["title"] for item in items]


# -- section groups ------------------------------------------------------------------------------


def test_create_group_answers_the_group(api):
    made = group(api, title="Products", icon="box")
    assert made == {
        "object": "site-section-group",
        "id": made["id"],
        "title": "Products",
        "icon": "box",
        "sections": [],
        "children": [],
        "draft": False,
    }


def test_create_group_with_sections_takes_them_in_order(api):
    guide, apis = section(api, "sp_guide"), section(api, "sp_api")
    made = group(api, title="Products", sections=[apis["id"], guide["id"]])
    assert titles(made["sections"]) == ["Api", "Guide"]
    assert titles(made["children"]) == ["Api", "Guide"]
    assert made["sections"][0]["sectionGroup"] == made["id"]
    structure = api.get(f"{SITE}/structure").json()["structure"]
    assert [(i["object"], i["title"]) for i in structure] == [("site-section-group", "Products")]


def test_create_group_with_parent_nests_it(api):
    outer = group(api, title="Outer")
    inner = group(api, title="Inner", parent=outer["id"])
    assert inner["sectionGroup"] == outer["id"]
    listed = api.get(GROUPS).json()
    assert titles(listed["items"]) == ["Outer", "Inner"]
    assert listed["items"][0]["children"][0]["id"] == inner["id"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_group_without_title_is_400(api):
    assert error(api.post(GROUPS, json={}), 400) == "title: Field required"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_group_title_of_101_characters_is_400(api):
    assert error(api.post(GROUPS, json={"title": "G" * 101}), 400) == (
        "title: String should have at most 100 characters"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_group_empty_title_is_400(api):
    assert error(api.post(GROUPS, json={"title": ""}), 400) == (
        "title: String should have at least 1 character"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_group_icon_of_51_characters_is_400(api):
    assert error(api.post(GROUPS, json={"title": "G", "icon": "i" * 51}), 400) == (
        "icon: String should have at most 50 characters"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_group_with_unknown_section_is_400(api):
    assert error(api.post(GROUPS, json={"title": "G", "sections": ["nope"]}), 400) == (
        "sections.0: no section 'nope' in this site"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_group_with_unknown_parent_is_400(api):
    assert error(api.post(GROUPS, json={"title": "G", "parent": "nope"}), 400) == (
        "parent: no section group 'nope' in this site"
    )


def test_list_groups_pages_in_structure_order(api):
    for title in ("One", "Two", "Three"):
        group(api, title=title)
    first = api.get(GROUPS, params={"limit": 2}).json()
    assert (first["count"], titles(first["items"])) == (3, ["One", "Two"])
    second = api.get(GROUPS, params={"limit": 2, "page": first["next"]["page"]}).json()
    assert titles(second["items"]) == ["Three"]
    assert set(second) == {"count", "items"}


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_groups_with_a_forged_cursor_is_400(api):
    assert error(api.get(GROUPS, params={"page": "garbage"}), 400) == (
        "page: not a cursor this list issued"
    )


def test_patch_group_changes_title_and_null_removes_icon(api):
    made = group(api, title="Old", icon="box")
    patched = api.patch(f"{GROUPS}/{made['id']}", json={"title": "New", "icon": None}).json()
    assert patched["title"] == "New"
    assert "icon" not in patched


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_group_null_title_is_400(api):
    made = group(api, title="Old")
    assert error(api.patch(f"{GROUPS}/{made['id']}", json={"title": None}), 400) == (
        "title: must not be null"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_group_title_of_101_characters_is_400(api):
    made = group(api, title="Old")
    assert error(api.patch(f"{GROUPS}/{made['id']}", json={"title": "G" * 101}), 400) == (
        "title: String should have at most 100 characters"
    )


def test_patch_unknown_group_is_404(api):
    assert error(api.patch(f"{GROUPS}/nope", json={"title": "X"}), 404) == (
        "section group 'nope' not found"
    )


def test_delete_group_puts_its_sections_in_its_place(api):
    first = section(api, "sp_guide")
    grouped = section(api, "sp_api")
    made = group(api, title="Group", sections=[grouped["id"]])
    section(api, "sp_ops")
    body = {
        "item": {"type": "site-section-group", "id": made["id"]},
        "position": {"after": {"type": "site-section", "id": first["id"]}},
    }
    api.patch(f"{SITE}/structure/sort", json=body)
    assert api.delete(f"{GROUPS}/{made['id']}").status_code == 204
    assert titles(api.get(f"{SITE}/structure").json()["structure"]) == ["Guide", "Api", "Ops"]
    assert "sectionGroup" not in api.get(SECTIONS).json()["items"][1]
    assert api.get(GROUPS).json()["count"] == 0


def test_delete_missing_group_is_204(api):
    assert api.delete(f"{GROUPS}/nope").status_code == 204


def patched(response):
    assert response.status_code == 200, response.text
    return response.json()


def test_section_patched_into_a_group_goes_last_there_and_null_takes_it_out(api):
    guide, apis = section(api, "sp_guide"), section(api, "sp_api")
    made = group(api, title="Group", sections=[apis["id"]])
    moved = patched(api.patch(f"{SECTIONS}/{guide['id']}", json={"siteSectionGroupId": made["id"]}))
    assert moved["sectionGroup"] == made["id"]
    [listed] = api.get(GROUPS).json()["items"]
    assert titles(listed["children"]) == ["Api", "Guide"]
    out = patched(api.patch(f"{SECTIONS}/{apis['id']}", json={"siteSectionGroupId": None}))
    assert "sectionGroup" not in out
    structure = api.get(f"{SITE}/structure").json()["structure"]
    assert [(i["object"], i["title"]) for i in structure] == [
        ("site-section-group", "Group"),
        ("site-section", "Api"),
    ]


def test_section_patched_into_its_own_group_keeps_its_place(api):
    guide, apis = section(api, "sp_guide"), section(api, "sp_api")
    made = group(api, title="Group", sections=[guide["id"], apis["id"]])
    patched(api.patch(f"{SECTIONS}/{guide['id']}", json={"siteSectionGroupId": made["id"]}))
    assert titles(api.get(GROUPS).json()["items"][0]["children"]) == ["Guide", "Api"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_section_patched_into_an_unknown_group_is_400(api):
    guide = section(api, "sp_guide")
    response = api.patch(f"{SECTIONS}/{guide['id']}", json={"siteSectionGroupId": "nope"})
    assert error(response, 400) == "siteSectionGroupId: no section group 'nope' in this site"
    assert "sectionGroup" not in api.get(f"{SECTIONS}").json()["items"][0]


def test_group_patched_into_a_group_nests_and_null_takes_it_out(api):
    # A site's structure lists groups once it has a section.
    section(api, "sp_guide")
    outer, inner = group(api, title="Outer"), group(api, title="Inner")
    nested = patched(
        api.patch(f"{GROUPS}/{inner['id']}", json={"parentSectionGroupId": outer["id"]})
    )
    assert nested["sectionGroup"] == outer["id"]
    assert titles(api.get(f"{SITE}/structure").json()["structure"]) == ["Guide", "Outer"]
    out = patched(api.patch(f"{GROUPS}/{inner['id']}", json={"parentSectionGroupId": None}))
    assert "sectionGroup" not in out
    structure = api.get(f"{SITE}/structure").json()["structure"]
    assert titles(structure) == ["Guide", "Outer", "Inner"]


@pytest.mark.parametrize("into", ["itself", "its child", "its grandchild"])
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_group_patched_into_itself_or_a_group_inside_it_is_400(api, into):
    outer = group(api, title="Outer")
    child = group(api, title="Child", parent=outer["id"])
    grandchild = group(api, title="Grandchild", parent=child["id"])
    target = {"itself": outer, "its child": child, "its grandchild": grandchild}[into]
    response = api.patch(f"{GROUPS}/{outer['id']}", json={"parentSectionGroupId": target["id"]})
    assert error(response, 400) == (
        f"parentSectionGroupId: section group '{target['id']}' is section group "
        f"'{outer['id']}' or inside it; a group cannot go into itself"
    )
    assert "sectionGroup" not in api.get(GROUPS).json()["items"][0]


@pytest.mark.contract_exempt("calls a route the definition lacks, to check the sandbox has none")
def test_the_definition_has_no_call_adding_a_section_to_a_group(api):
    guide = section(api, "sp_guide")
    made = group(api, title="Group")
    response = api.post(f"{GROUPS}/{made['id']}/sections", json={"sectionId": guide["id"]})
    assert response.status_code == 404
    assert api.get(GROUPS).json()["items"][0]["children"] == []


def test_sort_next_to_an_item_of_another_container_is_400(api):
    guide, apis = section(api, "sp_guide"), section(api, "sp_api")
    made = group(api, title="Group", sections=[apis["id"]])
    body = {
        "item": {"type": "site-section", "id": guide["id"]},
        "position": {"after": {"type": "site-section", "id": apis["id"]}},
    }
    response = api.patch(f"{SITE}/structure/sort", json=body)
    assert error(response, 400) == (
        f"position.after: section '{apis['id']}' is not in the same container as section "
        f"'{guide['id']}': sorting changes sibling order only; move it between the top level "
        "and a group with its own update first"
    )
    assert api.get(GROUPS).json()["items"][0]["id"] == made["id"]
    assert titles(api.get(GROUPS).json()["items"][0]["children"]) == ["Api"]


@pytest.mark.contract_exempt("a position without the id the definition requires")
def test_move_group_before_a_section(api):
    guide = section(api, "sp_guide")
    made = group(api, title="Group")
    position = {"before": {"type": "site-section", "siteSection": guide["id"]}}
    response = api.post(f"{GROUPS}/{made['id']}/move", json={"position": position})
    assert response.status_code == 200
    assert titles(api.get(f"{SITE}/structure").json()["structure"]) == ["Group", "Guide"]


def test_move_group_without_position_puts_it_last(api):
    made = group(api, title="Group")
    section(api, "sp_guide")
    assert api.post(f"{GROUPS}/{made['id']}/move", json={}).status_code == 200
    assert titles(api.get(f"{SITE}/structure").json()["structure"]) == ["Guide", "Group"]


# -- sections ------------------------------------------------------------------------------------


def test_create_section_makes_a_site_space_for_the_space(api):
    made = section(api, "sp_guide")
    assert {k: made[k] for k in ("object", "title", "path", "default")} == {
        "object": "site-section",
        "title": "Guide",
        "path": "guide",
        "default": True,
    }
    assert made["urls"] == {"published": "https://docs.sandbox.test/site-docs/guide"}
    [only] = made["siteSpaces"]
    assert (only["object"], only["path"], only["title"], only["default"]) == (
        "site-space",
        "guide",
        "Guide",
        True,
    )
    assert only["space"]["object"] == "space"
    assert only["space"]["id"] == "sp_guide"
    assert only["section"] == made["id"]
    assert only["urls"] == {"published": "https://docs.sandbox.test/site-docs/guide/guide"}


def test_create_section_takes_title_and_icon(api):
    made = section(api, "sp_guide", title="User Guide", icon="book")
    assert (made["title"], made["path"], made["icon"]) == ("User Guide", "user-guide", "book")


def test_create_section_makes_the_path_unique_in_the_site(api):
    section(api, "sp_guide")
    assert section(api, "sp_api", title="Guide")["path"] == "guide-2"


def test_only_the_first_section_is_the_default(api):
    section(api, "sp_guide")
    assert section(api, "sp_api")["default"] is False


def test_first_section_takes_in_the_root_site_spaces(api):
    site_space(api, "sp_faq")
    made = section(api, "sp_guide")
    assert [(s["title"], s["default"]) for s in made["siteSpaces"]] == [
        ("Faq", True),
        ("Guide", False),
    ]
    assert api.get(f"{SITE}/structure").json()["type"] == "sections"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"title": "G"}, "title: String should have at least 2 characters"),
        ({"title": "G" * 129}, "title: String should have at most 128 characters"),
        ({"icon": "i" * 51}, "icon: String should have at most 50 characters"),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_section_out_of_limits_is_400(api, body, message):
    assert error(api.post(SECTIONS, json={"spaceId": "sp_guide", **body}), 400) == message


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_section_without_space_is_400(api):
    assert error(api.post(SECTIONS, json={"title": "Guide"}), 400) == "spaceId: Field required"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_section_with_unknown_space_is_400(api):
    assert error(api.post(SECTIONS, json={"spaceId": "nope"}), 400) == (
        "spaceId: no space 'nope' in this organization"
    )


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_section_with_a_deleted_space_is_400(api, store):
    add_space(store, "sp_gone", "Gone", deletedAt="2024-01-02T00:00:00.000Z")
    assert error(api.post(SECTIONS, json={"spaceId": "sp_gone"}), 400) == (
        "spaceId: no space 'sp_gone' in this organization"
    )


def test_create_section_in_unknown_site_is_404(api):
    response = api.post(f"orgs/{ORG}/sites/nope/sections", json={"spaceId": "sp_guide"})
    assert error(response, 404) == "site 'nope' not found"


def test_list_sections_in_structure_order(api):
    guide, apis, ops = (section(api, s) for s in ("sp_guide", "sp_api", "sp_ops"))
    made = group(api, title="Group", sections=[guide["id"]])
    body = {
        "item": {"type": "site-section-group", "id": made["id"]},
        "position": {"after": {"type": "site-section", "id": apis["id"]}},
    }
    api.patch(f"{SITE}/structure/sort", json=body)
    assert titles(api.get(SECTIONS).json()["items"]) == ["Api", "Guide", "Ops"]
    assert ops["title"] == "Ops"


def test_list_sections_pages(api):
    for space_id in ("sp_guide", "sp_api", "sp_ops"):
        section(api, space_id)
    first = api.get(SECTIONS, params={"limit": 1}).json()
    second = api.get(SECTIONS, params={"limit": 1, "page": first["next"]["page"]}).json()
    assert (first["count"], titles(first["items"]), titles(second["items"])) == (
        3,
        ["Guide"],
        ["Api"],
    )


def test_list_sections_cursor_survives_removal_of_its_item(api):
    ids = [section(api, s)["id"] for s in ("sp_guide", "sp_api", "sp_ops")]
    first = api.get(SECTIONS, params={"limit": 2}).json()
    api.delete(f"{SECTIONS}/{ids[1]}")
    second = api.get(SECTIONS, params={"limit": 2, "page": first["next"]["page"]}).json()
    assert titles(second["items"]) == ["Ops"]


def test_patch_section_changes_fields(api):
    made = section(api, "sp_guide")
    body = {
        "title": "Handbook",
        "path": "handbook",
        "condition": "visitor.claims.staff",
        "icon": "book",
        "description": "How we work",
    }
    patched = api.patch(f"{SECTIONS}/{made['id']}", json=body).json()
    assert {k: patched[k] for k in body} == body
    assert patched["urls"]["published"] == "https://docs.sandbox.test/site-docs/handbook"


def test_patch_section_omitted_condition_stays_and_null_removes_it(api):
    made = section(api, "sp_guide")
    api.patch(f"{SECTIONS}/{made['id']}", json={"condition": "true", "description": "d"})
    kept = api.patch(f"{SECTIONS}/{made['id']}", json={"title": "Other"}).json()
    assert (kept["condition"], kept["description"]) == ("true", "d")
    removed = api.patch(f"{SECTIONS}/{made['id']}", json={"condition": None}).json()
    assert "condition" not in removed
    assert removed["description"] == "d"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"title": "G"}, "title: String should have at least 2 characters"),
        ({"title": "G" * 129}, "title: String should have at most 128 characters"),
        ({"path": "p" * 101}, "path: String should have at most 100 characters"),
        ({"path": ""}, "path: String should have at least 1 character"),
        ({"condition": "c" * 1025}, "condition: String should have at most 1024 characters"),
        ({"icon": "i" * 51}, "icon: String should have at most 50 characters"),
        ({"description": "d" * 257}, "description: String should have at most 256 characters"),
        ({"path": None}, "path: must not be null"),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_section_out_of_limits_is_400(api, body, message):
    made = section(api, "sp_guide")
    assert error(api.patch(f"{SECTIONS}/{made['id']}", json=body), 400) == message


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_section_path_of_another_section_is_409(api):
    section(api, "sp_guide")
    made = section(api, "sp_api")
    assert error(api.patch(f"{SECTIONS}/{made['id']}", json={"path": "guide"}), 409) == (
        "path: 'guide' is already used in this site"
    )


def test_patch_section_default_site_space(api):
    made = section(api, "sp_guide")
    added = site_space(api, "sp_api", sectionId=made["id"])
    patched = api.patch(f"{SECTIONS}/{made['id']}", json={"defaultSiteSpace": added["id"]})
    assert [s["default"] for s in patched.json()["siteSpaces"]] == [False, True]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_section_default_site_space_of_another_section_is_400(api):
    made = section(api, "sp_guide")
    other = section(api, "sp_api")["siteSpaces"][0]["id"]
    response = api.patch(f"{SECTIONS}/{made['id']}", json={"defaultSiteSpace": other})
    assert error(response, 400) == f"defaultSiteSpace: no site space '{other}' in this section"


def test_patch_unknown_section_is_404(api):
    assert error(api.patch(f"{SECTIONS}/nope", json={"title": "Title"}), 404) == (
        "section 'nope' not found"
    )


def test_delete_section_removes_its_site_spaces(api):
    made = section(api, "sp_guide")
    kept = section(api, "sp_api")
    assert api.delete(f"{SECTIONS}/{made['id']}").status_code == 204
    assert titles(api.get(SECTIONS).json()["items"]) == ["Api"]
    assert [s["section"] for s in api.get(SITE_SPACES).json()["items"]] == [kept["id"]]
    assert api.get(SECTIONS).json()["items"][0]["default"] is True


def test_delete_missing_section_is_204(api):
    assert api.delete(f"{SECTIONS}/nope").status_code == 204


def test_move_section_after_another(api):
    guide = section(api, "sp_guide")
    apis = section(api, "sp_api")
    position = {"after": {"type": "site-section", "siteSection": apis["id"]}}
    response = api.post(f"{SECTIONS}/{guide['id']}/move", json={"position": position})
    assert response.json()["id"] == guide["id"]
    assert titles(api.get(SECTIONS).json()["items"]) == ["Api", "Guide"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_move_section_without_anchor_id_is_400(api):
    guide = section(api, "sp_guide")
    position = {"after": {"type": "site-section"}}
    response = api.post(f"{SECTIONS}/{guide['id']}/move", json={"position": position})
    assert error(response, 400) == (
        "position.after.siteSection: required when type is 'site-section'"
    )


# -- site spaces ---------------------------------------------------------------------------------


def test_site_space_without_sections_goes_to_the_root(api):
    made = site_space(api, "sp_guide")
    assert "section" not in made
    assert made["default"] is True
    assert made["urls"] == {"published": "https://docs.sandbox.test/site-docs/guide"}
    structure = api.get(f"{SITE}/structure").json()
    assert (structure["type"], titles(structure["structure"])) == ("siteSpaces", ["Guide"])


def test_site_space_without_section_goes_to_the_default_section(api):
    section(api, "sp_guide")
    second = section(api, "sp_api")
    api.patch(SITE, json={"defaultSiteSection": second["id"]})
    assert site_space(api, "sp_ops")["section"] == second["id"]


def test_site_space_in_a_given_section(api):
    first = section(api, "sp_guide")
    section(api, "sp_api")
    made = site_space(api, "sp_ops", sectionId=first["id"])
    assert (made["section"], made["default"]) == (first["id"], False)


def test_site_space_paths_are_unique_within_a_section(api):
    made = section(api, "sp_guide")
    assert site_space(api, "sp_guide", sectionId=made["id"])["path"] == "guide-2"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_site_space_in_unknown_section_is_400(api):
    response = api.post(SITE_SPACES, json={"spaceId": "sp_guide", "sectionId": "nope"})
    assert error(response, 400) == "sectionId: no section 'nope' in this site"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_site_space_with_unknown_space_is_400(api):
    assert error(api.post(SITE_SPACES, json={"spaceId": "nope"}), 400) == (
        "spaceId: no space 'nope' in this organization"
    )


def test_list_site_spaces_in_structure_order_and_by_default(api):
    guide = section(api, "sp_guide")
    section(api, "sp_api")
    site_space(api, "sp_ops", sectionId=guide["id"])
    every = api.get(SITE_SPACES).json()
    defaults = api.get(SITE_SPACES, params={"default": "true"}).json()
    others = api.get(SITE_SPACES, params={"default": "false"}).json()
    assert (every["count"], titles(every["items"])) == (3, ["Guide", "Ops", "Api"])
    assert titles(defaults["items"]) == ["Guide", "Api"]
    assert titles(others["items"]) == ["Ops"]


def test_list_site_spaces_pages(api):
    for space_id in ("sp_guide", "sp_api", "sp_ops"):
        site_space(api, space_id)
    first = api.get(SITE_SPACES, params={"limit": 2}).json()
    second = api.get(SITE_SPACES, params={"limit": 2, "page": first["next"]["page"]}).json()
    assert (titles(first["items"]), titles(second["items"])) == (["Guide", "Api"], ["Ops"])


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_site_spaces_bad_default_is_400(api):
    message = error(api.get(SITE_SPACES, params={"default": "maybe"}), 400)
    assert message.startswith("default: Input should be a valid boolean")


def test_patch_site_space_changes_fields(api):
    made = site_space(api, "sp_guide")
    body = {"path": "manual", "condition": "true", "spaceId": "sp_api", "hidden": True}
    patched = api.patch(f"{SITE_SPACES}/{made['id']}", json=body).json()
    assert (patched["path"], patched["condition"], patched["hidden"]) == ("manual", "true", True)
    assert (patched["space"]["id"], patched["title"]) == ("sp_api", "Api")


def test_patch_site_space_null_condition_removes_it(api):
    made = site_space(api, "sp_guide")
    api.patch(f"{SITE_SPACES}/{made['id']}", json={"condition": "true"})
    patched = api.patch(f"{SITE_SPACES}/{made['id']}", json={"condition": None}).json()
    assert "condition" not in patched
    assert patched["path"] == "guide"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"path": "p" * 101}, "path: String should have at most 100 characters"),
        ({"condition": "c" * 1025}, "condition: String should have at most 1024 characters"),
        ({"path": None}, "path: must not be null"),
        ({"hidden": None}, "hidden: must not be null"),
        ({"spaceId": "nope"}, "spaceId: no space 'nope' in this organization"),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_space_bad_values_are_400(api, body, message):
    made = site_space(api, "sp_guide")
    assert error(api.patch(f"{SITE_SPACES}/{made['id']}", json=body), 400) == message


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_space_path_taken_in_its_section_is_409(api):
    site_space(api, "sp_guide")
    made = site_space(api, "sp_api")
    assert error(api.patch(f"{SITE_SPACES}/{made['id']}", json={"path": "guide"}), 409) == (
        "path: 'guide' is already used in this section"
    )


def test_patch_unknown_site_space_is_404(api):
    assert error(api.patch(f"{SITE_SPACES}/nope", json={"hidden": True}), 404) == (
        "site space 'nope' not found"
    )


def test_delete_site_space(api):
    made = site_space(api, "sp_guide")
    assert api.delete(f"{SITE_SPACES}/{made['id']}").status_code == 204
    assert api.get(SITE_SPACES).json()["count"] == 0


def test_delete_missing_site_space_is_204(api):
    assert api.delete(f"{SITE_SPACES}/nope").status_code == 204


def test_move_site_space_before_another(api):
    first = site_space(api, "sp_guide")
    second = site_space(api, "sp_api")
    position = {"before": {"type": "site-space", "siteSpace": first["id"]}}
    moved = api.post(f"{SITE_SPACES}/{second['id']}/move", json={"position": position}).json()
    assert moved["default"] is True
    assert titles(api.get(SITE_SPACES).json()["items"]) == ["Api", "Guide"]


# -- access --------------------------------------------------------------------------------------


def test_structure_lists_with_another_orgs_token_are_403(api):
    for path in (GROUPS, SECTIONS, SITE_SPACES):
        assert error(api.get(path, headers=OTHER), 403) == (
            f"you are not a member of organization '{ORG}'"
        )


def test_editor_can_read_but_not_change_the_structure(api):
    assert api.get(SECTIONS, headers=EDITOR).status_code == 200
    response = api.post(SECTIONS, json={"spaceId": "sp_guide"}, headers=EDITOR)
    assert error(response, 403) == f"changing organization '{ORG}' needs the admin role"
