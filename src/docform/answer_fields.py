"""The words a read answer's shape is written in: which fields an answer holds and of what type.

Each kind declares the shapes of the answers it reads (`docform.kind_framework.declaration.Reads`)
in these words; the client checks every answer against them (`docform.api.shapes`). A shape lists
only what docform uses, as docs/service.md describes it: a field is required (``need``) only where
the service promises it in every answer; anything else may be left out, meaning "not set" (``may``),
and docform must cope (a user without an email). Fields not listed are never looked at, so the
service may add fields freely.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

NULL = type(None)
TYPE_NAMES = {str: "a string", bool: "true or false", int: "a number", float: "a number",
              list: "a list", dict: "an object", NULL: "null"}  # fmt: skip


@dataclass(frozen=True)
class Field:
    """What one field may hold: values of ``types``; a list's ``items`` or an object's ``shape``."""

    types: tuple[type, ...]
    required: bool = True
    shape: Mapping[str, Field] | None = None
    items: Field | None = None

    def expected(self) -> str:
        names = dict.fromkeys(TYPE_NAMES[t] for t in self.types)
        return " or ".join(names)


Shape = Mapping[str, Field]
"""An object's fields by name."""


def need(*types: type, shape: Shape | None = None, items: Field | None = None) -> Field:
    """A field every answer holds."""
    return Field(types, True, shape, items)


def may(*types: type, shape: Shape | None = None, items: Field | None = None) -> Field:
    """A field an answer may leave out (the API omits a value that is not set)."""
    return Field(types, False, shape, items)


ID = need(str)
OPTIONAL_TEXT = may(str, NULL)
