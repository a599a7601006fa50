"""How the client's answer shapes are derived from the service's definition: what `make answers`
takes out of it (service/extract.py) and how the reader turns that into shapes
(service/answer_description.py). A field is required exactly when every answer the definition
allows holds it, and holds exactly the types it allows; a field path reaches into objects
(``user.email``), alternatives (``destination.url``) and list items (``children[].object``).

The definitions here are small ones written for each rule, in the forms the published one
uses: references, lists as ``allOf`` of the list envelope and their items, ``oneOf`` beside a
base's fields, nullable values as ``oneOf`` with ``null`` or a list of types."""

from __future__ import annotations

from typing import Any

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
from docform.service.extract import ExtractError, extracted

REF = "#/components/schemas/"
SCHEMAS: dict[str, Any] = {
    "List": {
        "type": "object",
        "properties": {"next": {"type": "object"}, "count": {"type": "number"}},
    },
    "Role": {"type": "string", "enum": ["admin", "read"]},
    "RoleOrGuest": {"oneOf": [{"$ref": REF + "Role"}, {"type": "null"}]},
    "User": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "email": {"type": "string"},
            "displayName": {"type": "string"},
        },
        "required": ["id", "displayName"],
    },
    "Member": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "role": {"$ref": REF + "RoleOrGuest"},
            "user": {"$ref": REF + "User"},
            "lastSeenAt": {"type": "string", "format": "date-time"},
        },
        "required": ["id", "role", "user"],
    },
    "Org": {
        "allOf": [
            {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
            {
                "type": "object",
                "properties": {
                    "title": {"type": ["string", "null"]},
                    "trial": {"type": "object", "properties": {"count": {"type": "integer"}}},
                    "flags": {"type": "object", "additionalProperties": {"type": "boolean"}},
                },
                "required": ["trial"],
            },
        ]
    },
    "Redirect": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "destination": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "url"}, "url": {"type": "string"}},
                        "required": ["kind", "url"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"const": "page"}, "page": {"type": "string"}},
                        "required": ["kind", "page"],
                    },
                ]
            },
        },
        "required": ["id", "destination"],
    },
    "Group": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "children": {
                "type": "array",
                "items": {"oneOf": [{"$ref": REF + "Group"}, {"$ref": REF + "Redirect"}]},
            },
            "object": {"type": "string", "enum": ["group"]},
        },
        "required": ["id", "children"],
    },
    "Invite": {
        "type": "object",
        "properties": {"id": {"type": "string"}, "role": {"$ref": REF + "Role"}},
        "required": ["id", "role"],
    },
    "AnyInvite": {
        "oneOf": [
            {"$ref": REF + "Invite"},
            {
                "type": "object",
                "properties": {"id": {"type": "string"}, "level": {"$ref": REF + "Role"}},
                "required": ["id", "level"],
            },
        ]
    },
}


def listing(name: str) -> dict[str, Any]:
    items = {"type": "array", "items": {"$ref": REF + name}}
    return {
        "allOf": [
            {"$ref": REF + "List"},
            {"type": "object", "required": ["items"], "properties": {"items": items}},
        ]
    }


def get(answer: dict[str, Any]) -> dict[str, Any]:
    content = {"application/json": {"schema": answer}}
    return {"get": {"operationId": "op", "responses": {"200": {"content": content}}}}


DEFINITION = {
    "paths": {
        "/orgs/{organizationId}": get({"$ref": REF + "Org"}),
        "/orgs/{organizationId}/members": get(listing("Member")),
        "/orgs/{organizationId}/redirects": get(listing("Redirect")),
        "/orgs/{organizationId}/groups": get(listing("Group")),
        "/orgs/{organizationId}/invites": get(listing("Invite")),
        "/orgs/{organizationId}/invites/{inviteId}": get({"$ref": REF + "AnyInvite"}),
    },
    "components": {"schemas": SCHEMAS},
}


def shape_of(
    route: str,
    fields: list[str],
    copes_without: tuple[str, ...] = (),
    copes_with_null: tuple[str, ...] = (),
    items_as: dict[str, str] | None = None,
) -> ReadShape:
    """What the client checks of ``GET route`` for ``fields``, from DEFINITION."""
    described = extracted(DEFINITION, "test", {"a": {route: fields}}, items_as)
    return read_shape(route, fields, copes_without, copes_with_null, described)


def test_a_field_path_names_fields_of_objects_and_of_list_items() -> None:
    assert field_tree(["id", "user.email", "user.id", "nodes[]", "a[].b.c"]) == {
        "id": {},
        "user": {"email": {}, "id": {}},
        "nodes": {"[]": {}},
        "a": {"[]": {"b": {"c": {}}}},
    }
    assert within("user", ("email", "id")) == ("user.email", "user.id")


def test_required_and_nullable_are_the_definitions() -> None:
    read = shape_of("/orgs/*/members", ["id", "role", "user.email", "lastSeenAt"])
    assert read == ReadShape(
        listed=True,
        shape={
            "id": Field((str,)),
            "role": Field((str, NULL)),  # null: a guest
            "user": Field((dict,), shape={"email": Field((str,), required=False)}),
            "lastSeenAt": Field((str,), required=False),
        },
    )


def test_an_object_route_is_no_list_and_its_all_of_parts_are_one_object() -> None:
    read = shape_of("/orgs/*", ["id", "title", "trial.count", "flags.anything"])
    assert read.listed is False
    assert read.shape["id"] == Field((str,))  # required by one part, declared by it
    assert read.shape["title"] == Field((str, NULL), required=False)
    assert read.shape["trial"] == Field((dict,), shape={"count": Field((int,), required=False)})
    assert read.shape["flags"].shape == {"anything": Field((bool,), required=False)}


def test_a_field_of_alternatives_is_required_only_when_each_holds_it() -> None:
    read = shape_of("/orgs/*/redirects", ["destination.kind", "destination.url"])
    assert read.shape["destination"].shape == {
        "kind": Field((str,)),
        "url": Field((str,), required=False),
    }


def test_list_items_take_their_types_from_the_definition() -> None:
    read = shape_of("/orgs/*/groups", ["children[].id", "object"])
    children = read.shape["children"]
    assert children.required and children.items == Field((dict,), shape={"id": Field((str,))})
    assert read.shape["object"] == Field((str,), required=False)


def test_a_list_read_as_its_single_get_takes_each_items_alternatives() -> None:
    fields = ["id", "role", "level"]
    with pytest.raises(ExtractError):
        shape_of("/orgs/*/invites", fields)
    read = shape_of("/orgs/*/invites", fields, items_as={"/orgs/*/invites": "/orgs/*/invites/*"})
    assert read.listed
    assert read.shape == {
        "id": Field((str,)),
        "role": Field((str,), required=False),
        "level": Field((str,), required=False),
    }


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (["title.first"], "GET /orgs/*/teams: title is no object in the description"),
        (["title[]"], "GET /orgs/*/teams: title is no list in the description"),
    ],
)
def test_a_field_read_as_what_it_is_not_is_named(fields: list[str], message: str) -> None:
    with pytest.raises(AnswerDescriptionError) as caught:
        read_shape("/orgs/*/teams", fields)
    assert str(caught.value) == message
    wrong = "id" + fields[0].removeprefix("title")
    with pytest.raises(ExtractError) as refused:
        shape_of("/orgs/*/members", [wrong])
    assert str(refused.value) == (
        f"the a kind reads GET /orgs/*/members: {wrong} is no field of the answer in the "
        "service's definition"
    )


def test_a_field_or_route_the_definition_lacks_is_refused_naming_kind_route_and_field() -> None:
    reads = {
        "member": {"/orgs/*/members": ["id", "user.phone"]},
        "webhook": {"/orgs/*/webhooks": ["id"]},
        "invite": {"/orgs/*/invites": ["id", "level"]},
    }
    with pytest.raises(ExtractError) as caught:
        extracted(DEFINITION, "test", reads)
    assert str(caught.value).splitlines() == [
        "the member kind reads GET /orgs/*/members: user.phone is no field of the answer in the "
        "service's definition",
        "the webhook kind reads GET /orgs/*/webhooks: the service's definition has no such "
        "operation",
        "the invite kind reads GET /orgs/*/invites: level is no field of the answer in the "
        "service's definition",
    ]


def test_only_the_fields_read_are_taken_out() -> None:
    described = extracted(DEFINITION, "0.1.0", {"a": {"/orgs/*/members": ["user.email"]}})
    assert described["definition"] == "@gitbook/api 0.1.0"
    assert described_routes(described) == ["/orgs/*/members"]
    route = described["routes"]["/orgs/*/members"]
    assert route["path"] == "/orgs/{organizationId}/members" and route["list"] is True
    assert route["answer"] == {
        "type": "object",
        "properties": {
            "user": {
                "type": "object",
                "properties": {"email": {"type": ["string"]}},
                "required": [],
            }
        },
        "required": ["user"],
    }


def test_a_field_docform_copes_without_may_be_missing_and_one_it_copes_with_null_be_null() -> None:
    fields = ["children[].id", "id"]
    read = shape_of("/orgs/*/groups", fields, copes_without=("children",), copes_with_null=("id",))
    assert not read.shape["children"].required
    assert read.shape["children"].items == Field((dict,), shape={"id": Field((str,))})
    assert read.shape["id"] == Field((str, NULL))
    nested = shape_of("/orgs/*/members", ["user.displayName"], ("user.displayName",))
    assert nested.shape["user"] == Field(
        (dict,), shape={"displayName": Field((str,), required=False)}
    )
    with pytest.raises(AnswerDescriptionError) as caught:
        shape_of("/orgs/*/members", ["id"], ("role",))
    assert str(caught.value) == "GET /orgs/*/members: role is no field read, so none to relax"


def test_the_committed_description_answers_every_route_as_the_kinds_write_it() -> None:
    assert "/orgs/*/sites/*/redirects" in described_routes()
    assert all("{" not in template for template in described_routes())
