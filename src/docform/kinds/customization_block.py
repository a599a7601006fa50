"""The ``customization:`` block of a site entry: a part of the site's customization document.

The block is checked when the manifest loads as the document it makes once laid over
`DEFAULTS` (so a color, a URL, an enumeration or a limit is refused at its own file:line, and
a part the API requires whole, such as an announcement, is written whole). What the manifest
wrote is kept (`CustomizationBlock.written`): with ``managed: fields`` (the default) only the
fields it names are managed and the others stay as they are live; with ``managed: whole`` the
block is the whole document and every field it leaves out goes back to its default.

A document is compared field by field (`LEAVES`): the parts the API always has are walked down
to their own fields (``styling.primaryColor.light``); a part that may be absent, a list or a
choice of shapes (a favicon, a font, the header's links) is one field, whose differing parts
deepdiff names (`docform.kind_framework.document_diff`).
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PrivateAttr,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from docform.service.customization_stored import DEFAULTS, laid_over
from docform.service.site_customization import Customization, document_schema

#: Parts the API always has that are still one field: a favicon is an icon, an emoji or
#: neither, so its keys change together.
WHOLE_PARTS = frozenset({("favicon",)})
MANAGED_DESCRIPTION = (
    "fields (default): only the fields written are managed; whole: the block is the whole "
    "document, and every field it leaves out goes back to its default"
)

Leaf = tuple[str, ...]


def _leaves(model: type[BaseModel], prefix: Leaf = ()) -> list[Leaf]:
    found: list[Leaf] = []
    for name, field in model.model_fields.items():
        path = (*prefix, name)
        annotation = field.annotation
        nested = isinstance(annotation, type) and issubclass(annotation, BaseModel)
        if nested and field.is_required() and path not in WHOLE_PARTS:
            found += _leaves(annotation, path)  # type: ignore[arg-type]
        else:
            found.append(path)
    return found


LEAVES: tuple[Leaf, ...] = tuple(_leaves(Customization))


def leaf_name(leaf: Leaf) -> str:
    return ".".join(leaf)


def value_at(document: Any, leaf: Leaf) -> Any:
    """The value at ``leaf`` in ``document``; None where it is absent."""
    for key in leaf:
        if not isinstance(document, dict) or key not in document:
            return None
        document = document[key]
    return document


def has_leaf(document: Any, leaf: Leaf) -> bool:
    for key in leaf:
        if not isinstance(document, dict) or key not in document:
            return False
        document = document[key]
    return True


def fields_of(document: dict[str, Any]) -> dict[str, Any]:
    """Every field of ``document`` by its dotted name (None where absent)."""
    return {leaf_name(leaf): value_at(document, leaf) for leaf in LEAVES}


def with_fields(document: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` with ``fields`` (dotted names) set; None removes a field."""
    out = copy.deepcopy(document)
    for name, value in fields.items():
        *parents, last = name.split(".")
        at = out
        for key in parents:
            at = at.setdefault(key, {})
        if value is None:
            at.pop(last, None)
        else:
            at[last] = list(value) if isinstance(value, list) else value
    return out


class CustomizationBlock(Customization):
    """A site's ``customization:`` as written (see the module's doc)."""

    model_config = ConfigDict(extra="forbid")
    managed: Literal["fields", "whole"] = Field("fields", description=MANAGED_DESCRIPTION)
    _written: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _over_defaults(cls, value: Any, handler: Any) -> Any:
        if not isinstance(value, dict):
            return handler(value)
        written = {k: v for k, v in value.items() if k != "managed"}
        block = handler({**laid_over(DEFAULTS, written), **_managed(value)})
        block._written = written
        return block

    @property
    def written(self) -> dict[str, Any]:
        """The fields the manifest wrote, as written."""
        return self._written

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return block_schema()


def _managed(value: dict[str, Any]) -> dict[str, Any]:
    return {"managed": value["managed"]} if "managed" in value else {}


def block_schema() -> dict[str, Any]:
    """The JSON Schema of a block: the document's, self-contained, where a part the manifest
    may write in part (a mapping the API always has) requires nothing."""
    inlined = document_schema()
    _partial(inlined)
    inlined["properties"]["managed"] = {
        "enum": ["fields", "whole"],
        "default": "fields",
        "description": MANAGED_DESCRIPTION,
    }
    inlined["description"] = (
        "The site's customization, laid over what it is live; fields left out stay as they are "
        "unless `managed: whole`."
    )
    return inlined


def _partial(schema: dict[str, Any]) -> None:
    """Drop ``required`` along mappings merged key by key (not inside lists: an item is
    written whole)."""
    schema.pop("required", None)
    for prop in schema.get("properties", {}).values():
        if prop.get("type") == "object" and "properties" in prop:
            _partial(prop)
