"""What policy rules read, built lazily: the plan, the organization as the plan leaves it and
as it is, and counts of its objects' field values (``tally``). Documented in docs/policies.md;
the shapes are declared in `docform.policies.schema`."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

from docform.engine.plan import Plan
from docform.policies.changes import plan_input
from docform.policies.expressions import InputType, Usage
from docform.policies.model import EACH_CHANGE
from docform.policies.objects import Record, desired_records, is_present, live_records
from docform.policies.schema import ALL, CHANGE, Wanted, object_types, tally_type, wanted

Values = dict[str, Any]


class Inputs:
    """The values rules read, each built the first time a rule reads it, and only as much of
    it as the rules read (`Wanted`): a plan of 20,000 objects spends no time on kinds or
    fields no policy looks at. Call `expect` for every policy first, then `values`."""

    def __init__(
        self,
        plan: Callable[[Wanted], dict[str, Any]],
        sides: Mapping[tuple[str, str], Callable[[], list[Record]]],
        now: datetime,
    ) -> None:
        self._plan = plan
        self._sides = sides
        self._wanted: dict[tuple[str, str], Wanted] = {}
        self._records: dict[tuple[str, str], list[Record]] = {}
        self._built: dict[tuple[str, str], Any] = {}
        self._tallied: set[tuple[str, str, str]] = set()
        self.now = now

    def expect(self, reads: set[tuple[str, str | None]], used: Usage, each: str | None) -> None:
        """Note what one policy will read, so that each input is built once, with what every
        policy reads of it."""
        for variable, kind, shape in self._needs(reads, each):
            if variable == "tally":
                self._tallied.update(tallied(used))
            else:
                self._want(variable, kind, wanted(shape, used) if shape is not None else ALL)

    def _want(self, variable: str, kind: str, what: Wanted) -> None:
        known = self._wanted.get((variable, kind))
        self._wanted[variable, kind] = what if known is None else known.union(what)

    def values(self, reads: set[tuple[str, str | None]], each: str | None) -> Values:
        values: dict[str, Any] = {"now": self.now}
        for variable, kind, _ in self._needs(reads, each):
            if variable == "plan":
                values["plan"] = self._plan_input()
            elif variable == "tally":
                values["tally"] = self._tally()
            elif (variable, kind) in self._wanted:
                values.setdefault(variable, {})[kind] = self._objects(variable, kind)
        return values

    def records(self, variable: str, kind: str) -> list[Record]:
        """The objects of one kind on one side, not yet built (`Record.build`)."""
        if (variable, kind) not in self._records:
            source = self._sides.get((variable, kind))
            self._records[variable, kind] = source() if source is not None else []
        return self._records[variable, kind]

    def _needs(
        self, reads: set[tuple[str, str | None]], each: str | None
    ) -> Iterator[tuple[str, str, InputType | None]]:
        if each == EACH_CHANGE or any(v == "plan" for v, _ in reads):
            yield "plan", "", CHANGE
        if any(v == "tally" for v, _ in reads):
            yield "tally", "", None
        for variable in ("desired", "live"):
            kinds = {f for v, f in reads if v == variable}
            named = {k for k in kinds if k is not None}
            for kind in sorted(set(object_types()) if None in kinds else named):
                yield variable, kind, object_types().get(kind)

    def _plan_input(self) -> dict[str, Any]:
        if ("plan", "") not in self._built:
            self._built["plan", ""] = self._plan(self._wanted.get(("plan", ""), ALL))
        plan: dict[str, Any] = self._built["plan", ""]
        return plan

    def _objects(self, variable: str, kind: str) -> list[dict[str, Any]]:
        if (variable, kind) not in self._built:
            what = self._wanted.get((variable, kind), ALL)
            self._built[variable, kind] = [r.build(what) for r in self.records(variable, kind)]
        objects: list[dict[str, Any]] = self._built[variable, kind]
        return objects

    def _tally(self) -> dict[str, Any]:
        if ("tally", "") in self._built:
            return dict(self._built["tally", ""])
        tally: dict[str, Any] = {"desired": {}, "live": {}}
        for side, kind, name in sorted(self._tallied):
            counts = Counter(_as_text(r.value(name)) for r in self.records(side, kind))
            tally[side].setdefault(kind, {})[name] = dict(counts)
        self._built["tally", ""] = tally
        return tally


def tallied(used: Usage) -> set[tuple[str, str, str]]:
    """(side, kind, field) of every ``tally.SIDE.KIND.FIELD`` a rule reads."""
    root = tally_type()
    assert root.fields is not None
    found = set()
    for side, side_type in root.fields.items():
        if not _read(root, side, used):
            continue
        assert side_type.fields is not None
        for kind, kind_type in side_type.fields.items():
            if not _read(side_type, kind, used):
                continue
            assert kind_type.fields is not None
            found |= {(side, kind, f) for f in kind_type.fields if _read(kind_type, f, used)}
    return found


def _read(shape: InputType, name: str, used: Usage) -> bool:
    return id(shape) in used.whole or name in used.selected.get(id(shape), frozenset())


def _as_text(value: Any) -> str:
    """A value as tally keys it: text as it is, the rest as JSON writes it (true, null, 3); a
    field an object does not have counts as null."""
    if isinstance(value, str):
        return value
    return json.dumps(value if is_present(value) else None, sort_keys=True)


def planned_inputs(plan: Plan, labels: Sequence[str], *, as_live: bool = False) -> Inputs:
    """What rules read of ``plan``. ``as_live`` (drift): ``desired`` is the organization as it
    is live, so a policy checks what someone changed by hand."""
    deleted = {c.address for c in plan.changes if c.action == "delete"}
    sides: dict[tuple[str, str], Callable[[], list[Record]]] = {}
    for kind, matching in plan.matchings:
        sides["live", kind] = partial(live_records, kind, matching)
        desired = partial(desired_records, kind, matching, deleted)
        sides["desired", kind] = sides["live", kind] if as_live else desired
    return Inputs(partial(plan_input, plan, labels), sides, datetime.now(UTC))
