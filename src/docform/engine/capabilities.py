"""What a kind may do beyond the core of `docform.engine.kind.Kind`, one ability at a time.

A kind that has an ability names it among its bases and implements its methods (the type
checker holds them to the ability's signatures, and a kind that left one out cannot be made);
the engine asks ``isinstance(kind, Ability)`` before calling it, and does without it otherwise.
Most kinds have none of these. The abilities are abstract base classes, not runtime-checked
protocols: asking a kind is then a lookup in its bases, where a protocol compared the kind's
attributes with its own at every call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from docform.engine.audience import Fact, Seen
from docform.engine.client import ServiceClient
from docform.engine.kind import AddressIndex
from docform.engine.live import LiveReader
from docform.engine.objects import Bystander, Desired, Gone, Matching, Observed
from docform.engine.plan import Call, Change, Violation


class ExplainsCreates(ABC):
    @abstractmethod
    def create_reason(self, desired: Desired) -> str:
        """Why the plan creates ``desired`` (``action_reason``), where the kind knows more than
        that no live object matches it."""
        ...


class PointsToWhatItHides(ABC):
    @abstractmethod
    def where_to_find(self, change: Change) -> str | None:
        """For a change an apply made: where the user finds what the service made that docform
        never shows (a share link's URL, a signing key), or None."""
        ...


class TellsWhatIsLost(ABC):
    @abstractmethod
    def lost_with(self, observed: Observed) -> str:
        """What deleting ``observed`` destroys that is no object a plan lists (a space's
        pages and comments), as far as the service's answer tells (`Change.loses`)."""
        ...


class ExplainsDeletes(ABC):
    @abstractmethod
    def delete_reason(self, observed: Observed) -> str:
        """Why the plan deletes ``observed``, an object no entry matches (``action_reason``),
        where the kind knows more than that prune is on."""
        ...


class ComparesOwnWay(ABC):
    """Fields compared otherwise than by value (`docform.engine.field_rules` aside)."""

    @abstractmethod
    def same_field(self, name: str, want: Any, have: Any) -> bool:
        """Whether the live value ``have`` of field ``name`` already is ``want``, which is not
        ``==`` to it (the planner compares with ``==`` first)."""
        ...

    @abstractmethod
    def changed_parts(self, name: str, before: Any, after: Any) -> list[tuple[str, Any, Any]]:
        """``(path, before, after)`` of each part of field ``name`` that changes."""
        ...


class Nests(ABC):
    @abstractmethod
    def nesting_parent(self, raw: Mapping[str, Any]) -> str | None:
        """For a kind nested in itself (collections): the live id of the parent."""
        ...


class LimitsMoves(ABC):
    @abstractmethod
    def may_move(self, desired: Desired, index: AddressIndex) -> bool:
        """Whether move detection may pair ``desired`` with a live object in another container
        (`Kind.container_key_parts`): no where the move could not be carried out."""
        ...


class Restores(ABC):
    """Objects deleted a short while ago that the service can bring back."""

    @abstractmethod
    def restorable(self, raw: Mapping[str, Any]) -> bool:
        """Whether a pinned, deleted object can be brought back instead of recreated."""
        ...

    @abstractmethod
    def restore_calls(self, observed: Observed) -> list[Call]: ...


class SetsAside(ABC):
    @abstractmethod
    def set_aside(self, matching: Matching) -> list[str]:
        """Take out of ``matching`` what this kind cannot plan now (an object waiting for an
        authorization in the service), and say why: each note goes into the plan, instead of
        a change that would fail."""
        ...


class MadeInTheApp(ABC):
    @abstractmethod
    def made_in_the_app(self, change: Change) -> bool:
        """Whether ``change``, planned without calls, is one no API operation makes, only the
        service's app (connecting a custom hostname): so that plans and drift show it. The
        kind refuses it with a rail of its own (`HasRails`) that nothing accepts, so it is
        never applied."""
        ...


class OrdersSiblings(ABC):
    @abstractmethod
    def order_changes(
        self, desired: Sequence[Desired], live: Sequence[Mapping[str, Any]], index: AddressIndex
    ) -> list[Change]:
        """Changes that put siblings in manifest order (site structure)."""
        ...


class HasRails(ABC):
    @abstractmethod
    def rail_violations(self, matching: Matching, changes: Sequence[Change]) -> list[Violation]:
        """This kind's own safety rails broken by ``changes`` (`docform.engine.rails`)."""
        ...


class HasRailsAcrossKinds(ABC):
    @abstractmethod
    def rails_across_kinds(
        self, matchings: Mapping[str, Matching], changes: Sequence[Change]
    ) -> list[Violation]:
        """This kind's rails that need other kinds too: ``matchings`` by kind name, and every
        change of the plan (the last SAML provider of an organization that enforces SSO)."""
        ...


class WarnsAcrossKinds(ABC):
    @abstractmethod
    def warnings_across_kinds(
        self, matchings: Mapping[str, Matching], changes: Sequence[Change]
    ) -> list[str]:
        """What a reviewer should look at in ``changes`` that this kind knows of (a field that
        something else also writes); nothing is refused for it."""
        ...


class GuardsCaller(ABC):
    """Changes that could lock the API token's own user out."""

    @abstractmethod
    def risky_for_caller(self, changes: Sequence[Change]) -> list[Change]:
        """Those of ``changes`` that would lock the API token's own user out if its
        ``live_id`` were that user's (removing or demoting a membership); apply refuses them
        then."""
        ...

    @abstractmethod
    async def identify_caller(self, client: ServiceClient) -> str | None:
        """The live id of the API token's own user among this kind's objects, or None when
        the token belongs to no user (it raises when it cannot tell)."""
        ...


class NamesByKey(ABC):
    @abstractmethod
    def named_in(self, change: Change) -> set[tuple[str, str]]:
        """Objects of other kinds that ``change`` (one of this kind's) names by their natural
        key rather than by reference, as ``(kind, key)``: a team's membership change names
        members by email. The delete of such an object waits for the change (the API refuses
        a removal from a team of someone no longer in the organization)."""
        ...


class FinishesOnRefusal(ABC):
    @abstractmethod
    def already_done(self, change: Change, status: int | None, message: str) -> bool:
        """Whether a failed call of ``change`` answered that its work is already done (a move
        to where the object is); the apply then counts it as made."""
        ...


class ExplainsPending(ABC):
    @abstractmethod
    def pending_reason(self, change: Change) -> str:
        """What an answer of 202 Accepted to a call of ``change`` means: what the service
        does instead of making the change now (a removal request sent to the admins)."""
        ...


class LocksOtherThanId(ABC):
    @abstractmethod
    def lock_id(self, live_id: str) -> str:
        """What docform.lock records for a new object of this kind whose create answered
        ``live_id``, where that is not the id itself (an id that is a secret)."""
        ...


class ReadsBystanders(ABC):
    @abstractmethod
    async def read_bystanders(self, reader: LiveReader, gone: Sequence[Gone]) -> list[Bystander]:
        """This kind's objects outside what planning read that ``gone`` (objects of the
        `Kind.reached_by` kinds the plan deletes) take down or change, with the fewest
        requests."""
        ...


class TellsAudience(ABC):
    @abstractmethod
    def audience_facts(self, objects: Sequence[Seen]) -> Iterable[Fact]:
        """What this kind's objects, as they stand on one side of a plan, say about who reaches
        which space, collection or site (`docform.engine.audience`)."""
        ...


class ReadsAudience(ABC):
    @abstractmethod
    async def read_audience(
        self, client: ServiceClient, address: str, live_id: str
    ) -> dict[str, str] | None:
        """Who the service says reaches the object at ``address`` (person -> role, as
        `docform.engine.audience` names them), read after an apply to hold the plan's
        prediction to; None when this kind cannot tell."""
        ...


class ReadsPartsOfEach(ABC):
    @abstractmethod
    def parts_read_apart(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """What of this kind's live object ``raw`` its read lists on its own (a team's members,
        one list per team): kept from planning's read for the read after an apply that leaves
        the object alone, which takes it from there (`LiveReader.unchanged`) instead of reading
        it again (`docform.workflow.verify.earlier_read`)."""
        ...
