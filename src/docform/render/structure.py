"""The structure of an organization as a tree, for pictures: collections with their spaces, and
each site with its section groups, sections and site spaces.

The tree is what the manifests describe. With a plan, each node carries a mark (added, changed,
moved, removed), and objects the plan deletes, which no manifest describes any more, are put
back where they were, found through the references in the plan's ``before`` values. A renderer
(``docform.render.mermaid``) turns the tree into text; nothing here knows a drawing syntax.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from docform.engine.plan import Change, Plan
from docform.kinds.collection import CollectionEntry
from docform.kinds.site import SiteEntry
from docform.kinds.site_space import SiteSpaceEntry
from docform.kinds.space import SpaceEntry
from docform.manifest import ManifestSet

ROOT = "organization"

# Plan kind names of the objects drawn; every other kind (members, teams...) is left out.
STRUCTURE_KINDS = ("collection", "space", "site", "section_group", "section", "site_space")

# Which reference of a deleted object's `before` holds its place in the tree, nearest first:
# a site space sits in its section (else its site), a space in its collection, and so on.
PARENT_REFERENCES = ("section", "parent", "collection", "site")
LINK_REFERENCE = "space"

# A node with several changes shows the strongest one.
MARK_OF_ACTION = {
    "create": "added",
    "delete": "removed",
    "move": "moved",
    "update": "changed",
    "membership": "changed",
    "reorder": "changed",
    "rotate": "changed",
    "release": "changed",
    "restore": "changed",
}
MARK_STRENGTH = ("changed", "moved", "added", "removed")


@dataclass
class Node:
    """One object of the picture. ``parent`` and ``link`` are addresses of other nodes."""

    address: str
    kind: str
    label: str
    parent: str | None = None
    link: str | None = None
    mark: str | None = None


@dataclass
class Structure:
    """Nodes in drawing order (parents before children); the root is the organization."""

    nodes: dict[str, Node]

    def marked(self) -> dict[str, list[Node]]:
        """Nodes by mark, in the order of ``MARK_STRENGTH``, empty marks left out."""
        by_mark: dict[str, list[Node]] = {}
        for mark in MARK_STRENGTH:
            found = [node for node in self.nodes.values() if node.mark == mark]
            if found:
                by_mark[mark] = found
        return by_mark


def structure_of(manifests: ManifestSet, plan: Plan | None = None) -> Structure:
    """The tree the manifests describe; with ``plan``, marked with what the plan changes."""
    nodes = {node.address: node for node in _manifest_nodes(manifests)}
    if plan is not None:
        _mark(nodes, plan.changes)
    return Structure(nodes)


def _manifest_nodes(manifests: ManifestSet) -> Iterator[Node]:
    org = manifests.organization
    yield Node(ROOT, "organization", org.title or org.id)
    for name, collection in manifests.section_as("collections", CollectionEntry).items():
        parent = f"collection.{collection.parent}" if collection.parent else ROOT
        yield Node(f"collection.{name}", "collection", collection.title, parent)
    for name, space in manifests.section_as("spaces", SpaceEntry).items():
        parent = f"collection.{space.collection}" if space.collection else ROOT
        icon = space.emoji or ""
        yield Node(f"space.{name}", "space", f"{icon} {space.title}".strip(), parent)
    for site in manifests.section_as("sites", SiteEntry).values():
        yield from _site_nodes(site)


def _site_nodes(site: SiteEntry) -> Iterator[Node]:
    yield Node(site.address, "site", site.title or site.id or site.name, ROOT)
    group_of: dict[str, str] = {}
    for group in site.sectionGroups.values():
        yield Node(group.address, "section_group", group.title, site.address)
        for section_name in group.sections or ():
            group_of[section_name] = group.address
    for name, section in site.sections.items():
        parent = group_of.get(name, site.address)
        yield Node(section.address, "section", section.title or f"/{section.path}", parent)
        for site_space in section.spaces.values():
            yield _site_space_node(site_space, section.address)
    for site_space in site.spaces.values():
        yield _site_space_node(site_space, site.address)


def _site_space_node(site_space: SiteSpaceEntry, parent: str) -> Node:
    return Node(
        site_space.address,
        "site_space",
        f"/{site_space.path}",
        parent,
        link=f"space.{site_space.space}",
    )


def _mark(nodes: dict[str, Node], changes: list[Change]) -> None:
    for change in changes:
        if change.kind not in STRUCTURE_KINDS:
            continue
        mark = MARK_OF_ACTION[change.action]
        node = nodes.get(change.address)
        if node is None and change.action == "delete":
            node = nodes[change.address] = _removed_node(change)
        if node is not None and _stronger(mark, node.mark):
            node.mark = mark
    for node in nodes.values():
        # A deleted object whose container is not drawn hangs from the organization.
        if node.parent is not None and node.parent not in nodes:
            node.parent = ROOT
        if node.link is not None and node.link not in nodes:
            node.link = None


def _removed_node(change: Change) -> Node:
    before = change.before or {}
    parent = next(
        (found for name in PARENT_REFERENCES if (found := _reference(before.get(name)))), ROOT
    )
    label = before.get("title") or (f"/{before['path']}" if before.get("path") else "")
    if change.kind == "space" and before.get("emoji"):
        label = f"{before['emoji']} {label}"
    return Node(
        change.address,
        change.kind,
        label or change.live_id or change.address,
        parent,
        link=_reference(before.get(LINK_REFERENCE)),
    )


def _reference(value: Any) -> str | None:
    """The address a reference points at, whether planned now (``Ref``) or read from a saved
    plan (``{"$ref": ADDRESS}``)."""
    if hasattr(value, "plan_json"):
        value = value.plan_json()
    if isinstance(value, Mapping):
        address = value.get("$ref")
        return address if isinstance(address, str) else None
    return None


def _stronger(mark: str, current: str | None) -> bool:
    return current is None or MARK_STRENGTH.index(mark) > MARK_STRENGTH.index(current)
