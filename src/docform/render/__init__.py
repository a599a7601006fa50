"""Renderings of a `Plan`: text for terminals, JSON for machines, Markdown for pull requests.

Renderers format; they compute nothing the plan does not already hold.
"""

from docform.render.json import render_json
from docform.render.markdown import render_markdown
from docform.render.text import render_text

__all__ = ["render_json", "render_markdown", "render_text"]
