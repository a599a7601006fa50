"""The kind registry (kind_registry.py): every kind module is found and placed by its
declared position, a kind without a declaration or with a taken position is refused on import, and
every reference a field declares names a kind with a manifest section; a kind reading an answer
the service's description lacks is refused too."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any, get_args

import pytest
from contract_definition import DEFINITION

from docform.api.shapes import RouteShapes
from docform.engine.kind import Kind
from docform.kind_framework.declaration import Declaration, Reads, Section
from docform.kind_registry import (
    KIND_CLASSES,
    KindDeclarationError,
    build_kinds,
    declaration_of,
    declared_kinds,
    in_plan_order,
    items_read_as,
    nested_fields,
    read_shapes,
    reads_by_kind,
    section_of,
    sections,
)
from docform.model.entry import Entry
from docform.model.fields import RefTo
from docform.service.extract import extracted


def module_with(*classes: type) -> ModuleType:
    module = ModuleType("docform.kinds.example")
    for cls in classes:
        cls.__module__ = module.__name__
        setattr(module, cls.__name__, cls)
    return module


def test_the_registry_finds_every_kind_module_in_plan_order() -> None:
    # A new kind joins at its declared position; these stay, in this order.
    known = [
        "organization", "member", "team", "collection", "space", "site", "customization",
        "adaptive_content", "advertising", "styleguide", "section", "section_group",
        "external_link", "navigation", "site_space",
        "override",
        "redirect", "visitor_auth", "share_link", "context_connection", "mcp_server", "openapi",
        "saml",
        "link_invite", "access",
        "translation", "agent_instructions", "integration", "integration_target",
        "git_sync",
    ]  # fmt: skip
    assert [cls.name for cls in KIND_CLASSES if cls.name in known] == known


def test_a_kind_without_a_declaration_is_refused() -> None:
    class ExampleKind(Kind):
        name = "example"
        prune_setting = None

    with pytest.raises(KindDeclarationError) as caught:
        list(declared_kinds(module_with(ExampleKind)))
    assert str(caught.value) == (
        "docform.kinds.example.ExampleKind names a kind but has no `declaration = "
        "Declaration(...)` (docform.kind_framework.declaration): add one, so that plans "
        "place it"
    )


def test_a_base_without_a_name_of_its_own_is_no_kind() -> None:
    class RestBase(Kind):
        pass

    class ExampleKind(RestBase):
        name = "example"
        prune_setting = None
        declaration = Declaration(position=5)

    assert list(declared_kinds(module_with(RestBase, ExampleKind))) == [ExampleKind]


def test_two_kinds_at_one_position_are_refused() -> None:
    class FirstKind(Kind):
        name = "first"
        declaration = Declaration(position=5)

    class SecondKind(Kind):
        name = "second"
        declaration = Declaration(position=5)

    with pytest.raises(KindDeclarationError) as caught:
        in_plan_order([FirstKind, SecondKind])
    assert str(caught.value) == (
        "SecondKind and FirstKind declare the same position 5: give one another, so that plans "
        "order them"
    )


def references(model: Any) -> list[str]:
    """The kinds the fields of ``model`` and its nested types refer to."""
    found: list[str] = []
    for info in getattr(model, "model_fields", {}).values():
        found += [mark.kind for mark in info.metadata if isinstance(mark, RefTo)]
        found += annotation_references(info.annotation)
    return found


def annotation_references(annotation: Any) -> list[str]:
    found = [
        mark.kind for mark in getattr(annotation, "__metadata__", ()) if isinstance(mark, RefTo)
    ]
    for arg in get_args(annotation):
        if isinstance(arg, type) and hasattr(arg, "model_fields"):
            found += references(arg)
        elif not isinstance(arg, str | int):
            found += annotation_references(arg)
    return found


def test_every_reference_names_a_kind_with_a_section() -> None:
    models = [section.entry for section in sections()]
    models += [entry for section in sections() for _, entry in nested_fields(section.entry)]
    found = {kind for model in models for kind in references(model)}
    assert found == {"member", "team", "collection", "space", "site"}
    assert {section_of(kind).name for kind in found} == {
        "members", "teams", "collections", "spaces", "sites",
    }  # fmt: skip


def test_a_read_after_a_kind_waits_for_everything_its_matching_needs():
    """A read that asks which live objects of a kind are managed (`LiveReader.managed`) runs
    once that kind is matched, which needs every kind it refers to matched, and theirs: the
    full benchmark organization read overrides while its 5,000 spaces were still coming in."""
    kinds = {kind.name: kind for kind in build_kinds("org_acme")}

    def referred(name: str, seen: set[str]) -> set[str]:
        for other in kinds[name].references:
            if other in kinds and other not in seen and other != name:
                seen.add(other)
                referred(other, seen)
        return seen

    for kind in kinds.values():
        needed = set().union(*(referred(name, set()) for name in kind.read_after if name in kinds))
        missing = needed - set(kind.read_after) - {kind.name}
        assert not missing, f"{kind.name}.read_after lacks {sorted(missing)}"


# -- the answers kinds read: their shapes come from the service's answer description ----------


def kind_reading(fields: dict[str, tuple[str, ...]]) -> type[Kind]:
    class WebhookKind(Kind):
        name = "webhook"
        declaration = Declaration(position=5, reads=Reads(fields=fields))

    return WebhookKind


def test_a_kind_reading_a_field_the_description_lacks_is_refused() -> None:
    webhooks = kind_reading({"/orgs/*/teams": ("id", "title.secret")})
    with pytest.raises(KindDeclarationError) as caught:
        read_shapes([*KIND_CLASSES, webhooks])
    assert str(caught.value) == (
        "the webhook kind reads GET /orgs/*/teams: title is no object in the description"
    )
    webhooks = kind_reading({"/orgs/*/teams": ("id", "colour")})
    with pytest.raises(KindDeclarationError) as caught:
        read_shapes([webhooks])
    assert str(caught.value) == (
        "the webhook kind reads GET /orgs/*/teams: colour is no field of the answer in the "
        "description of the service's answers (service_answers.json; a field newly read needs "
        "`make answers`, which refuses one the service's definition lacks)"
    )


def test_a_kind_reading_a_route_the_description_lacks_is_refused() -> None:
    webhooks = kind_reading({"/orgs/*/webhooks": ("id", "url")})
    with pytest.raises(KindDeclarationError) as caught:
        read_shapes([webhooks])
    assert str(caught.value) == (
        "the webhook kind reads GET /orgs/*/webhooks: the description of the service's answers "
        "has no such route (service_answers.json; a route newly read needs `make answers`)"
    )


def test_kinds_reading_one_route_are_checked_for_all_their_fields() -> None:
    ids, titles = (
        kind_reading({"/orgs/*/teams": ("id",)}),
        kind_reading({"/orgs/*/teams": ("title",)}),
    )
    objects, items = read_shapes([ids, titles])
    assert list(items["/orgs/*/teams"]) == ["id", "title"]
    assert "/orgs/*/teams" not in objects
    objects, _ = read_shapes(KIND_CLASSES)
    assert list(objects["/orgs/*"])[:2] == ["id", "title"]


def test_a_field_is_let_go_only_when_every_kind_reading_it_copes_without_it() -> None:
    class LenientKind(Kind):
        name = "lenient"
        declaration = Declaration(
            position=6,
            reads=Reads(
                fields={"/orgs/*/teams": ("id", "title")},
                copes_without={"/orgs/*/teams": ("title",)},
            ),
        )

    _, items = read_shapes([LenientKind])
    assert not items["/orgs/*/teams"]["title"].required
    _, items = read_shapes([*KIND_CLASSES, LenientKind])
    assert items["/orgs/*/teams"]["title"].required


def test_a_null_is_let_in_only_when_every_kind_reading_the_field_copes_with_it() -> None:
    route = "/spaces/*/permissions/teams"

    class LenientKind(Kind):
        name = "lenient"
        declaration = Declaration(
            position=6,
            reads=Reads(fields={route: ("permission",)}, copes_with_null={route: ("permission",)}),
        )

    class StrictKind(Kind):
        name = "strict"
        declaration = Declaration(position=7, reads=Reads(fields={route: ("permission",)}))

    _, items = read_shapes([LenientKind])
    assert items[route]["permission"].types == (str, type(None))
    _, items = read_shapes([LenientKind, StrictKind])
    assert items[route]["permission"].types == (str,)


def test_a_new_kinds_read_route_is_checked_once_make_answers_takes_it_out() -> None:
    if not DEFINITION.exists():
        pytest.skip(f"the service's definition is not installed ({DEFINITION.name})")
    webhooks = kind_reading({"/orgs/*/teams/*": ("id", "title")})
    kinds = [*KIND_CLASSES, webhooks]
    document = json.loads(DEFINITION.read_text(encoding="utf-8"))
    described = extracted(document, "pinned", reads_by_kind(kinds), items_read_as(kinds))
    shapes = RouteShapes(*read_shapes(kinds, described))
    assert "/orgs/*/teams/*" in shapes.templates()
    team = {"object": "team", "id": "t1", "title": "Platform"}
    assert shapes.object_misfit("/orgs/o1/teams/t1", team) is None
    assert shapes.object_misfit("/orgs/o1/teams/t1", {"id": "t1"}) == (
        "title is missing (a string expected)"
    )
    assert shapes.object_misfit("/orgs/o1/teams/t2", team) == (
        "id is a string ('t1'), not the id asked for"
    )


def test_a_kind_states_its_name_once_and_the_other_names_derive_from_it() -> None:
    class ExampleEntry(Entry):
        kind = "api_key"

    class ApiKeyKind(Kind):
        name = "api_key"
        declaration = Declaration(position=5, section=Section(ExampleEntry))

    section = declaration_of(ApiKeyKind).section
    assert (ApiKeyKind.plural, ApiKeyKind.prune_setting) == ("api keys", "apiKeys")
    assert section is not None
    assert (section.name, section.noun, section.plural) == ("apiKeys", "api key", "api keys")


def test_a_kind_states_the_names_that_do_not_derive_from_its_name() -> None:
    [saml] = [cls for cls in KIND_CLASSES if cls.name == "saml"]
    section = declaration_of(saml).section
    assert (saml.plural, saml.prune_setting) == ("SAML providers", "saml")
    assert section is not None
    assert (section.name, section.noun, section.plural) == (
        "saml",
        "SAML provider",
        "SAML providers",
    )
