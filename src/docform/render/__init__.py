"""Renderings of a `Plan`: text for terminals, JSON for machines, Markdown for pull requests.

Renderers format; they compute nothing the plan does not already hold.

Each renderer is imported when it is first named (PEP 562): a command that prints none of them
(``--help``, ``validate``) or only one does not pay for the others, nor for rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docform.render.json import render_json
    from docform.render.markdown import render_markdown
    from docform.render.text import render_text

__all__ = ["render_json", "render_markdown", "render_text"]

_HOMES = {
    "render_json": "docform.render.json",
    "render_markdown": "docform.render.markdown",
    "render_text": "docform.render.text",
}


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
