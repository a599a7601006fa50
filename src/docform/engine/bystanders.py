"""Bystanders: objects planning does not read that a delete of the plan still reaches.

Planning reads only what the manifests manage and what pruning could delete: the site spaces
of a site no manifest manages, or the grants of an object whose entry writes no ``access``,
are never read. Yet deleting a space takes down every site space that shows it, wherever it
is, and deleting a team drops every grant it holds. So once the plan is known, each kind
whose objects a delete can reach (`Kind.reached_by`, `ReadsBystanders`) reads them, only for
the deletes that can, and they are listed under the delete that takes them (`Change.takes`)
and judged by the ``cascade`` rail like the objects planning read. They are never managed,
nor pruned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from docform.engine.capabilities import ReadsBystanders
from docform.engine.cascades import Casualty, violation
from docform.engine.kind import Bystander, Gone, Kind
from docform.engine.live import LiveReader
from docform.engine.plan import Change, Plan
from docform.errors import ServiceCallError


async def take_bystanders(plan: Plan, kinds: Sequence[Kind], reader: LiveReader) -> None:
    """Read what the deletes of ``plan`` reach beyond what planning read, and add it to the
    plan: under each delete, and to the rails it breaks."""
    asked = [
        (kind, _reaching(kind, plan.gone))
        for kind in kinds
        if kind.reached_by and isinstance(kind, ReadsBystanders)
    ]
    asked = [(kind, gone) for kind, gone in asked if gone]
    if not asked:
        return  # no delete can reach what planning did not read: no request
    found = await asyncio.gather(*(_read(kind, reader, gone, plan) for kind, gone in asked))
    deletes = {c.address: c for c in plan.changes if c.action == "delete"}
    for bystanders in found:
        for bystander in bystanders:
            _take(plan, deletes[bystander.delete], bystander)
    for delete in deletes.values():
        delete.takes.sort(key=lambda taken: str(taken["address"]))


async def _read(
    kind: ReadsBystanders, reader: LiveReader, gone: Sequence[Gone], plan: Plan
) -> list[Bystander]:
    try:
        return await kind.read_bystanders(reader, gone)
    except ServiceCallError as error:
        if not error.denied:
            raise
        # The token may not read them: the plan says what it could not list, not less.
        assert isinstance(kind, Kind)
        plan.warnings.append(
            f"the {kind.plural} that the plan's deletes may take along could "
            f"not be read ({error}): they are not listed under the deletes"
        )
        return []


def _reaching(kind: Kind, gone: Sequence[Gone]) -> list[Gone]:
    return [g for g in gone if g.kind in kind.reached_by]


def _take(plan: Plan, delete: Change, bystander: Bystander) -> None:
    casualty = Casualty(
        bystander.address, bystander.title, bystander.fate, None, bystander.judged,
        where=bystander.where,
    )  # fmt: skip
    delete.takes.append(casualty.to_json())
    if bystander.judged:
        plan.violations.append(violation(casualty, delete))
