"""The words a read answer's shape is written in: which fields an answer holds and of what type.

Nobody writes a shape by hand: `docform.service.answer_description` derives each from the
description of the service's answers, for the fields a kind says it uses, and the client checks
every answer against it (`docform.api.shapes`). A field is ``required`` only where the service
promises it in every answer; anything else may be left out, meaning "not set", and docform must
cope (a user without an email). Fields not listed are never looked at, so the service may add
fields freely.
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
