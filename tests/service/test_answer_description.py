"""How the client's answer shapes are derived from the description of the service's answers
(answer_description.py): a field is required exactly when every answer the description allows
holds it, and holds exactly the types the description allows; a field path reaches into objects
(``user.email``), alternatives (``destination.url``) and list items (``children[].object``)."""

from __future__ import annotations

import pytest

from docform.service.answer_description import (
    AnswerDescriptionError,
    ReadShape,
    described_routes,
    field_tree,
    read_shape,
    within,
)
from docform.service.answer_fields import NULL, Field


def test_a_field_path_names_fields_of_objects_and_of_list_items() -> None:
    assert field_tree(["id", "user.email", "user.id", "nodes[]", "a[].b.c"]) == {
        "id": {},
        "user": {"email": {}, "id": {}},
        "nodes": {"[]": {}},
        "a": {"[]": {"b": {"c": {}}}},
    }
    assert within("user", ("email", "id")) == ("user.email", "user.id")


def test_required_and_nullable_are_the_descriptions() -> None:
    read = read_shape("/orgs/*/members", ["id", "role", "user.email", "lastSeenAt"])
    assert read == ReadShape(
        listed=True,
        shape={
            "id": Field((str,)),
            "role": Field((str, NULL)),  # null: a guest
            "user": Field((dict,), shape={"email": Field((str,), required=False)}),
            "lastSeenAt": Field((str,), required=False),
        },
    )


def test_an_object_route_is_no_list() -> None:
    read = read_shape("/orgs/*", ["id", "title", "trial.count"])
    assert read.listed is False
    assert read.shape["title"] == Field((str,), required=False)
    assert read.shape["trial"].shape == {"count": Field((int,))}


def test_a_field_of_alternatives_is_required_only_when_each_holds_it() -> None:
    destination = read_shape("/orgs/*/sites/*/redirects", ["destination.kind", "destination.url"])
    assert destination.shape["destination"].shape == {
        "kind": Field((str,)),
        "url": Field((str,), required=False),
    }


def test_list_items_and_more_properties_take_their_types_from_the_description() -> None:
    groups = read_shape("/orgs/*/sites/*/section-groups", ["children[].object", "sections[]"])
    children = groups.shape["children"]
    assert children.required and children.items == Field((dict,), shape={"object": Field((str,))})
    assert groups.shape["sections"] == Field((list,), required=False, items=Field((dict,)))
    spaces = read_shape("/orgs/*/spaces", ["permissions.anything", "comments"])
    assert spaces.shape["permissions"].shape == {"anything": Field((bool,), required=False)}
    assert spaces.shape["comments"] == Field((int, float))


@pytest.mark.parametrize(
    ("template", "fields", "message"),
    [
        (
            "/orgs/*/teams",
            ["title.first"],
            "GET /orgs/*/teams: title is no object in the description",
        ),
        ("/orgs/*/teams", ["title[]"], "GET /orgs/*/teams: title is no list in the description"),
        (
            "/orgs/*/members",
            ["user.phone"],
            "GET /orgs/*/members: user.phone is no field of the answer in the description of the "
            "service's answers (service_answers.json)",
        ),
    ],
)
def test_a_field_the_description_lacks_is_named(
    template: str, fields: list[str], message: str
) -> None:
    with pytest.raises(AnswerDescriptionError) as caught:
        read_shape(template, fields)
    assert str(caught.value) == message


def test_every_route_is_written_as_the_kinds_write_it() -> None:
    assert "/orgs/*/sites/*/redirects" in described_routes()
    assert all("{" not in template for template in described_routes())


def test_a_field_docform_copes_without_may_be_missing() -> None:
    fields = ["children[].id", "sections[].id", "draft"]
    read = read_shape("/orgs/*/sites/*/section-groups", fields, ["children", "draft"])
    assert not read.shape["children"].required and not read.shape["draft"].required
    assert read.shape["children"].items == Field((dict,), shape={"id": Field((str,))})
    nested = read_shape("/orgs/*/members", ["user.displayName"], ["user.displayName"])
    assert nested.shape["user"] == Field(
        (dict,), shape={"displayName": Field((str,), required=False)}
    )
    with pytest.raises(AnswerDescriptionError) as caught:
        read_shape("/orgs/*/members", ["id"], ["role"])
    assert str(caught.value) == "GET /orgs/*/members: role is no field read, so none to relax"
