"""A `Structure` as a Mermaid flowchart, as GitHub and GitLab draw it in Markdown.

Every label is quoted and its special characters written as Mermaid entity codes, so a title
cannot end a label, start a new statement or inject HTML; node ids are made from addresses,
letters, digits and underscores only, with a prefix so that no id is a Mermaid keyword
(``end``) or starts with the ``o``/``x`` that would turn an arrow into another edge type.
Marked nodes get a class (colour) and a symbol in front of their label, so the change reads
without colour too.
"""

from __future__ import annotations

import re

from docform.engine.plan import Plan
from docform.manifest import ManifestSet
from docform.render.structure import ROOT, Node, Structure, structure_of

# How each kind is drawn: Mermaid's opening and closing of a node shape.
SHAPES = {
    "organization": ("{{", "}}"),
    "collection": ("[/", "\\]"),
    "space": ("(", ")"),
    "site": ("[[", "]]"),
    "section_group": ("[/", "/]"),
    "section": ("[", "]"),
    "site_space": ("([", "])"),
}
MARK_SYMBOLS = {"added": "+", "changed": "~", "moved": ">", "removed": "-"}
CLASS_DEFS = {
    "added": "fill:#dafbe1,stroke:#1a7f37,color:#0f3d1f",
    "changed": "fill:#fff8c5,stroke:#9a6700,color:#3d2b00",
    "moved": "fill:#ddf4ff,stroke:#0969da,color:#0a3069",
    "removed": "fill:#ffebe9,stroke:#cf222e,color:#82071e,stroke-dasharray:5 3",
}
LEGEND = "+ added · ~ changed · > moved · - removed"

# Characters that mean something to Mermaid or to the HTML it renders, as entity codes.
ENTITIES = {
    "#": "#35;",
    '"': "#quot;",
    "<": "#lt;",
    ">": "#gt;",
    "&": "#amp;",
    "[": "#91;",
    "]": "#93;",
    "(": "#40;",
    ")": "#41;",
    "{": "#123;",
    "}": "#125;",
    "|": "#124;",
    "`": "#96;",
    ";": "#59;",
}
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_]")
_WHITESPACE = re.compile(r"\s+")
MAX_LABEL = 60


def render_mermaid(structure: Structure, *, links: bool = True) -> str:
    """The flowchart text, left to right (without a Markdown fence). ``links`` adds a dotted
    arrow from each site space to the space it publishes."""
    ids = node_ids(structure)
    lines = ["flowchart LR"]
    lines += [f"  {ids[node.address]}{_shape(node)}" for node in structure.nodes.values()]
    for node in structure.nodes.values():
        if node.parent is not None:
            lines.append(f"  {ids[node.parent]} --> {ids[node.address]}")
    if links:
        for node in structure.nodes.values():
            if node.link is not None:
                lines.append(f"  {ids[node.address]} -.-> {ids[node.link]}")
    marked = structure.marked()
    for mark, nodes in marked.items():
        lines.append(f"  classDef {mark} {CLASS_DEFS[mark]}")
        lines.append(f"  class {','.join(ids[n.address] for n in nodes)} {mark}")
    return "\n".join(lines) + "\n"


def node_ids(structure: Structure) -> dict[str, str]:
    """A Mermaid id for each address: readable, unique, never a keyword."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for address in structure.nodes:
        base = "org" if address == ROOT else "n_" + _UNSAFE_ID.sub("_", address)
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}_{n}"
        taken.add(candidate)
        ids[address] = candidate
    return ids


def escape_label(text: str) -> str:
    """``text`` on one line, shortened, with Mermaid's special characters as entity codes."""
    text = _WHITESPACE.sub(" ", text).strip()
    if len(text) > MAX_LABEL:
        text = text[: MAX_LABEL - 1] + "…"
    return "".join(ENTITIES.get(char, char) for char in text)


def _shape(node: Node) -> str:
    opening, closing = SHAPES[node.kind]
    label = node.label
    if node.mark is not None:
        label = f"{MARK_SYMBOLS[node.mark]} {label}"
    return f'{opening}"{escape_label(label)}"{closing}'


def diagram_details(structure: Structure) -> str:
    """The diagram as a folded section of a Markdown plan, its summary counting the marks."""
    counts = [f"{len(nodes)} {mark}" for mark, nodes in structure.marked().items()]
    what = f" ({', '.join(counts)})" if counts else " (no changes)"
    return "\n".join(
        [
            f"<details><summary>Structure{what}</summary>",
            "",
            "```mermaid",
            render_mermaid(structure).rstrip("\n"),
            "```",
            "",
            LEGEND,
            "",
            "</details>",
        ]
    )


def plan_diagram(manifests: ManifestSet, plan: Plan) -> str | None:
    """The folded diagram section for the Markdown plan of ``manifests``; None when the
    manifests describe no collection, space or site (a picture of one node says nothing)."""
    structure = structure_of(manifests, plan)
    return diagram_details(structure) if len(structure.nodes) > 1 else None
