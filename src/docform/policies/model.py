"""``policies:``: an organization's own rules, one entry per policy, checked in every plan.

A policy is a CEL rule that is true when the organization (or one change, or one object) is as
the organization wants it: ``deny`` fails the plan as a safety rail does, ``warn`` is shown.
Either ``rule`` is written, or ``builtin`` names one of `docform.policies.builtin.BUILTINS`
with its ``params``.
"""

from __future__ import annotations

import difflib
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from docform.kind_registry import kinds_by_address_head
from docform.model.entry import BoundModel, address_head
from docform.policies.builtin import BUILTINS, Builtin

EACH_CHANGE = "change"


class PolicyEntry(BoundModel):
    """One policy: a rule over the plan, the desired and the live organization."""

    kind: ClassVar[str] = "policy"

    description: str | None = Field(
        None, min_length=1, description="What the policy asks, for people (plan and drift say it)."
    )
    severity: Literal["deny", "warn"] = Field(
        "deny", description="deny: a plan that breaks the policy fails; warn: it is shown only."
    )
    builtin: str | None = Field(
        None,
        description="A policy docform ships (" + ", ".join(BUILTINS) + "); set its params.",
        json_schema_extra={"enum": list(BUILTINS)},
    )
    each: str | None = Field(
        None,
        description="Evaluate the rule once per plan change ('change', as `change`) or per "
        "object of a kind ('space', as `object`) of the organization as the plan leaves it; "
        "left out: once for the whole plan.",
    )
    rule: str | None = Field(
        None,
        min_length=1,
        description="A CEL expression that is true when the policy holds (docs/policies.md).",
    )
    message: str | None = Field(
        None,
        min_length=1,
        description="A CEL expression giving the message when the rule is false.",
    )
    params: dict[str, Any] = Field(
        default_factory=dict, description="Values the rule reads as `params`."
    )
    # Where the rule is written, for messages about it (set when the manifests are loaded).
    rule_location: ClassVar[str] = ""

    @model_validator(mode="after")
    def _rule_or_builtin(self) -> PolicyEntry:
        if (self.rule is None) == (self.builtin is None):
            raise ValueError("write either rule (a CEL expression) or builtin (a shipped policy)")
        if self.builtin is not None:
            _check_builtin(self, _shipped(self.builtin))
        elif self.description is None:
            raise ValueError("description is required: say what the policy asks, for people")
        if self.each is not None and self.each != EACH_CHANGE:
            kinds = kinds_by_address_head()
            if address_head(self.each) not in kinds:
                allowed = ", ".join((EACH_CHANGE, *kinds))
                raise ValueError(f"each: '{self.each}' is not one of {allowed}")
            self.each = kinds[address_head(self.each)]
        return self

    @property
    def source(self) -> Builtin:
        """The rule, message, scope and parameters in force (a built-in's, or the entry's)."""
        if self.builtin is None:
            rule = self.rule or "true"
            message = self.message or repr(self.description or "")
            return Builtin(self.description or "", rule, message, self.each, self.params)
        shipped = BUILTINS[self.builtin]
        params = {**shipped.params, **self.params}
        return Builtin(
            self.description or shipped.description,
            shipped.rule,
            shipped.message,
            shipped.each,
            params,
        )

    def set_rule_location(self, location: str) -> None:
        object.__setattr__(self, "rule_location", location)


def _shipped(name: str) -> Builtin:
    if name not in BUILTINS:
        close = difflib.get_close_matches(name, BUILTINS, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ValueError(
            f"builtin: '{name}' is not a shipped policy{hint}; they are: " + ", ".join(BUILTINS)
        )
    return BUILTINS[name]


def _check_builtin(entry: PolicyEntry, shipped: Builtin) -> None:
    for name in ("each", "rule", "message"):
        if getattr(entry, name) is not None:
            raise ValueError(f"{name} belongs to builtin {entry.builtin}: leave it out")
    unknown = sorted(set(entry.params) - set(shipped.params))
    if unknown:
        known = ", ".join(shipped.params) or "none"
        raise ValueError(
            f"params: builtin {entry.builtin} has no parameter {', '.join(unknown)} (its "
            f"parameters: {known})"
        )
