"""Checking the answers docform reads against their shapes, so that a malformed answer stops a
plan, not skews it.

Kinds read live objects as plain dicts (``raw["title"]``). An answer without a field docform
relies on, or with a value of the wrong type, would otherwise end in a traceback or, worse, in a
plan built on a guess (a missing ``parent`` read as "no parent" moves a collection). So the
client checks each answer of a read route against its shape before anyone uses it, and names
the call and the first bad value when it does not fit.

The shapes come from the description of the service's answers, holding the fields the kinds
read (`docform.service.answer_description`); the client is handed them as `RouteShapes` when it is
opened. Routes are matched by their path template: ``*`` stands for one path segment (an id).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from docform.service.answer_fields import TYPE_NAMES, Field, Shape


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(template).replace(r"\*", "[^/]+") + "$")


class RouteShapes:
    """The shapes of the answers of every read route, by GET path template.

    ``objects``: routes that answer one object; when the template ends in an id (``/spaces/*``)
    and the shape holds an ``id``, the answer's must be the one asked for. ``items``: routes
    that answer a list, and the shape of each of its items. A client with no shapes checks only
    that a list is a list.
    """

    def __init__(
        self, objects: Mapping[str, Shape] | None = None, items: Mapping[str, Shape] | None = None
    ) -> None:
        self.objects = dict(objects or {})
        self.items = dict(items or {})
        self._object_routes = [
            (_pattern(t), shape, t.endswith("/*") and "id" in shape)
            for t, shape in self.objects.items()
        ]
        self._list_routes = [(_pattern(t), shape) for t, shape in self.items.items()]

    def templates(self) -> list[str]:
        """Every route template a shape is known for."""
        return [*self.objects, *self.items]

    def object_shape(self, path: str) -> Shape | None:
        """The shape of the object ``GET path`` answers; None when docform reads no such route."""
        return next(
            (shape for pattern, shape, _ in self._object_routes if pattern.match(path)), None
        )

    def object_misfit(self, path: str, answer: Any) -> str | None:
        """What is wrong with the answer of ``GET path`` for an object route, or None: its
        shape, then its ``id``, which must be the one asked for (a proxy's cached or rewritten
        answer) when the path ends in one."""
        route = next((r for r in self._object_routes if r[0].match(path)), None)
        if route is None:
            return None
        _, shape, asked = route
        problem = misfit(answer, shape)
        if problem is None and asked and answer["id"] != path.rsplit("/", 1)[-1]:
            problem = f"id is {describe(answer['id'])}, not the id asked for"
        return problem

    def item_shape(self, path: str) -> Shape | None:
        """The shape of each item of the list ``GET path`` answers; None when not known."""
        return next((shape for pattern, shape in self._list_routes if pattern.match(path)), None)


def misfit(value: Any, shape: Mapping[str, Field], where: str = "") -> str | None:
    """What is wrong with ``value`` for ``shape`` (``items[3].user.email is missing``), or None.

    ``where`` names ``value`` in the message; it is empty for the answer itself.
    """
    if not isinstance(value, dict):
        return f"{where or 'the answer'} is {describe(value)}, not an object"
    for name, field in shape.items():
        if name not in value:
            if field.required:
                return f"{_joined(where, name)} is missing ({field.expected()} expected)"
            continue
        item = value[name]
        # Most values are plain ones of an exact type listed: they fit, with no path to name.
        if type(item) in field.types and field.shape is None and field.items is None:
            continue
        problem = _field_misfit(item, field, _joined(where, name))
        if problem:
            return problem
    return None


def _joined(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _field_misfit(value: Any, field: Field, path: str) -> str | None:
    # bool is an int in Python; the API never sends a boolean where a number is meant.
    fits = isinstance(value, field.types) and not (
        isinstance(value, bool) and bool not in field.types
    )
    if not fits:
        return f"{path} is {describe(value)}, not {field.expected()}"
    if isinstance(value, dict) and field.shape is not None:
        return misfit(value, field.shape, path)
    if isinstance(value, list) and field.items is not None:
        for index, item in enumerate(value):
            problem = _field_misfit(item, field.items, f"{path}[{index}]")
            if problem:
                return problem
    return None


def describe(value: Any) -> str:
    """``a number (5)``: the type of a value, and a short glimpse of it."""
    kind = TYPE_NAMES.get(type(value), type(value).__name__)
    if value is None:
        return kind
    glimpse = repr(value) if not isinstance(value, dict | list) else ""
    if len(glimpse) > 40:
        glimpse = glimpse[:37] + "..."
    return f"{kind} ({glimpse})" if glimpse else kind
