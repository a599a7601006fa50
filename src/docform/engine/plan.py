"""The plan: an ordered list of changes, each carrying the HTTP calls that carry it out.

A plan is data first. Renderers (``docform.render``) only format what is here, and ``apply``
executes ``calls`` in ``depends_on`` order. The JSON form is versioned by ``FORMAT_VERSION``
and documented in the README ("Plan JSON"); its keys only ever grow within a major version.

Two kinds of values are not known when planning:
- the id of an object created earlier in the same apply: in a call path it is written
  ``${collection.engineering.id}``, in a body ``{"$placeholder": "collection.engineering.id"}``;
- a secret (a SAML certificate, credentials inside a URL): bodies hold
  ``{"$secret": "<reference as written in the manifest>"}`` and apply resolves it again, so a saved
  plan never holds the secret itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from docform.engine.fingerprints import digest
from docform.engine.objects import address_head
from docform.untrusted.lookalikes import escape_controls

FORMAT_VERSION = "1.4"
ACTIONS = (
    "create", "update", "delete", "move", "restore", "membership", "reorder", "rotate",
    "release",
)  # fmt: skip
SUMMARY_OF_ACTION = {
    "create": "create",
    "update": "update",
    "membership": "update",
    "reorder": "update",
    "rotate": "update",
    "release": "update",
    "delete": "delete",
    "move": "move",
    "restore": "restore",
}
PLACEHOLDER_IN_PATH = re.compile(r"\$\{([A-Za-z0-9_.~@+-]+)\}")


@dataclass(frozen=True)
class Placeholder:
    """The id (or another field) of an object that an earlier call of the apply creates."""

    address: str
    field: str = "id"

    @property
    def ref(self) -> str:
        return f"{self.address}.{self.field}"

    def in_path(self) -> str:
        return "${" + self.ref + "}"


@dataclass(frozen=True)
class SecretRef:
    """A secret in a call body, named by where the manifests hold it (``saml.okta.certificate``).

    The plan keeps only this name; apply reads the value from the manifests again.
    """

    source: str

    def plan_json(self) -> dict[str, str]:
        return {"$secret": self.source}


@dataclass
class Call:
    method: str
    path: str
    body: Any = None
    retry: bool | None = None
    """Whether the client may send the call again after a failure that may have done its work
    (no answer, a 5xx): None leaves it to the client, by method (a POST is never repeated);
    False for a call that creates though its method is repeatable (a PUT that creates): the
    applier then looks for the object before it sends the call again."""
    held: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Secrets the path names as ``${NAME}`` (a link invite's id, which admits its holder),
    held in memory for apply and never written: not in the JSON, the checksum or a log."""

    def to_json(self) -> dict[str, Any]:
        doc = {"method": self.method, "path": self.path, "body": _jsonable(self.body)}
        if self.retry is not None:
            doc["retry"] = self.retry
        return doc


@dataclass
class FieldChange:
    path: str
    before: Any
    after: Any
    sensitive: bool = False
    """The manifest treats this field as a secret: neither side is shown."""
    sensitive_before: bool = False
    """Only the live value is a secret (a URL whose credentials the manifest drops)."""
    null_means: str | None = None
    """What the API's null stands for in this field (``guest`` for a role), for people."""

    @property
    def hides_before(self) -> bool:
        return self.sensitive or self.sensitive_before

    def to_json(self) -> dict[str, Any]:
        doc = {
            "path": self.path,
            "before": "(sensitive)" if self.hides_before else _jsonable(self.before),
            "after": "(sensitive)" if self.sensitive else _jsonable(self.after),
        }
        if self.null_means is not None:
            doc["null_means"] = self.null_means
        return doc


@dataclass
class Change:
    address: str
    kind: str
    action: str
    action_reason: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    fields: list[FieldChange] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    depends_on: list[str] = field(default_factory=list)
    previous_address: str | None = None
    live_id: str | None = None
    sensitive: list[str] = field(default_factory=list)
    """Fields shown as ``(sensitive)`` on both sides."""
    sensitive_before: list[str] = field(default_factory=list)
    """Fields whose live value only is hidden."""
    replacement: dict[str, Any] | None = None
    """On both changes of a likely replacement (a create, and the delete of the live object
    it resembles, if pruned): ``create``, ``delete`` (addresses; delete null when the object
    is left unmanaged), ``id`` of the live object and the ``hint`` that keeps it."""
    human_key: str | None = None
    """What a person knows the object by (an email, a title, a path, a slug, a label)."""
    takes: list[dict[str, Any]] = field(default_factory=list)
    """On a delete: every object the API takes down or changes with it that the plan does
    not delete itself (``address``, ``human_key``, ``fate``, ``managed``;
    `docform.engine.cascades`)."""
    loses: str | None = None
    """On a delete: what goes with the object that is no object a plan lists (a space's
    pages), as its kind tells it (`docform.engine.capabilities.TellsWhatIsLost`)."""
    lock_after: str | None = None
    """What docform.lock records for ``address`` once this change is applied, when it changes
    the kind's `lock_field` (not part of the JSON: it follows from the change)."""

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown plan action {self.action!r}")

    @property
    def key(self) -> str:
        """Unique within a plan: one object may have, say, an update and a move."""
        return f"{self.address}#{self.action}"

    @property
    def address_with_key(self) -> str:
        """``member.~u_bob (bob@acme.test)``: the address, and the human key unless the
        address already ends with it."""
        key = self.human_key
        if key and not self.address.endswith(key):
            return escape_controls(f"{self.address} ({key})")
        return escape_controls(self.address)

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "previous_address": self.previous_address,
            "human_key": self.human_key,
            "kind": self.kind,
            "action": self.action,
            "action_reason": self.action_reason,
            "id": self.live_id,
            "before": _masked(self.before, [*self.sensitive, *self.sensitive_before]),
            "after": _masked(self.after, self.sensitive),
            "fields": [f.to_json() for f in self.fields],
            "calls": [c.to_json() for c in self.calls],
            "depends_on": list(self.depends_on),
            "replacement": self.replacement,
            "takes": list(self.takes),
            "loses": self.loses,
        }


@dataclass
class Unmanaged:
    """A live object no manifest entry matches; left alone unless its kind is pruned."""

    kind: str
    id: str
    title: str

    @property
    def address(self) -> str:
        """``member.~u_bob``: where the plan names it."""
        return f"{address_head(self.kind)}.~{self.id}"

    @property
    def address_with_key(self) -> str:
        """``member.~u_bob (bob@acme.test)``: its address and what a person knows it by."""
        address = self.address
        return escape_controls(f"{address} ({self.title})" if self.title else address)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "title": self.title}


@dataclass(frozen=True)
class Violation:
    """A safety rail the plan breaks (`docform.engine.rails`): which, why, and whether
    ``--force`` may bypass it."""

    rail: str
    message: str
    forceable: bool = True
    address: str | None = None
    """The object the rail is about (the collection whose delete cascades): what
    ``--allow RAIL:ADDRESS`` names to accept this one violation; None when only ``--force``
    (or a limit's own option) can."""
    changes: tuple[str, ...] = ()
    """Keys of the changes that together break the rail: a plan narrowed by ``--target`` or
    ``--exclude`` breaks it only while it holds them all."""
    acceptable: bool | None = None
    """Whether ``--allow`` may accept it; None: when ``--force`` may bypass it. A policy that
    denies is accepted one object at a time, never bypassed wholesale."""

    def __str__(self) -> str:
        return f"[{self.rail}] {self.message}"

    @property
    def may_accept(self) -> bool:
        return self.forceable if self.acceptable is None else self.acceptable

    @property
    def allow(self) -> str | None:
        """What ``--allow`` takes to accept this violation alone."""
        return f"{self.rail}:{self.address}" if self.address and self.may_accept else None

    def to_json(self) -> dict[str, Any]:
        doc = {
            "rail": self.rail,
            "message": self.message,
            "forceable": self.forceable,
            "address": self.address,
            "changes": list(self.changes),
        }
        if self.may_accept != self.forceable:
            doc["acceptable"] = self.may_accept
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Violation:
        return cls(
            doc["rail"],
            doc["message"],
            bool(doc.get("forceable", True)),
            doc.get("address"),
            tuple(doc.get("changes", ())),
            doc.get("acceptable"),
        )


@dataclass
class Plan:
    organization: str
    changes: list[Change] = field(default_factory=list)
    unmanaged: list[Unmanaged] = field(default_factory=list)
    fingerprints: MutableMapping[str, str] = field(default_factory=dict)
    requests: int = 0
    live_counts: dict[str, int] = field(default_factory=dict)
    live_objects: dict[str, Any] = field(default_factory=dict, repr=False)
    """The live object each managed address was matched to, as the API answered it."""
    unmatched_objects: dict[str, Any] = field(default_factory=dict, repr=False)
    """The live objects no entry matches, by address (``team.~tm_1``), as the API answered
    them: what adopting one writes into the manifests."""
    violations: list[Violation] = field(default_factory=list)
    """Safety rails the plan breaks, found while planning (`docform.engine.rails`)."""
    ignored: list[Any] = field(default_factory=list)
    """What ``ignore:`` in the settings left out (`docform.engine.ignore.Ignored`)."""
    notes: list[str] = field(default_factory=list)
    """What a reviewer should know about how entries were matched (an identity file id no
    longer live, an entry that may replace a live object)."""
    identities: dict[str, str] = field(default_factory=dict, repr=False)
    """Address -> live id of every entry matched to a live object (what docform.lock holds)."""
    secret_sources: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)
    """Address -> the source of each secret its entry writes (`docform.engine.secret_sources`):
    what docform.lock records once its changes are made."""
    kept_sources: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)
    """What docform.lock records of those before the apply: sources of entries left alone, and
    the sources recorded so far for the others."""
    warnings: list[str] = field(default_factory=list)
    """What a person should look at that breaks nothing (an ``ignore:`` pattern matching
    nothing)."""
    addresses: set[str] = field(default_factory=set, repr=False)
    """Every address planning knew: the manifest entries and the live objects in scope."""
    targeting: Any = None
    """``--target`` / ``--exclude`` as applied to this plan (`docform.engine.targets.Targeting`),
    or None when the plan is whole."""
    token: Any = None
    """What the plan's calls need of the API token (`docform.api.scopes.TokenNeeds`), when
    asked for (``plan --explain-token``)."""
    audience: list[Any] = field(default_factory=list)
    """How the plan changes who reaches each space, collection and site
    (`docform.engine.audience.AudienceChange`)."""
    doors: Any = None
    """The doors apply checks once the plan is applied (`docform.engine.doors.DoorCheck`);
    None for a plan not made from live state."""
    rails: Any = None
    secret_prints: dict[str, str] = field(default_factory=dict, repr=False)
    """A keyed fingerprint of each secret the calls send, by where the manifests hold it
    (`docform.workflow.receipt.checksum_prints`): in the body, so that a checksum approves
    the secrets' values too, never the values themselves."""
    """Every safety rail as evaluated for this plan (`docform.engine.rails.RailReport`), once
    the commands have evaluated them; None before."""
    not_planned: dict[str, str] = field(default_factory=dict)
    """Kinds nothing was planned for, each with why (the token may not read them): a plan
    with any is partial, and apply refuses it."""
    commit: str | None = None
    """The commit of the repository holding the manifests when they were planned, if known:
    what a reviewer reads the plan against."""
    policies: Any = None
    """The organization's own policies as evaluated for this plan
    (`docform.policies.evaluate.PolicyReport`); None when it has none or before."""
    matchings: list[tuple[str, Any]] = field(default_factory=list, repr=False)
    reads: Any = field(default=None, repr=False)
    """The GET answers planning read (`docform.api.recording.ReadRecording`), kept in memory
    for a rehearsal (docs/rehearsal.md) and never saved or shown; None for a plan whose client
    records nothing."""
    rehearsal: Any = None
    """How the plan's calls went on a twin of the organization
    (`docform.workflow.rehearsal.Rehearsal`), when rehearsed; None otherwise."""
    audience_of: Any = field(default=None, repr=False)
    """``(changes) -> (audience, doors)`` as they are when only ``changes`` of this plan are
    made (a plan narrowed by ``--target``); None for a plan not made from live state."""
    gone: list[Any] = field(default_factory=list, repr=False)
    """What the plan deletes and what its deletes take along (`docform.engine.objects.Gone`):
    where the kinds look for bystanders (`docform.engine.bystanders`)."""
    """Each kind's name and matching (`docform.engine.objects.Matching`): what policies read
    of the desired and the live organization."""

    @property
    def has_changes(self) -> bool:
        return bool(self.changes)

    @property
    def refused(self) -> bool:
        """A safety rail that is not bypassed would make apply refuse this plan."""
        return self.rails is not None and bool(self.rails.blocking)

    def release_review(self) -> None:
        """Let go of what only showing and judging the plan reads (each kind's matching, the
        live objects no entry matches, what the deletes take along): an apply needs none of
        it once the plan is shown and its rails are passed, and a rehearsal plans beside it."""
        self.matchings, self.unmatched_objects, self.gone, self.audience_of = [], {}, [], None

    def release_reads(self) -> None:
        """Let go of what planning read too (its answers, the live objects and their
        fingerprints), once the calls are made: the read after the apply reads what it
        compares again, and would otherwise hold a second organization beside this one."""
        self.release_review()
        self.reads, self.live_objects, self.fingerprints = None, {}, {}

    def summary(self) -> dict[str, int]:
        counts = dict.fromkeys(("create", "update", "delete", "move", "restore"), 0)
        for change in self.changes:
            counts[SUMMARY_OF_ACTION[change.action]] += 1
        return counts

    def body(self) -> dict[str, Any]:
        """The part of the plan that decides what apply does: what the checksum covers. The
        rails a reviewer accepted (``--allow``) are part of it when there are any, so a
        checksum approves them too."""
        body: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "organization": self.organization,
            "changes": [c.to_json() for c in self.changes],
        }
        allowed = list(getattr(self.rails, "allowed", None) or [])
        if allowed:
            body["allowed"] = allowed
        prints = prints_sent(self.secret_prints, body["changes"])
        if prints:
            body["secret_fingerprints"] = prints
        return body

    def checksum(self) -> str:
        return digest(self.body())

    def to_json(self) -> dict[str, Any]:
        doc = self.body()
        doc["unmanaged"] = [u.to_json() for u in self.unmanaged]
        doc["summary"] = self.summary()
        doc["ignored"] = [i.to_json() for i in self.ignored]
        doc["notes"] = list(self.notes)
        doc["rails"] = self.rails.to_json() if self.rails is not None else None
        doc["policies"] = self.policies.to_json() if self.policies is not None else None
        doc["targeting"] = self.targeting.to_json() if self.targeting is not None else None
        doc["warnings"] = list(self.warnings)
        doc["audience"] = [a.to_json() for a in self.audience]
        doc["not_planned"] = [
            {"kind": kind, "reason": reason} for kind, reason in self.not_planned.items()
        ]
        if self.token is not None:
            doc["token"] = self.token.to_json()
        doc["commit"] = self.commit
        doc["rehearsal"] = self.rehearsal.to_json() if self.rehearsal is not None else None
        doc["fingerprints"] = dict(sorted(self.fingerprints.items()))
        doc["checksum"] = self.checksum()
        return doc


def prints_sent(prints: Mapping[str, str], changes: Any) -> dict[str, str]:
    """The fingerprints in ``prints`` of the secrets that ``changes`` (as JSON) send."""
    if not prints:
        return {}
    sent = set(_secrets_named(changes))
    return {source: prints[source] for source in sorted(sent) if source in prints}


def _secrets_named(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$secret"} and isinstance(value["$secret"], str):
            yield value["$secret"]
        for item in value.values():
            yield from _secrets_named(item)
    elif isinstance(value, list):
        for item in value:
            yield from _secrets_named(item)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Placeholder):
        return {"$placeholder": value.ref}
    if hasattr(value, "plan_json"):
        return value.plan_json()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _masked(values: dict[str, Any] | None, sensitive: list[str]) -> dict[str, Any] | None:
    if values is None:
        return None
    return {k: ("(sensitive)" if k in sensitive else _jsonable(v)) for k, v in values.items()}
