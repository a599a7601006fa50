"""What checking policies found: one result per policy that does not hold, per object."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ORGANIZATION = "organization"
"""The address of a result about the whole plan (a rule evaluated once)."""


@dataclass(frozen=True)
class PolicyResult:
    """One policy that does not hold, for the organization or one change or object."""

    policy: str
    severity: str
    address: str
    message: str
    location: str
    """Where the rule is written (``policies.yaml:7:3``)."""
    error: bool = False
    """The rule could not be evaluated (which fails the plan whatever the severity)."""
    entry_location: str | None = None
    """Where the entry of ``address`` is written (``people.yaml:5:3``), when one is."""

    @property
    def blocks(self) -> bool:
        return self.error or self.severity == "deny"

    def __str__(self) -> str:
        where = "" if self.address == ORGANIZATION else f"{self.address}: "
        return f"[policy.{self.policy}] {where}{self.message} ({self.places()})"

    def places(self) -> str:
        """``people.yaml:5:3; rule at policies.yaml:7:3``: the entry, then the rule."""
        rule = f"rule at {self.location}"
        return f"{self.entry_location}; {rule}" if self.entry_location else rule

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "severity": "error" if self.error else self.severity,
            "address": self.address,
            "message": self.message,
            "location": self.location,
            "entry_location": self.entry_location,
        }


@dataclass
class PolicyReport:
    """Every policy's outcome in one plan or drift (plan JSON key ``policies``)."""

    evaluated: list[str] = field(default_factory=list)
    results: list[PolicyResult] = field(default_factory=list)

    @property
    def blocking(self) -> list[PolicyResult]:
        return [r for r in self.results if r.blocks]

    @property
    def warnings(self) -> list[PolicyResult]:
        return [r for r in self.results if not r.blocks]

    def to_json(self) -> dict[str, Any]:
        return {"evaluated": list(self.evaluated), "results": [r.to_json() for r in self.results]}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> PolicyReport:
        def result(item: Mapping[str, Any]) -> PolicyResult:
            severity = str(item["severity"])
            return PolicyResult(
                str(item["policy"]),
                "deny" if severity == "error" else severity,
                str(item["address"]),
                str(item["message"]),
                str(item.get("location", "")),
                error=severity == "error",
                entry_location=item.get("entry_location"),
            )

        return cls(list(doc.get("evaluated", [])), [result(r) for r in doc.get("results", [])])
