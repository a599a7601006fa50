"""One copy of what answers repeat (`docform.engine.one_copy`): a part is shared only where it is
the same JSON, in every value and every type (``true`` is not ``1``, ``1`` is not ``1.0``), so
an answer with a part shared is the answer as it came, whatever the two answers hold; and a plan
holds each organization member once, however many teams show it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import fuzz_examples
from docform.engine.one_copy import OneCopy, same_json, shared_with
from planning import planned_in_process

# Few values, so that two drawn answers often agree in part, and values Python finds equal
# across JSON types (False, 0, 0.0; True, 1, 1.0) meet often.
LEAVES = st.sampled_from([None, False, True, 0, 1, 0.0, 1.0, 2.5, "", "a", "b"])
JSON = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["id", "role", "user"]), inner, max_size=3)
    ),
    max_leaves=12,
)


def as_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@settings(max_examples=fuzz_examples(150), deadline=None)
@example({"a": True}, {"a": 1})
@example([1, {"id": 2, "x": 1.0}], [{"id": 2, "x": 1}, 1])
@given(JSON, JSON)
def test_same_json_is_equal_json_text(a: Any, b: Any) -> None:
    assert same_json(a, b) == (as_text(a) == as_text(b))


@settings(max_examples=fuzz_examples(150), deadline=None)
@example([{"id": "u1", "n": 1}, {"id": "u2", "n": True}], [{"id": "u2", "n": 1}, {"id": "u1"}])
@example({"u": {"id": 1, "x": [0, 1]}, "r": 0.0}, {"u": {"id": 1, "x": [0.0, True]}, "r": 0})
@given(JSON, JSON)
def test_an_answer_with_parts_shared_is_the_answer_as_it_came(new: Any, old: Any) -> None:
    shared = shared_with(new, old)

    assert as_text(shared) == as_text(new)
    assert (shared is old) == same_json(new, old)


def test_what_an_answer_read_again_has_in_common_with_the_recorded_one_is_the_recorded() -> None:
    recorded = [{"id": "u1", "role": "admin"}, {"id": "u2", "role": "read"}, {"id": "u3"}]
    again = json.loads('[{"id": "u2", "role": "read"}, {"id": "u1", "role": "edit"}]')

    shared = shared_with(again, recorded)

    assert shared[0] is recorded[1]
    assert shared[1] == {"id": "u1", "role": "edit"} and shared[1]["role"] == "edit"
    assert shared[1]["id"] is recorded[0]["id"]


def test_an_object_met_again_is_the_one_met_first_only_when_it_is_the_same_json() -> None:
    text = '{"object": "member", "id": "u1", "sso": false}'
    first, equal = json.loads(text), json.loads(text)
    met = OneCopy()
    assert met.of(first) is first
    assert met.of(equal) is first
    different = {"object": "member", "id": "u1", "sso": 0}
    assert met.of(different) is different
    assert met.of({"object": "user", "id": "u1", "sso": False}) is not first


def test_a_plan_holds_each_member_once_the_member_list_and_the_teams_showing_it(
    applied_acme: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, _ = planned_in_process(applied_acme, monkeypatch)

    live = plan.live_objects.items()
    members = {id(raw) for address, raw in live if address.startswith("member.")}
    shown = [
        item["organization"]
        for address, raw in live
        if address.startswith("team.")
        for item in raw["members"]
    ]
    assert shown
    assert {id(member) for member in shown} <= members
