"""Who can reach what, before and after a plan: the audience diff.

A plan that changes a grant, a team's members, a member's role, a site's visibility or a way in
around them (a share link, visitor sign-in) changes who can read or edit some space, collection
or site. Each kind says what its objects contribute, as `Fact`s about addresses
(`TellsAudience.audience_facts`); this module, which knows no kind, puts the facts of the live
side and of the planned side together and says, per object, how its audience changes: the grants
and ways in that come and go, and the members who gain, lose or change their role.

Who ends up with a role on an object (the model of the service's ``aggregate`` lists): every
member with an organization role has that role, and at least the object's default level
(`docform.engine.levels`); a grant on the object, or on a collection it lies in, gives its role
to its user or to every member of its team; a member keeps the most capable role of all those.
A guest grant gives access with no role (``guest``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from docform.engine.levels import default_on, level_text
from docform.engine.objects import Matching, Ref, Unresolved, address_head

ORGANIZATION = "organization"
"""Where facts about the whole organization are told (a member's role, a link invite)."""
MOST_CAPABLE_FIRST = ("admin", "create", "review", "edit", "comment", "read", "guest")
SHOWN_PEOPLE = 5
"""How many of the members a line names in text; JSON names them all."""
ROLE, IN_TEAM, GRANT, INSIDE, DOOR, GATE, DEFAULT, LABEL = (
    "role", "in_team", "grant", "inside", "door", "gate", "default", "label",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing that decides who reaches what; see the constructors below for each ``what``."""

    what: str
    subject: str
    other: str | None = None
    role: str | None = None


def org_role(person: str, role: str | None) -> Fact:
    """``person`` (an email, or ``~`` and a user id) is a member with this organization role
    (None or ``guest``: a guest, reaching nothing by the role)."""
    return Fact(ROLE, person, role=role or "guest")


def in_team(team: str, person: str) -> Fact:
    return Fact(IN_TEAM, team, person)


def team_grant(on: str, team: str, role: str | None) -> Fact:
    return Fact(GRANT, on, f"team:{team}", role or "guest")


def person_grant(on: str, person: str, role: str | None) -> Fact:
    return Fact(GRANT, on, f"person:{person}", role or "guest")


def inside(on: str, container: str) -> Fact:
    """``on`` lies in ``container``, whose grants reach it too."""
    return Fact(INSIDE, on, container)


def door(on: str, who: str, gate: str | None = None) -> Fact:
    """Someone beyond the members reaches ``on`` (``anyone holding share link 'Partners'``),
    while ``on`` opens ``gate`` (None: always)."""
    return Fact(DOOR, on, who, gate)


def gate(on: str, name: str) -> Fact:
    """``on`` opens the doors of gate ``name`` (a site's visibility)."""
    return Fact(GATE, on, name)


def default_level(on: str, level: str | None) -> Fact:
    return Fact(DEFAULT, on, role=level or "guest")


def label(address: str, text: str) -> Fact:
    """How people are told of ``address`` (``team Support``)."""
    return Fact(LABEL, address, text)


@dataclass(frozen=True, slots=True)
class Seen:
    """One object as it stands on one side of a plan: its address, key and fields (live, or
    live with the planned values over them) and its live answer (None before its create)."""

    address: str
    key: tuple[Any, ...]
    fields: Mapping[str, Any]
    raw: Mapping[str, Any] | None


def live_side(matching: Matching, unmatched_address: Any) -> list[Seen]:
    """Every live object of one kind that the plan looked at."""
    return [
        *(Seen(p.desired.address, p.observed.key, p.observed.fields, p.observed.raw)
          for p in matching.pairs),
        *(Seen(unmatched_address(o), o.key, o.fields, o.raw) for o in matching.unmatched),
    ]  # fmt: skip


def planned_side(
    matching: Matching,
    unmatched_address: Any,
    deleted: set[str],
    changed: set[str] | None = None,
) -> list[Seen]:
    """Every object of one kind as it stands once the plan is applied; with ``changed``, once
    only the changes of those addresses are (a plan narrowed by ``--target``)."""

    def made(address: str) -> bool:
        return changed is None or address in changed

    found = [
        Seen(p.desired.address, p.desired.key, {**p.observed.fields, **p.desired.fields},
             p.observed.raw)
        if made(p.desired.address)
        else Seen(p.desired.address, p.observed.key, p.observed.fields, p.observed.raw)
        for p in matching.pairs
    ]  # fmt: skip
    found += [
        Seen(p.desired.address, p.desired.key, {**p.observed.fields, **p.desired.fields},
             p.observed.raw)
        for p in matching.restores
        if made(p.desired.address)
    ]  # fmt: skip
    found += [Seen(d.address, d.key, d.fields, None) for d in matching.creates if made(d.address)]
    for o in matching.unmatched:
        address = unmatched_address(o)
        if address not in deleted:
            found.append(Seen(address, o.key, o.fields, o.raw))
    return found


def person(email: str | None, user_id: str) -> str:
    """How facts name a person: the email in lower case, else ``~`` and the user id."""
    return email.lower() if email else f"~{user_id}"


def address_of(value: object) -> str | None:
    """The address a reference names (``KIND.~ID`` for an object no entry manages)."""
    if isinstance(value, Ref):
        return value.address
    if isinstance(value, Unresolved):
        return f"{address_head(value.kind)}.~{value.id}"
    return None


def contained(objects: Sequence[Seen], container_field: str, new_level: str) -> list[Fact]:
    """The facts of spaces and collections: what each lies in, and its default level
    (``new_level`` for one created without saying it)."""
    facts = []
    for seen in objects:
        container = address_of(seen.fields.get(container_field))
        if container is not None:
            facts.append(inside(seen.address, container))
        if "defaultLevel" in seen.fields or seen.raw is None:
            facts.append(default_level(seen.address, seen.fields.get("defaultLevel", new_level)))
    return facts


def rank(role: str) -> int:
    return MOST_CAPABLE_FIRST.index(role) if role in MOST_CAPABLE_FIRST else len(MOST_CAPABLE_FIRST)


class Reach:
    """One side's facts, indexed."""

    def __init__(self, facts: Iterable[Fact]) -> None:
        self.roles: dict[str, str] = {}
        self.teams: dict[str, set[str]] = {}
        self.grants: dict[str, dict[str, str]] = {}
        self.parents: dict[str, str] = {}
        self.doors: dict[str, set[tuple[str, str | None]]] = {}
        self.gates: dict[str, set[str]] = {}
        self.defaults: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self._members_with_role: dict[str, str] | None = None
        for f in facts:
            self._add(f)

    def _add(self, f: Fact) -> None:
        if f.what == ROLE:
            self.roles[f.subject] = f.role or "guest"
        elif f.what == IN_TEAM and f.other is not None:
            self.teams.setdefault(f.subject, set()).add(f.other)
        elif f.what == GRANT and f.other is not None:
            self.grants.setdefault(f.subject, {})[f.other] = f.role or "guest"
        elif f.what == INSIDE and f.other is not None:
            self.parents[f.subject] = f.other
        elif f.what == DOOR and f.other is not None:
            self.doors.setdefault(f.subject, set()).add((f.other, f.role))
        elif f.what == GATE and f.other is not None:
            self.gates.setdefault(f.subject, set()).add(f.other)
        elif f.what == DEFAULT:
            self.defaults[f.subject] = f.role or "guest"
        elif f.what == LABEL and f.other is not None:
            self.labels[f.subject] = f.other

    def targets(self) -> set[str]:
        return {*self.grants, *self.parents, *self.doors, *self.gates, *self.defaults}

    def granted(self, on: str) -> dict[str, tuple[str, str]]:
        """principal -> (role, where it is granted) on ``on`` and the collections above it."""
        found: dict[str, tuple[str, str]] = {}
        seen: set[str] = set()
        where: str | None = on
        while where is not None and where not in seen:
            seen.add(where)
            for principal, role in self.grants.get(where, {}).items():
                if principal not in found or rank(role) < rank(found[principal][0]):
                    found[principal] = (role, where)
            where = self.parents.get(where)
        return found

    def by_grants(self, on: str) -> dict[str, str]:
        """person -> the role grants give on ``on`` (its own and those above)."""
        roles: dict[str, str] = {}
        for principal, (role, _) in self.granted(on).items():
            kind, _, name = principal.partition(":")
            people = self.teams.get(name, set()) if kind == "team" else {name}
            for person in people:
                if person not in roles or rank(role) < rank(roles[person]):
                    roles[person] = role
        return roles

    def _with_role(self) -> dict[str, str]:
        """The members whose organization role reaches something (not guests), gathered once:
        every object's audience starts from them."""
        if self._members_with_role is None:
            self._members_with_role = {p: r for p, r in self.roles.items() if r != "guest"}
        return self._members_with_role

    def default(self, on: str) -> tuple[str, str] | None:
        return default_on(self.defaults, self.parents, on)

    def everyone(self, on: str, among: Collection[str] | None = None) -> dict[str, str]:
        """person -> the role they end up with on ``on``, from every source; of the people
        ``among`` only, when given."""
        floor = self.default(on)
        members = self._with_role()
        roles = dict(members) if among is None else {p: members[p] for p in among if p in members}
        if floor is not None:
            roles = {p: min(r, floor[0], key=rank) for p, r in roles.items()}
        for person, role in self.by_grants(on).items():
            if among is not None and person not in among:
                continue
            if person not in roles or rank(role) < rank(roles[person]):
                roles[person] = role
        return roles

    def open_doors(self, on: str) -> set[str]:
        gates = self.gates.get(on, set())
        return {who for who, needs in self.doors.get(on, ()) if needs is None or needs in gates}

    def principal(self, principal: str) -> str:
        kind, _, name = principal.partition(":")
        if kind == "team":
            members = len(self.teams.get(name, ()))
            return f"{self.labels.get(name, name)} ({members} member{'s' * (members != 1)})"
        return f"user {name}"


@dataclass
class AudienceLine:
    """One change of who reaches an object: ``+`` comes, ``-`` goes, ``~`` changes role."""

    sign: str
    who: str
    before: str | None = None
    after: str | None = None
    people: list[str] = field(default_factory=list)

    def text(self) -> str:
        if self.people:  # the role is in ``who``: "3 members lose read"
            named = ", ".join(self.people[:SHOWN_PEOPLE])
            more = len(self.people) - SHOWN_PEOPLE
            named += f" and {more} more" if more > 0 else ""
            roles = f" ({self.before} -> {self.after})" if self.sign == "~" else ""
            return f"{self.sign} {self.who}{roles}: {named}"
        if self.sign == "~":
            return f"~ {self.who}: {self.before} -> {self.after}"
        role = self.after if self.sign == "+" else self.before
        return f"{self.sign} {self.who}" + (f": {role}" if role else "")

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"change": self.sign, "who": self.who}
        doc.update(before=self.before, after=self.after)
        if self.people:
            doc["people"] = list(self.people)
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> AudienceLine:
        return cls(doc["change"], doc["who"], doc["before"], doc["after"], doc.get("people", []))


@dataclass
class AudienceChange:
    """How the audience of one object (or of the organization) changes."""

    on: str
    lines: list[AudienceLine]
    planned: Reach | None = field(default=None, repr=False, compare=False)
    """The planned side's facts, indexed (`predicted` reads them); None for the organization
    and for a plan read back from JSON."""

    def predicted(self) -> dict[str, str]:
        """Who ends up with which role once the plan is applied (person -> role), to hold the
        service's aggregate list to; empty without the planned side. Worked out when asked, not
        kept: each names every member with an organization role, and an apply reads back only
        a few objects (`docform.workflow.audience.READ_BACK_MOST`) of the thousands a plan of
        a large organization may change."""
        return self.planned.everyone(self.on) if self.planned is not None else {}

    def to_json(self) -> dict[str, Any]:
        return {"on": self.on, "changes": [line.to_json() for line in self.lines]}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> AudienceChange:
        """As a saved plan holds it (without the prediction, which only an apply reads)."""
        return cls(doc["on"], [AudienceLine.from_json(line) for line in doc["changes"]])


def audience_changes(old: Reach, new: Reach, among: Set[str] | None = None) -> list[AudienceChange]:
    """Per object whose audience differs, in address order, after the organization's own;
    ``among``: the objects that may differ (`docform.engine.audience_plan.may_differ`), None
    for every object either side knows."""
    found = []
    whole = [*_people_lines(old, new), *_source_lines(old, new, ORGANIZATION)]
    if whole:
        found.append(AudienceChange(ORGANIZATION, whole))
    objects = old.targets() | new.targets()
    if among is not None:
        objects &= among
    for on in sorted(objects - {ORGANIZATION}):
        lines = [*_source_lines(old, new, on), *_member_lines(*_people_reached(old, new, on))]
        if lines:
            found.append(AudienceChange(on, lines, new))
    return found


def _people_reached(old: Reach, new: Reach, on: str) -> tuple[dict[str, str], dict[str, str]]:
    """Before and after, the roles on ``on`` of the people whose grants there changed, from
    every source (a grant of edit to someone whose organization role is edit changes nothing)."""
    was, now = old.by_grants(on), new.by_grants(on)
    touched = {p for p in was.keys() | now.keys() if was.get(p) != now.get(p)}
    if old.default(on) != new.default(on):
        touched |= old.roles.keys() | new.roles.keys()
    if not touched:
        return {}, {}
    return old.everyone(on, touched), new.everyone(on, touched)


def _people_lines(old: Reach, new: Reach) -> list[AudienceLine]:
    lines = []
    for person in sorted(old.roles.keys() | new.roles.keys()):
        was, now = old.roles.get(person), new.roles.get(person)
        if was == now:
            continue
        if was is None:
            lines.append(AudienceLine("+", f"member {person}", after=now))
        elif now is None:
            lines.append(AudienceLine("-", f"member {person}", before=was))
        else:
            lines.append(AudienceLine("~", f"member {person}", was, now))
    return lines


def _source_lines(old: Reach, new: Reach, on: str) -> list[AudienceLine]:
    lines = []
    was, now = old.granted(on), new.granted(on)
    for principal in sorted(was.keys() | now.keys()):
        before_, after_ = was.get(principal), now.get(principal)
        if before_ == after_:
            continue
        reach = new if after_ else old
        where = (after_ or before_ or ("", ""))[1]
        who = reach.principal(principal) + ("" if where == on else f", from {where}")
        if before_ is None and after_ is not None:
            lines.append(AudienceLine("+", who, after=after_[0]))
        elif after_ is None and before_ is not None:
            lines.append(AudienceLine("-", who, before=before_[0]))
        elif before_ is not None and after_ is not None and before_[0] != after_[0]:
            lines.append(AudienceLine("~", who, before_[0], after_[0]))
    opened, closed = new.open_doors(on), old.open_doors(on)
    lines += [AudienceLine("+", who) for who in sorted(opened - closed)]
    lines += [AudienceLine("-", who) for who in sorted(closed - opened)]
    level_was, level_now = old.default(on), new.default(on)
    if level_was != level_now:
        lines.append(
            AudienceLine("~", "default level", level_text(level_was, on), level_text(level_now, on))
        )
    return lines


def _member_lines(was: Mapping[str, str], now: Mapping[str, str]) -> list[AudienceLine]:
    """Members who gain, lose or change a role, grouped by role."""
    groups: dict[tuple[str, str | None, str | None], list[str]] = {}
    for person in sorted(was.keys() | now.keys()):
        before_, after_ = was.get(person), now.get(person)
        if before_ == after_:
            continue
        sign = "+" if before_ is None else "-" if after_ is None else "~"
        groups.setdefault((sign, before_, after_), []).append(person)
    lines = []
    for (sign, before_, after_), people in sorted(groups.items(), key=_group_order):
        count = f"{len(people)} member{'s' * (len(people) != 1)}"
        verbs = (
            ("gains", "loses", "changes role")
            if len(people) == 1
            else ("gain", "lose", "change role")
        )
        what = {"+": f"{verbs[0]} {after_}", "-": f"{verbs[1]} {before_}", "~": verbs[2]}[sign]
        lines.append(AudienceLine(sign, f"{count} {what}", before_, after_, people))
    return lines


def _group_order(item: tuple[tuple[str, str | None, str | None], list[str]]) -> tuple[Any, ...]:
    (sign, before_, after_), _ = item
    return ("+-~".index(sign), rank(before_ or ""), rank(after_ or ""))
