"""The emulated API, one module per resource family, found rather than listed.

A route family is one module of this package: its endpoints (`endpoint` handlers, or a list
named ``ENDPOINTS`` when it builds them), each saying what it answers on success, and the
objects those answers are made of in a dict named ``OBJECTS`` (`docform_sandbox.answer_schema`;
a module whose description costs work to build gives it from a module ``__getattr__``).
Modules that declare neither are helpers the families share. Adding a route family is adding
its module; the app, the OpenAPI description and the tests pick it up from here. docform's
client checks answers against the service's published definition, not against these
(`docform.service.answer_description`).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType
from typing import Any

from docform_sandbox.http import Endpoint, collect


class RouteDeclarationError(TypeError):
    """Route modules that cannot be put together: a bug in the sandbox, found on import."""


def route_modules() -> list[ModuleType]:
    """Every module of this package, by name."""
    return [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
    ]


def _endpoints(modules: list[ModuleType]) -> list[Endpoint]:
    found: dict[str, Endpoint] = {}
    for module in modules:
        for ep in collect(vars(module)):
            key = f"{ep.method} {ep.path}"
            if found.setdefault(key, ep) is not ep:
                raise RouteDeclarationError(f"{key} is declared twice ({module.__name__})")
    return list(found.values())


def _objects(modules: list[ModuleType]) -> dict[str, dict[str, Any]]:
    objects: dict[str, dict[str, Any]] = {}
    for module in modules:
        for name, schema in getattr(module, "OBJECTS", {}).items():
            if objects.setdefault(name, schema) is not schema:
                raise RouteDeclarationError(
                    f"{module.__name__} describes {name}, which another route module does: "
                    "describe each object once and refer to it with ref()"
                )
    return objects


_MODULES = route_modules()
ENDPOINTS: list[Endpoint] = _endpoints(_MODULES)
"""Every route of the sandbox (a module's in the order it declares them)."""


@functools.cache
def objects() -> dict[str, dict[str, Any]]:
    """Every object a route answers, by name (OpenAPI ``components/schemas``).

    Gathered on first use: answering requests needs none of them, and a `sandbox:` plan would
    otherwise pay for describing them (the customization document's JSON Schema) at start."""
    return _objects(_MODULES)
