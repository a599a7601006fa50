"""After an apply: the audience each changed object ended up with, as the service says.

The plan predicts, per space, collection and site whose audience it changes, who ends up with
which role (`docform.engine.audience`). Once the apply is done, the service's ``aggregate`` list
of each of them (read through the kind that knows it, `ReadsAudience.read_audience`) is held to that
prediction; every difference is told, naming the object, the person and both roles. Objects the
apply created are found by the read that verifies the apply (`docform.workflow.verify`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from docform.engine.audience import ORGANIZATION, AudienceChange, Fact
from docform.engine.capabilities import ReadsAudience
from docform.engine.client import ServiceClient
from docform.engine.doors import DoorCheck, door_differences
from docform.engine.kind import Kind
from docform.errors import DocformError

NO_ACCESS = "no access"
READ_BACK_MOST = 100
"""Most objects whose audience one apply reads back. Each read is the object's whole list of
who reaches it (every member, for an organization whose members all read everything): pages of
1,000 people, so bootstrapping 5,000 spaces in an organization of 10,000 members would take
50,000 requests. The first ones in plan order are read, all at once within the client's bound
on requests in flight; the note names those that were not."""
READ_BACK_AT_ONCE = 4
"""Most audience lists read at once: each is read whole before it is compared, and holds
everyone who reaches its object (with their user), page after page."""
SHOWN_UNREAD = 5
"""How many of the objects left unread the note names."""


async def audience_differences(
    client: ServiceClient,
    kinds: Sequence[Kind],
    audience: Sequence[AudienceChange],
    ids: Mapping[str, str],
) -> tuple[int, list[str]]:
    """How many objects were read back, and each difference between the predicted and the
    observed audience (at most `READ_BACK_MOST` objects; a note names those left)."""
    chosen = _readable(audience, ids)[:READ_BACK_MOST]
    at_once = asyncio.Semaphore(READ_BACK_AT_ONCE)

    async def held_to_prediction(change: AudienceChange) -> list[str] | None:
        # Each list is compared as it comes and dropped: the lists of every object at once
        # would hold every member as many times as there are objects.
        async with at_once:
            observed = await _observed(client, kinds, change.on, ids[change.on])
        if observed is None:
            return None
        return _differences(change.on, change.predicted(), observed)

    found = await asyncio.gather(*(held_to_prediction(change) for change in chosen))
    told = [lines for lines in found if lines is not None]
    return len(told), [line for lines in told for line in lines]


def unread_notes(audience: Sequence[AudienceChange], ids: Mapping[str, str]) -> list[str]:
    """What an apply says of the objects whose audience it did not read back."""
    unread = [c.on for c in _readable(audience, ids)[READ_BACK_MOST:]]
    if not unread:
        return []
    named = ", ".join(unread[:SHOWN_UNREAD])
    more = len(unread) - SHOWN_UNREAD
    named += f" and {more} more" if more > 0 else ""
    return [
        f"audience of {len(unread)} more object{'s' * (len(unread) != 1)} not read back (at "
        f"most {READ_BACK_MOST} an apply), so not checked: {named}"
    ]


def _readable(audience: Sequence[AudienceChange], ids: Mapping[str, str]) -> list[AudienceChange]:
    return [c for c in audience if c.on != ORGANIZATION and ids.get(c.on) is not None]


async def _observed(
    client: ServiceClient, kinds: Sequence[Kind], address: str, live_id: str
) -> dict[str, str] | None:
    for kind in kinds:
        if not isinstance(kind, ReadsAudience):
            continue
        try:
            found = await kind.read_audience(client, address, live_id)
        except DocformError as exc:
            return {"(error)": str(exc)}
        if found is not None:
            return found
    return None


def _differences(on: str, predicted: Mapping[str, str], observed: Mapping[str, str]) -> list[str]:
    if "(error)" in observed:
        return [f"{on}: its audience could not be read back: {observed['(error)']}"]
    return [
        f"{on}: {person}: the plan predicted {predicted.get(person, NO_ACCESS)}, the service "
        f"says {observed.get(person, NO_ACCESS)}"
        for person in sorted(predicted.keys() | observed.keys())
        if predicted.get(person) != observed.get(person)
    ]


def audience_notes(read: int, differences: Sequence[str]) -> list[str]:
    """What an apply tells of the audience it read back."""
    if not differences:
        return (
            [f"audience read back: {read} object{'s' * (read != 1)} as the plan predicted"]
            if read
            else []
        )
    head = (
        f"audience differs from the plan's prediction ({len(differences)} difference"
        f"{'s' * (len(differences) != 1)}); docform's model of who reaches what "
        '(docs/identity-and-planning.md, "Audience") missed a source the service counts, such '
        "as the grants of an object whose entry leaves access: out (not read, so not counted):"
    )
    return [head, *(f"  {line}" for line in differences)]


def door_notes(check: DoorCheck | None, observed: Sequence[Fact]) -> list[str]:
    """What an apply tells of the doors it read back (`docform.engine.doors`): each object's
    site visibility, share links, visitor sign-in and link invites, read again through their
    own routes, against what the plan said would be open."""
    if check is None or not check.predicted:
        return []
    differences = door_differences(check, observed)
    count = len(check.predicted)
    if not differences:
        return [
            f"ways in read back: {count} object{'s' * (count != 1)} open and closed as the plan "
            "predicted (who holds a share link or invite, or passes visitor sign-in, the "
            "service does not list)"
        ]
    head = (
        f"ways in differ from the plan's prediction ({len(differences)} difference"
        f"{'s' * (len(differences) != 1)}):"
    )
    return [head, *(f"  {line}" for line in differences)]
