"""Sites in the sandbox: list, create, get, patch, delete, structure and sort
(sandbox/routes/sites.py; publishing, proxies and what a deletion takes along:
test_sandbox_sites_lifecycle.py)."""

import pytest

from conftest import EDITOR_TOKEN, ORG, OTHER_ORG_TOKEN

SITES = f"orgs/{ORG}/sites"
SITE = f"{SITES}/site_docs"
OTHER = {"Authorization": f"Bearer {OTHER_ORG_TOKEN}"}
EDITOR = {"Authorization": f"Bearer {EDITOR_TOKEN}"}


def add_space(store, space_id, title):
    """A space stored directly, so these tests do not depend on the spaces endpoints."""
    store.insert(
        "space",
        {
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
        },
        org=ORG,
    )
    return space_id


@pytest.fixture
def spaces(store):
    return [add_space(store, f"sp_{n}", n.title()) for n in ("guide", "api", "ops", "faq")]


def error(response, status):
    assert response.status_code == status, response.text
    return response.json()["error"]["message"]


def create_site(api, **body):
    response = api.post(SITES, json=body)
    assert response.status_code == 201, response.text
    return response.json()


def section(api, site_path, space_id, **body):
    response = api.post(f"{site_path}/sections", json={"spaceId": space_id, **body})
    assert response.status_code == 201, response.text
    return response.json()


def group(api, site_path, **body):
    response = api.post(f"{site_path}/section-groups", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def sort(api, site_path, item, side, anchor):
    body = {
        "item": {"type": item[0], "id": item[1]},
        "position": {side: {"type": anchor[0], "id": anchor[1]}},
    }
    return api.patch(f"{site_path}/structure/sort", json=body)


def top_level(api, site_path):
    """The structure's top level as (kind, title) pairs."""
    structure = api.get(f"{site_path}/structure").json()["structure"]
    return [(item["object"], item["title"]) for item in structure]


# -- list, create, get ---------------------------------------------------------------------------


def test_list_sites_shows_the_seeded_site(api):
    body = api.get(SITES).json()
    assert body["count"] == 1
    site = body["items"][0]
    assert site["object"] == "site"
    assert site["id"] == "site_docs"
    assert site["urls"] == {
        "location": f"https://api.sandbox.test/v1/{SITE}",
        "app": f"https://app.sandbox.test/o/{ORG}/sites/site_docs",
        "preview": f"https://app.sandbox.test/o/{ORG}/sites/site_docs/preview",
    }
    assert "organization" not in site  # the definition's Site has no such field


def test_the_published_url_shows_only_while_published(api):
    path = f"{SITES}/site_docs"
    assert api.post(f"{path}/publish").json()["urls"]["published"] == (
        "https://docs.sandbox.test/site-docs"
    )
    assert "published" not in api.post(f"{path}/unpublish").json()["urls"]


def test_create_site_has_defaults(api):
    site = create_site(api)
    assert {k: site[k] for k in ("type", "title", "visibility", "basename", "defaultLevel")} == {
        "type": "basic",
        "title": "Untitled site",
        "visibility": "public",
        "basename": "untitled-site",
        "defaultLevel": None,
    }
    assert "hostname" not in site  # no custom hostname is connected to a new site
    assert api.get(f"{SITES}/{site['id']}").json() == site


def test_create_site_takes_type_title_and_visibility(api):
    site = create_site(api, type="ultimate", title="Dev Portal", visibility="unlisted")
    assert (site["type"], site["title"], site["visibility"]) == (
        "ultimate",
        "Dev Portal",
        "unlisted",
    )
    assert site["basename"] == "dev-portal"


def test_create_site_makes_the_basename_unique(api):
    first = create_site(api, title="Docs")
    second = create_site(api, title="Docs")
    assert (first["basename"], second["basename"]) == ("docs", "docs-2")


def test_create_site_with_spaces_makes_them_site_spaces_in_order(api, spaces):
    site = create_site(api, title="Docs", spaces=["sp_ops", "sp_guide"])
    structure = api.get(f"{SITES}/{site['id']}/structure").json()
    assert structure["type"] == "siteSpaces"
    assert [(s["title"], s["path"], s["default"]) for s in structure["structure"]] == [
        ("Ops", "ops", True),
        ("Guide", "guide", False),
    ]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_site_with_unknown_space_is_400(api):
    assert error(api.post(SITES, json={"spaces": ["nope"]}), 400) == (
        "spaces.0: no space 'nope' in this organization"
    )


@pytest.mark.parametrize(
    ("title", "message"),
    [
        ("A", "title: String should have at least 2 characters"),
        ("A" * 129, "title: String should have at most 128 characters"),
    ],
)
@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_site_title_out_of_limits_is_400(api, title, message):
    assert error(api.post(SITES, json={"title": title}), 400) == message


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_create_site_unknown_type_is_400(api):
    message = error(api.post(SITES, json={"type": "gold"}), 400)
    assert message.startswith("type: Input should be 'basic', 'premium'")


def test_create_site_as_editor_is_403(api):
    assert error(api.post(SITES, json={}, headers=EDITOR), 403) == (
        f"changing organization '{ORG}' needs the admin role"
    )


def test_get_unknown_site_is_404(api):
    assert error(api.get(f"{SITES}/nope"), 404) == "site 'nope' not found"


def test_site_of_another_org_is_404_here(api):
    other = api.post("orgs/org_other/sites", json={"title": "Theirs"}, headers=OTHER).json()
    assert error(api.get(f"{SITES}/{other['id']}"), 404) == f"site '{other['id']}' not found"


def test_token_of_another_org_is_403(api):
    assert error(api.get(SITE, headers=OTHER), 403) == (
        f"you are not a member of organization '{ORG}'"
    )


# -- list filters and pagination ------------------------------------------------------------------


def test_list_sites_filters_by_title_case_insensitively(api):
    create_site(api, title="Developer Hub")
    body = api.get(SITES, params={"title": "HUB"}).json()
    assert [s["title"] for s in body["items"]] == ["Developer Hub"]


def test_list_sites_filters_by_type(api):
    create_site(api, title="Basic One", type="basic")
    assert [s["id"] for s in api.get(SITES, params={"type": "premium"}).json()["items"]] == [
        "site_docs"
    ]


def test_list_sites_filters_by_space(api, spaces):
    site = create_site(api, title="With Ops", spaces=["sp_ops"])
    create_site(api, title="With Guide", spaces=["sp_guide"])
    assert [s["id"] for s in api.get(SITES, params={"space": "sp_ops"}).json()["items"]] == [
        site["id"]
    ]


def test_list_sites_pages_with_cursors(api):
    for title in ("One", "Two", "Three"):
        create_site(api, title=title)
    first = api.get(SITES, params={"limit": 2}).json()
    assert first["count"] == 4
    assert [s["title"] for s in first["items"]] == ["Three", "Two"]
    second = api.get(SITES, params={"limit": 2, "page": first["next"]["page"]}).json()
    assert [s["title"] for s in second["items"]] == ["One", "Acme Docs"]
    assert "next" not in second


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_list_sites_limit_over_1000_is_400(api):
    assert error(api.get(SITES, params={"limit": 1001}), 400) == (
        "limit: must be an integer from 0 to 1000"
    )


# -- patch ---------------------------------------------------------------------------------------


def test_patch_site_changes_fields(api):
    body = {
        "title": "New Docs",
        "visibility": "share-link",
        "basename": "new",
        "defaultLevel": "read",
    }
    api.post(f"{SITE}/publish")
    site = api.patch(SITE, json=body).json()
    assert {k: site[k] for k in body} == body
    assert site["urls"]["published"] == "https://docs.sandbox.test/new"
    assert api.get(SITE).json()["title"] == "New Docs"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_title_null_is_400(api):
    assert error(api.patch(SITE, json={"title": None}), 400) == "title: must not be null"


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_unknown_visibility_is_400(api):
    message = error(api.patch(SITE, json={"visibility": "private"}), 400)
    assert message.startswith("visibility: Input should be 'public'")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_unknown_level_is_400(api):
    message = error(api.patch(SITE, json={"defaultLevel": "owner"}), 400)
    assert message.startswith("defaultLevel: must be one of 'admin'")


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_basename_of_another_site_is_409(api):
    other = create_site(api, title="Other")
    assert error(api.patch(SITE, json={"basename": "other"}), 409) == (
        f"basename: 'other' is already used by site '{other['id']}'"
    )


def test_patch_site_default_site_section(api, spaces):
    section(api, SITE, "sp_guide")
    second = section(api, SITE, "sp_api")
    api.patch(SITE, json={"defaultSiteSection": second["id"]})
    defaults = [s["default"] for s in api.get(f"{SITE}/sections").json()["items"]]
    assert defaults == [False, True]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_unknown_default_site_section_is_400(api):
    assert error(api.patch(SITE, json={"defaultSiteSection": "nope"}), 400) == (
        "defaultSiteSection: no section 'nope' in this site"
    )


def test_patch_site_default_site_space_at_the_root(api, spaces):
    site = create_site(api, title="Docs", spaces=["sp_guide", "sp_api"])
    path = f"{SITES}/{site['id']}"
    second = api.get(f"{path}/site-spaces").json()["items"][1]
    api.patch(path, json={"defaultSiteSpace": second["id"]})
    defaults = api.get(f"{path}/site-spaces", params={"default": "true"}).json()["items"]
    assert [s["id"] for s in defaults] == [second["id"]]


def test_patch_site_default_site_space_in_a_section(api, spaces):
    first = section(api, SITE, "sp_guide")
    added = api.post(f"{SITE}/site-spaces", json={"spaceId": "sp_api"}).json()
    api.patch(SITE, json={"defaultSiteSpace": added["id"]})
    items = api.get(f"{SITE}/sections").json()["items"][0]["siteSpaces"]
    assert [(s["space"]["id"], s["default"]) for s in items] == [
        ("sp_guide", False),
        ("sp_api", True),
    ]
    assert items[0]["section"] == first["id"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_patch_site_unknown_default_site_space_is_400(api):
    assert error(api.patch(SITE, json={"defaultSiteSpace": "nope"}), 400) == (
        "defaultSiteSpace: no site space 'nope' in this site"
    )


# -- delete --------------------------------------------------------------------------------------


def test_delete_site_removes_its_structure(api, store, spaces):
    group(api, SITE, title="Group")
    section(api, SITE, "sp_guide")
    assert api.delete(SITE).status_code == 205
    assert api.get(SITE).status_code == 404
    for kind in ("site-space", "site-section", "site-section-group"):
        assert store.count(kind, [("parent = ?", ["site_docs"])]) == 0


def test_delete_missing_site_is_204(api):
    response = api.delete(f"{SITES}/nope")
    assert response.status_code == 204
    assert response.content == b""


def test_delete_site_clears_the_org_default_content(api):
    api.patch(f"orgs/{ORG}", json={"defaultContent": {"type": "site", "site": "site_docs"}})
    api.delete(SITE)
    assert "defaultContent" not in api.get(f"orgs/{ORG}").json()


# -- structure -----------------------------------------------------------------------------------


def test_structure_of_an_empty_site_lists_no_site_spaces(api):
    assert api.get(f"{SITE}/structure").json() == {"type": "siteSpaces", "structure": []}


def test_structure_of_a_sectioned_site_nests_groups_sections_and_site_spaces(api, spaces):
    guide = section(api, SITE, "sp_guide")
    outer = group(api, SITE, title="Outer", sections=[guide["id"]])
    inner = group(api, SITE, title="Inner", parent=outer["id"])
    section(api, SITE, "sp_api")
    structure = api.get(f"{SITE}/structure").json()
    assert structure["type"] == "sections"
    assert [(i["object"], i["title"]) for i in structure["structure"]] == [
        ("site-section-group", "Outer"),
        ("site-section", "Api"),
    ]
    outer_item = structure["structure"][0]
    assert [s["id"] for s in outer_item["sections"]] == [guide["id"]]
    assert [c["id"] for c in outer_item["children"]] == [guide["id"], inner["id"]]
    assert outer_item["children"][1]["sectionGroup"] == outer["id"]
    assert outer_item["sections"][0]["siteSpaces"][0]["space"]["id"] == "sp_guide"


def test_structure_of_unknown_site_is_404(api):
    assert error(api.get(f"{SITES}/nope/structure"), 404) == "site 'nope' not found"


# -- sort ----------------------------------------------------------------------------------------


@pytest.fixture
def three_sections(api, spaces):
    return [section(api, SITE, s)["id"] for s in ("sp_guide", "sp_api", "sp_ops")]


def test_sort_section_before_another(api, three_sections):
    guide, _, ops = three_sections
    response = sort(api, SITE, ("site-section", ops), "before", ("site-section", guide))
    assert response.status_code == 200
    assert response.json()["id"] == ops
    assert [t for _, t in top_level(api, SITE)] == ["Ops", "Guide", "Api"]


def test_sort_section_after_the_last(api, three_sections):
    guide, _, ops = three_sections
    sort(api, SITE, ("site-section", guide), "after", ("site-section", ops))
    assert [t for _, t in top_level(api, SITE)] == ["Api", "Ops", "Guide"]


def test_sort_group_between_sections(api, three_sections):
    guide = three_sections[0]
    made = group(api, SITE, title="Group")
    response = sort(api, SITE, ("site-section-group", made["id"]), "after", ("site-section", guide))
    assert response.json()["object"] == "site-section-group"
    assert [t for _, t in top_level(api, SITE)] == ["Guide", "Group", "Api", "Ops"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_sort_next_to_a_grouped_section_is_400(api, three_sections):
    """The definition: sorting changes sibling order only, a section joins a group by its
    own update."""
    guide, _, ops = three_sections
    group(api, SITE, title="Group", sections=[guide])
    response = sort(api, SITE, ("site-section", ops), "before", ("site-section", guide))
    assert error(response, 400).startswith(f"position.before: section '{guide}' is not in the ")
    assert [t for _, t in top_level(api, SITE)] == ["Api", "Ops", "Group"]


def test_sort_site_space_within_a_section(api, three_sections):
    guide = three_sections[0]
    second = api.post(f"{SITE}/site-spaces", json={"spaceId": "sp_faq", "sectionId": guide}).json()
    items = api.get(f"{SITE}/site-spaces").json()["items"]
    response = sort(
        api, SITE, ("site-space", second["id"]), "before", ("site-space", items[0]["id"])
    )
    assert response.json()["id"] == second["id"]
    site_spaces = api.get(f"{SITE}/structure").json()["structure"][0]["siteSpaces"]
    assert [s["title"] for s in site_spaces] == ["Faq", "Guide"]


def test_sort_site_space_into_another_section(api, three_sections):
    guide = three_sections[0]
    items = api.get(f"{SITE}/site-spaces").json()["items"]
    moved = sort(api, SITE, ("site-space", items[1]["id"]), "after", ("site-space", items[0]["id"]))
    assert moved.json()["section"] == guide
    structure = api.get(f"{SITE}/structure").json()["structure"]
    assert [s["title"] for s in structure[0]["siteSpaces"]] == ["Guide", "Api"]
    assert structure[1]["siteSpaces"] == []


def test_sort_site_space_into_a_section_using_its_path_is_409(api, three_sections):
    guide, apis, _ = three_sections
    api.post(f"{SITE}/site-spaces", json={"spaceId": "sp_api", "sectionId": guide})
    items = api.get(f"{SITE}/site-spaces").json()["items"]
    in_api = next(s for s in items if s["section"] == apis)
    response = sort(
        api, SITE, ("site-space", in_api["id"]), "after", ("site-space", items[0]["id"])
    )
    assert error(response, 409) == "path: 'api' is already used in the target section"


def test_sort_many_times_keeps_the_order_exact(api, three_sections):
    guide, apis, ops = three_sections
    # Each sort halves the gap after Guide: far more times than a float can halve it.
    for step in range(71):
        mover = ops if step % 2 == 0 else apis
        sort(api, SITE, ("site-section", mover), "after", ("site-section", guide))
    assert [t for _, t in top_level(api, SITE)] == ["Guide", "Ops", "Api"]


@pytest.mark.contract_exempt("sends requests the service refuses, to check the refusal")
def test_sort_group_inside_itself_is_400(api, three_sections):
    outer = group(api, SITE, title="Outer")
    inner = group(api, SITE, title="Inner", parent=outer["id"])
    # The deprecated move still takes a group to the anchor's container.
    position = {"after": {"type": "site-section-group", "siteSectionGroup": inner["id"]}}
    response = api.post(f"{SITE}/section-groups/{outer['id']}/move", json={"position": position})
    assert error(response, 400) == (
        f"position.after: cannot place section group '{outer['id']}' inside itself"
    )


def test_sort_site_space_next_to_a_section_is_400(api, three_sections):
    item = api.get(f"{SITE}/site-spaces").json()["items"][0]
    response = sort(
        api, SITE, ("site-space", item["id"]), "after", ("site-section", three_sections[1])
    )
    assert error(response, 400) == (
        "position.after.type: a site space can only be placed next to site spaces"
    )


def test_sort_next_to_itself_is_400(api, three_sections):
    guide = three_sections[0]
    response = sort(api, SITE, ("site-section", guide), "after", ("site-section", guide))
    assert error(response, 400) == "position.after: cannot place a section next to itself"


def test_sort_unknown_item_is_404(api, three_sections):
    response = sort(
        api, SITE, ("site-section", "nope"), "after", ("site-section", three_sections[0])
    )
    assert error(response, 404) == "section 'nope' not found"


def test_sort_unknown_anchor_is_400(api, three_sections):
    response = sort(
        api, SITE, ("site-section", three_sections[0]), "before", ("site-section", "nope")
    )
    assert error(response, 400) == "position.before: no section 'nope' in this site"


def test_sort_an_unknown_external_link_is_404(api, three_sections):
    guide, _, _ = three_sections
    response = sort(api, SITE, ("site-external-link", "x"), "before", ("site-section", guide))
    assert error(response, 404) == "external link 'x' not found"


def test_an_external_link_sits_beside_sections_never_beside_site_spaces(api, three_sections):
    guide, apis, _ = three_sections
    body = {"title": "Status", "url": "https://status.acme.test"}
    link = api.post(f"{SITE}/external-links", json=body).json()
    response = sort(api, SITE, ("site-external-link", link["id"]), "after", ("site-section", guide))
    assert response.status_code == 200, response.text
    structure = api.get(f"{SITE}/structure").json()["structure"]
    assert [item["id"] for item in structure][:3] == [guide, link["id"], apis]
    space = structure[0]["siteSpaces"][0]["id"]
    response = sort(api, SITE, ("site-external-link", link["id"]), "after", ("site-space", space))
    assert error(response, 400) == (
        "position.after.type: an external link can only be placed next to sections, groups or "
        "external links"
    )


def test_sort_with_both_sides_is_400(api, three_sections):
    guide, apis, ops = three_sections
    body = {
        "item": {"type": "site-section", "id": guide},
        "position": {
            "before": {"type": "site-section", "id": apis},
            "after": {"type": "site-section", "id": ops},
        },
    }
    response = api.patch(f"{SITE}/structure/sort", json=body)
    assert error(response, 400) == "position: give either before or after, not both"


def test_sort_without_a_side_is_400(api, three_sections):
    body = {"item": {"type": "site-section", "id": three_sections[0]}, "position": {}}
    response = api.patch(f"{SITE}/structure/sort", json=body)
    assert error(response, 400) == "position: give before or after"


def test_sort_as_editor_is_403(api, three_sections):
    guide, apis, _ = three_sections
    body = {
        "item": {"type": "site-section", "id": guide},
        "position": {"after": {"type": "site-section", "id": apis}},
    }
    assert api.patch(f"{SITE}/structure/sort", json=body, headers=EDITOR).status_code == 403
