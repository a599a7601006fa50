"""Fields the API never changes on a live object (`Immutable` on a kind's fields): for every
kind that declares one, the planner refuses a plan changing it, before asking the kind for
calls, naming the entry, the field, the live value and what to do. End to end:
tests/kinds/test_plan_sites.py (a site's type) and tests/kinds/test_plan_link_invites.py (an
invite's target)."""

from __future__ import annotations

from typing import Any

import pytest

from docform.engine.field_rules import rules_of
from docform.engine.kind import AddressIndex, Desired, Kind, Observed
from docform.engine.objects import Matching, Pair
from docform.engine.planner import _kind_changes
from docform.errors import DocformError
from docform.kind_registry import KIND_CLASSES

IMMUTABLE = [(cls, name) for cls in KIND_CLASSES for name in rules_of(cls.fields).immutable]


def test_the_kinds_that_cannot_change_a_field_declare_it() -> None:
    declared = {(cls.name, name) for cls, name in IMMUTABLE}
    assert {("site", "type"), ("openapi", "slug"), ("link_invite", "target")} <= declared


@pytest.mark.parametrize(
    ("kind_class", "field_name"), IMMUTABLE, ids=[f"{c.name}.{n}" for c, n in IMMUTABLE]
)
def test_a_change_of_an_immutable_field_is_refused_before_any_call(
    kind_class: type[Kind], field_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = kind_class("org_acme")

    def no_calls(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{kind.name}: change_calls asked for an immutable field")

    monkeypatch.setattr(kind, "change_calls", no_calls)
    address = f"{kind.name}.example"
    desired = Desired(address, ("example",), {field_name: "wanted"}, "main.yaml:3:5")
    observed = Observed("live_1", ("example",), {field_name: "live value"}, "example", {})
    matching = Matching(pairs=[Pair(desired, observed, "same key")])
    with pytest.raises(DocformError) as refused:
        _kind_changes(kind, matching, AddressIndex())
    rule = kind.rules.immutable[field_name]
    assert str(refused.value).startswith(f"main.yaml:3:5: {address}: {field_name}: {rule.why}")
    assert f"; {rule.then}" in str(refused.value)
