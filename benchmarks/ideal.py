"""The ideal a run is measured against: the fewest requests the API's shape allows for a state,
and the time of the best schedule of those requests at a given parallelism.

Every request costs one latency (the served sandbox's ``--latency-ms``); requests that depend on
each other run one after the other (the pages of one list follow its cursors; a team's member
list needs the team's id from the team list; the second call of a create needs the first's
answer). The time of the minimal schedule is its number of rounds times the latency: a lower
bound for any client that sends the same requests at the same parallelism.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from org_changes import Expected
from org_shape import Shape

PAGE_SIZE = 1000
"""The API's largest ``limit`` of a list page."""

Graph = dict[str, list[str]]
"""Request -> the requests it needs first."""


@dataclass(frozen=True)
class Ideal:
    requests: int
    rounds: int
    parallelism: int

    def seconds(self, latency_ms: float) -> float:
        return self.rounds * latency_ms / 1000


def pages(items: int) -> int:
    """Requests to read a list of ``items``: a page holds 1000, ``next`` only when more remain."""
    return max(1, math.ceil(items / PAGE_SIZE))


def read_graph(shape: Shape, team_sizes: Sequence[int]) -> Graph:
    """Every request that reading the organization needs, and what each waits for."""
    graph: Graph = {"org": []}
    for name, count in (
        ("members", shape.members),
        ("collections", shape.collections),
        ("spaces", shape.spaces),
        ("openapi", shape.openapi),
        ("saml", shape.saml),
        ("sites", 1),
        ("translations", 0),  # an empty list is still one request
        ("fonts", 0),  # one answer holds every font: the list takes no page size
        ("translations-glossary", 2),
        ("installations", shape.integrations),
    ):
        _chain(graph, name, pages(count))
    _chain(graph, "teams", pages(len(team_sizes)))
    for i, size in enumerate(team_sizes):
        # A team's member list can start once the team list page holding it came back.
        _chain(graph, f"team{i}.members", pages(size), after=f"teams.{i // PAGE_SIZE}")
    for i in range(shape.access):
        # An object's grants are listed once the lists holding the objects are read: its
        # teams' and its users' grants, one page each.
        for principal in ("teams", "users"):
            graph[f"access{i}.{principal}.0"] = [
                f"spaces.{pages(shape.spaces) - 1}",
                f"collections.{pages(shape.collections) - 1}",
            ]
    for i in range(shape.integrations):
        # Each installation's spaces and sites, once the installations are listed.
        for target in ("spaces", "sites"):
            graph[f"installation{i}.{target}.0"] = ["installations.0"]
        # What each integration declares of its configuration (which settings are secret): its
        # entry writes one; read beside the list, as it needs only the entry's integration name.
        graph[f"integration{i}.declared"] = []
    for i in range(shape.synced_spaces):
        # A synced space names its installation: one read each, once the spaces are listed.
        graph[f"git-sync{i}"] = [f"spaces.{pages(shape.spaces) - 1}"]
    for name, count in (
        ("section-groups", shape.section_groups),
        ("sections", shape.sections),
        ("site-spaces", shape.site_spaces),
    ):
        _chain(graph, f"site.{name}", pages(count), after="sites.0")
    # Only sites whose manifest entry writes redirects read them: the benchmark site does.
    _chain(graph, "site.redirects", pages(shape.redirects), after="sites.0")
    # Its customization and its structure (where external links are read): one GET each.
    _chain(graph, "site.customization", 1, after="sites.0")
    _chain(graph, "site.structure", 1, after="sites.0")
    # Its custom hostname, connected in the service's app, once the site and the organization
    # (which would show one of its own) are read, and the members the organization refers to.
    graph["site.custom-hostname"] = ["sites.0", "org", f"members.{pages(shape.members) - 1}"]
    # Its context connections: one page.
    _chain(graph, "site.context-connections", 1, after="sites.0")
    # Its MCP servers: one page.
    _chain(graph, "site.mcp-servers", 1, after="sites.0")
    # Its agent channels: one page.
    _chain(graph, "site.channels", 1, after="sites.0")
    # Its agent settings: one GET.
    _chain(graph, "site.agent-settings", 1, after="sites.0")
    return graph


def apply_graph(changes: Sequence[Expected]) -> Graph:
    """The calls of the changes: each change's calls in a row, the changes independent."""
    graph: Graph = {}
    for change in changes:
        _chain(graph, f"{change.address}#{change.action}", change.calls)
    return graph


def ideal(graph: Mapping[str, Sequence[str]], parallelism: int) -> Ideal:
    """The requests of ``graph`` and the rounds of its best schedule at ``parallelism``.

    Highest level first is optimal for unit tasks whose dependencies form an in-forest (Hu,
    1961); reading is an out-forest (lists, then per-item lists), whose reversal is one, and
    a schedule of the reversed graph run backwards is a schedule of the graph. The shorter
    of the forward and backward schedules is taken.
    """
    forward = _rounds(graph, parallelism)
    backward = _rounds(_reversed(graph), parallelism)
    return Ideal(len(graph), min(forward, backward), parallelism)


def _chain(graph: Graph, name: str, length: int, after: str | None = None) -> None:
    previous = after
    for i in range(length):
        node = f"{name}.{i}"
        graph[node] = [previous] if previous else []
        previous = node


def _reversed(graph: Mapping[str, Sequence[str]]) -> Graph:
    out: Graph = {node: [] for node in graph}
    for node, needs in graph.items():
        for need in needs:
            out[need].append(node)
    return out


def _levels(graph: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Each request's longest chain of requests that wait on it, itself included."""
    waiting = _reversed(graph)
    level: dict[str, int] = {}
    for node in reversed(_topological(graph)):
        level[node] = 1 + max((level[w] for w in waiting[node]), default=0)
    return level


def _topological(graph: Mapping[str, Sequence[str]]) -> list[str]:
    remaining = {node: len(needs) for node, needs in graph.items()}
    waiting = _reversed(graph)
    ready = [node for node, count in remaining.items() if count == 0]
    order: list[str] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for w in waiting[node]:
            remaining[w] -= 1
            if remaining[w] == 0:
                ready.append(w)
    if len(order) != len(graph):
        raise ValueError("the request graph has a cycle")
    return order


def _rounds(graph: Mapping[str, Sequence[str]], parallelism: int) -> int:
    """Rounds of the highest-level-first schedule: each round runs up to ``parallelism``."""
    level = _levels(graph)
    waiting = _reversed(graph)
    remaining = {node: len(needs) for node, needs in graph.items()}
    ready = [(-level[n], n) for n, count in remaining.items() if count == 0]
    heapq.heapify(ready)
    rounds = 0
    while ready:
        batch = [heapq.heappop(ready)[1] for _ in range(min(parallelism, len(ready)))]
        rounds += 1
        for node in batch:
            for w in waiting[node]:
                remaining[w] -= 1
                if remaining[w] == 0:
                    heapq.heappush(ready, (-level[w], w))
    return rounds
