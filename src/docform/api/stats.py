"""Call accounting: how many requests a client sent, to which routes, and how many it retried."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


def route_of(path: str, list_names: frozenset[str]) -> str:
    """``path`` with its ids replaced by ``{id}``: ``/orgs/{id}/teams/{id}/members``.

    A heuristic, for counting calls by route: a segment following one of ``list_names`` (path
    segments that name a list, as the kinds declare them) is an id.
    """
    segments = path.split("?", 1)[0].strip("/").split("/")
    shaped = []
    for i, segment in enumerate(segments):
        after_list = i > 0 and segments[i - 1] in list_names
        shaped.append("{id}" if after_list and segment not in list_names else segment)
    return "/" + "/".join(shaped)


@dataclass
class CallStats:
    """Requests sent (retries included), by method and by route, and the retries among them;
    routes are told apart by ``list_names`` (`route_of`)."""

    list_names: frozenset[str] = frozenset()
    requests: int = 0
    retries: int = 0
    rate_limited: int = 0
    by_method: Counter[str] = field(default_factory=Counter)
    by_route: Counter[str] = field(default_factory=Counter)
    retries_by_reason: Counter[str] = field(default_factory=Counter)

    def record_sent(self, method: str, path: str) -> None:
        self.requests += 1
        self.by_method[method] += 1
        self.by_route[f"{method} {route_of(path, self.list_names)}"] += 1

    def record_retry(self, reason: str) -> None:
        self.retries += 1
        self.retries_by_reason[reason] += 1

    def record_rate_limited(self) -> None:
        self.rate_limited += 1

    def summary(self) -> str:
        """One line for ``--verbose``: ``12 API requests (GET 10, PATCH 2), 1 retry (503 1)``."""
        methods = ", ".join(f"{m} {n}" for m, n in sorted(self.by_method.items()))
        line = f"{self.requests} API request{'s' if self.requests != 1 else ''}"
        if methods:
            line += f" ({methods})"
        if self.retries:
            reasons = ", ".join(f"{r} {n}" for r, n in sorted(self.retries_by_reason.items()))
            line += f", {self.retries} retr{'ies' if self.retries != 1 else 'y'} ({reasons})"
        return line

    def as_dict(self) -> dict[str, object]:
        return {
            "requests": self.requests,
            "retries": self.retries,
            "rateLimited": self.rate_limited,
            "byMethod": dict(self.by_method),
            "byRoute": dict(self.by_route),
            "retriesByReason": dict(self.retries_by_reason),
        }
