"""The service's rich text (``Document``) as the text docform compares, and back.

Agent instructions and translation instructions are Documents: ``{object: 'document', data:
{schemaVersion}, nodes: [Block]}``. Manifests write them as Markdown (or as a Document), and
plans compare them as text, so that a change shows the words that change, not the node tree.

Markdown becomes one paragraph block per run of lines between blank lines, holding that text as
written; reading a Document back joins its blocks' text with blank lines. So Markdown written
by docform reads back exactly, and a Document made in the service reads as its text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, model_validator

from docform.model.entry import ManifestModel

#: The fields of a Document that docform reads (`docform.service.answer_description`).
DOCUMENT_FIELDS = ("object", "nodes[]")
MAX_TEXT = 100_000


class DocumentText(ManifestModel):
    """Rich text written as ``markdown`` or as the service's ``document`` (exactly one)."""

    markdown: str | None = Field(None, max_length=MAX_TEXT, description="Markdown text.")
    document: dict[str, Any] | None = Field(
        None, description="A Document of the service: {object: document, nodes: [...]}."
    )

    @model_validator(mode="after")
    def _one_form(self) -> DocumentText:
        if (self.markdown is None) == (self.document is None):
            raise ValueError("write either markdown or document, not both and not neither")
        if self.document is not None and not isinstance(self.document.get("nodes"), list):
            raise ValueError("document: needs a list of nodes (a Document of the service)")
        return self

    def text(self) -> str:
        """What planning compares: the text of the Document sent (Markdown as it reads back,
        without the blank lines and final newline a YAML block adds)."""
        return document_text(self.to_document())

    def to_document(self) -> dict[str, Any]:
        """What the API is sent: a Document written without ``data``, which the service
        requires, gets an empty one."""
        if self.document is not None:
            return {"data": {}, **self.document}
        return markdown_document(self.markdown or "")


def markdown_document(markdown: str) -> dict[str, Any]:
    """``markdown`` as a Document: a paragraph block per run of lines between blank lines."""
    blocks = [part.strip("\n") for part in markdown.strip().split("\n\n")]
    return {
        "object": "document",
        "data": {"schemaVersion": 1},
        "nodes": [_paragraph(index, text) for index, text in enumerate(b for b in blocks if b)],
    }


def _paragraph(index: int, text: str) -> dict[str, Any]:
    leaf = {"object": "leaf", "text": text, "marks": []}
    return {
        "object": "block",
        "type": "paragraph",
        "key": f"p{index}",
        "nodes": [{"object": "text", "leaves": [leaf]}],
        "isVoid": False,
        "data": {"align": "start"},
    }


def document_text(document: Any) -> str:
    """The text of a Document: its blocks' text joined by blank lines ("" for no Document)."""
    if not isinstance(document, Mapping):
        return ""
    blocks = [_node_text(node) for node in document.get("nodes") or []]
    return "\n\n".join(text for text in blocks if text)


def _node_text(node: Any) -> str:
    if not isinstance(node, Mapping):
        return ""
    if node.get("object") == "text":
        return "".join(str(leaf.get("text", "")) for leaf in node.get("leaves") or [])
    if isinstance(node.get("text"), str):
        return str(node["text"])
    return "".join(_node_text(child) for child in node.get("nodes") or [])


def is_plain_markdown(document: Any) -> bool:
    """Whether ``document`` is what `markdown_document` makes of its own text (so export can
    write it as Markdown and lose nothing)."""
    if not isinstance(document, Mapping):
        return False
    expected = markdown_document(document_text(document))["nodes"]
    return bool(_without_keys(document.get("nodes")) == _without_keys(expected))


def _without_keys(nodes: Any) -> Any:
    if isinstance(nodes, list):
        return [_without_keys(node) for node in nodes]
    if isinstance(nodes, Mapping):
        return {k: _without_keys(v) for k, v in nodes.items() if k != "key"}
    return nodes


def document_entry(document: Any) -> dict[str, Any]:
    """A live Document as the manifests write it: Markdown when nothing is lost."""
    if document is None or is_plain_markdown(document):
        return {"markdown": document_text(document)}
    return {"document": dict(document)}
