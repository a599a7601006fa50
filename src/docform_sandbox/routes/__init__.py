"""The emulated API, one module per resource family, found rather than listed.

A route family is one module of this package: its endpoints (`endpoint` handlers, or a list
named ``ENDPOINTS`` when it builds them) and, in a dict named ``FILLS``, the optional fields of
the definition's objects its answers always hold (`docform_sandbox.answer_schema`: what the
routes answer is the service's definition's, not described here). Modules that declare
neither are helpers the families share. Adding a route family is adding its module; the app,
the OpenAPI description and the tests pick it up from here.

The modules are imported when `ENDPOINTS` or `FILLS` is first read, not with this package: a
program that imports one family's module for its helpers (seeding, the custom hostnames') loads
that module alone.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType
from typing import TYPE_CHECKING, Any

from docform_sandbox.http import Endpoint, collect

if TYPE_CHECKING:
    ENDPOINTS: list[Endpoint]
    """Every route of the sandbox (a module's in the order it declares them)."""
    FILLS: dict[str, tuple[str, ...]]
    """By the definition's name of an object, the optional fields the sandbox's answers always
    hold."""


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


def _fills(modules: list[ModuleType]) -> dict[str, tuple[str, ...]]:
    fills: dict[str, tuple[str, ...]] = {}
    for module in modules:
        if hasattr(module, "OBJECTS"):
            raise RouteDeclarationError(
                f"{module.__name__} describes its answers (OBJECTS): they are the service's "
                "definition's now; state only the optional fields it always fills, in FILLS "
                "(docs/development.md, how to add a route family)"
            )
        for name, fields in getattr(module, "FILLS", {}).items():
            fills[name] = (*fills.get(name, ()), *fields)
    return fills


@functools.cache
def _declared() -> tuple[list[Endpoint], dict[str, tuple[str, ...]]]:
    modules = route_modules()
    return _endpoints(modules), _fills(modules)


def __getattr__(name: str) -> Any:
    """`ENDPOINTS` and `FILLS`, gathered from every route module the first time one is read."""
    if name == "ENDPOINTS":
        return _declared()[0]
    if name == "FILLS":
        return _declared()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
