"""`docform.engine.token_kinds`: once a read was refused for the token's kind, the changes whose
calls take a user's token only are set aside with what needs them, each kind saying why; the
rest of the plan stays. (End to end through the CLI: tests/kinds/test_plan_token_kinds.py.)"""

from __future__ import annotations

from docform.engine.plan import Call, Change, Plan
from docform.engine.token_kinds import set_aside_user_only


def _change(address: str, kind: str, action: str, call: Call, *needs: str) -> Change:
    return Change(address, kind, action, "", None, {}, calls=[call], depends_on=list(needs))


def _plan() -> Plan:
    plan = Plan(organization="org_acme")
    plan.changes = [
        _change("team.docs", "team", "create", Call("PUT", "/orgs/org_acme/teams")),
        _change("widget.a", "widget", "create", Call("POST", "/user-only/widgets")),
        _change("part.b", "part", "create", Call("POST", "/parts"), "widget.a#create"),
        _change("part.c", "part", "create", Call("POST", "/parts"), "team.docs#create"),
    ]
    return plan


def _user_only(method: str, path: str) -> bool:
    return path.startswith("/user-only/")


def test_nothing_is_set_aside_while_no_read_was_refused() -> None:
    plan = _plan()
    set_aside_user_only(plan, None, _user_only)
    assert [c.address for c in plan.changes] == ["team.docs", "widget.a", "part.b", "part.c"]
    assert plan.not_planned == {}


def test_a_refused_kind_sets_aside_the_user_only_changes_and_what_needs_them() -> None:
    plan = _plan()
    set_aside_user_only(plan, "sites", _user_only)
    assert [c.address for c in plan.changes] == ["team.docs", "part.c"]
    assert plan.not_planned == {
        "widget": "widget.a (create): not planned: the service takes POST /user-only/widgets "
        "from a user's API token only, and this token is of another kind (an integration's, "
        "say: the service refused it the sites for the same reason); plan and apply with a "
        "user's token to make them",
        "part": "part.b (create): not planned: each needs a change that only a user's token may "
        "make; plan and apply with a user's token to make them",
    }
