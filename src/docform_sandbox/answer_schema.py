"""The words a sandbox route's answer is described in: JSON Schema (the OpenAPI 3.1 dialect).

A route module describes the objects its routes answer in a dict named ``OBJECTS`` and gives
each endpoint its success answer (``answer=ref("Team")``, ``page("Team")``, or None for no
body); `docform_sandbox.routes` gathers them and `openapi_description` puts the objects under
``components/schemas``. They are the objects of the documentation service as docs/service.md
describes them: a field listed as required is in every answer, an optional one is left out
when it has no value (never sent as null; only roles keep null, where it means "guest").
Objects allow no field beyond the ones listed, so the sandbox cannot drift into sending
something its description does not say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docform_sandbox.http import ROLES

Schema = dict[str, Any]

STRING: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INTEGER: Schema = {"type": "integer", "minimum": 0}
NUMBER: Schema = {"type": "number", "minimum": 0}
TIME: Schema = {"type": "string", "format": "date-time"}
URL: Schema = {"type": "string", "format": "uri"}
ID: Schema = {"type": "string", "pattern": "^[a-zA-Z0-9_-]+$"}
ROLE_OR_GUEST: Schema = {"enum": [*ROLES, None]}
LEVEL: Schema = {"enum": [*ROLES, "inherit", None]}
CURSOR: Schema = {
    "type": "object",
    "required": ["page"],
    "properties": {"page": STRING},
    "additionalProperties": False,
}


def obj(required: Mapping[str, Schema], optional: Mapping[str, Schema] | None = None) -> Schema:
    """An object with these fields and no other."""
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
        "additionalProperties": False,
    }


def const(value: str) -> Schema:
    return {"const": value}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def flags(*names: str) -> Schema:
    """A ``permissions`` object: every name a boolean, and more booleans allowed."""
    return {
        "type": "object",
        "required": list(names),
        "properties": dict.fromkeys(names, BOOL),
        "additionalProperties": BOOL,
    }


def page(name: str) -> Schema:
    """A list answer whose items are ``name`` objects."""
    return obj({"count": INTEGER, "items": array(ref(name))}, {"next": CURSOR, "previous": CURSOR})


def urls(*required: str, optional: tuple[str, ...] = ()) -> Schema:
    return obj(dict.fromkeys(required, URL), dict.fromkeys(optional, URL))


MERGE_RULES = obj(
    {"type": {"enum": ["inherit", "rules", "none"]}},
    {"rules": array({"type": "object", "required": ["rule"]})},
)
