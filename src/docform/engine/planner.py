"""From manifests and live state to a `Plan`: match, diff per object, order by dependency."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from docform.engine import secret_sources
from docform.engine.audience_plan import plan_audience
from docform.engine.capabilities import (
    ComparesOwnWay,
    ExplainsCreates,
    ExplainsDeletes,
    HasRails,
    HasRailsAcrossKinds,
    MadeInTheApp,
    OrdersSiblings,
    Restores,
    SetsAside,
    TellsWhatIsLost,
    WarnsAcrossKinds,
)
from docform.engine.cascades import judge_deletes
from docform.engine.dependencies import link_dependencies
from docform.engine.doors import (
    DoorCheck,
    all_as_they_stand,
    door_check,
    kind_sides,
    sides_facts,
)
from docform.engine.duplicates import twin_delete_reason
from docform.engine.graph import topological_order
from docform.engine.handovers import order_handovers
from docform.engine.ignore import IgnoreRules
from docform.engine.kind import (
    AddressIndex,
    ChangeContext,
    Desired,
    Kind,
    Observed,
    default_create_reason,
    default_delete_reason,
)
from docform.engine.live import LiveState
from docform.engine.manifests import ManifestView
from docform.engine.match import Matching, Pair, unmatched_address
from docform.engine.objects import address_head
from docform.engine.plan import (
    Change,
    FieldChange,
    Plan,
    Unmanaged,
)
from docform.engine.progressive import ProgressiveMatcher
from docform.engine.replacements import mark_replacements
from docform.engine.token_kinds import UserOnly, set_aside_user_only
from docform.engine.values import differing_parts, same_value
from docform.errors import DocformError


def plan_from_matcher(
    matcher: ProgressiveMatcher,
    manifests: ManifestView,
    live: LiveState,
    organization: str,
    prune: Mapping[str, bool],
    user_only: UserOnly | None = None,
) -> Plan:
    """The changes that make ``live`` match ``manifests``, in an order safe to apply, once
    ``matcher`` has matched every kind of ``live``; ``user_only`` tells the calls the service
    takes from a user's token only (`docform.engine.token_kinds`)."""
    unread = unread_with_referrers(matcher.order, live.unreadable)
    matchings = matcher.matchings(unread)
    index = matcher.index
    settings = manifests.settings
    ignore = IgnoreRules(settings.ignore, settings.ignore_locations)
    plan = Plan(organization=organization, ignored=ignore.set_aside(matchings, _same_field))
    deletes: list[Change] = []
    for kind, matching in matchings:
        if kind.name in unread:
            continue
        if isinstance(kind, SetsAside):
            plan.notes += kind.set_aside(matching)
        plan.changes.extend(_kind_changes(kind, matching, index))
        if isinstance(kind, OrdersSiblings):
            plan.changes.extend(kind.order_changes(matching.desired, live.of(kind.name), index))
        for obs in matching.unmatched:
            if obs.id in matching.twins:
                deletes.append(
                    _delete_change(kind, obs, twin_delete_reason(kind.name, matching.twins[obs.id]))
                )
            elif kind.prune_setting is None or prune.get(kind.prune_setting, False):
                deletes.append(_delete_change(kind, obs))
            else:
                plan.unmanaged.append(Unmanaged(kind.name, obs.id, obs.title))
        plan.live_objects.update({p.desired.address: p.observed.raw for p in matching.pairs})
        plan.unmatched_objects.update(
            {unmatched_address(kind.name, obs): obs.raw for obs in matching.unmatched}
        )
        if kind.locked:
            plan.identities.update(_identities(kind, matching))
        _record_sources(plan, matching)
        plan.notes += matching.notes
    plan.fingerprints = matcher.fingerprints(matchings)
    plan.addresses = _known_addresses(matchings)
    plan.warnings = _ignore_warnings(ignore, matchings, plan)
    plan.changes.extend(reversed(deletes))
    plan.changes.extend(order_handovers(plan.changes, matchings, index))
    refuse_changes_without_calls(plan.changes, {kind.name: kind for kind, _ in matchings})
    link_dependencies(plan.changes, matchings)
    plan.changes = topological_order(plan.changes, lambda c: c.key, lambda c: c.depends_on)
    ignore.drop_changes(plan)
    _drop_unread(plan, unread)
    set_aside_user_only(plan, live.refused_kind, user_only)
    _name_changes(plan.changes, matchings)
    plan.live_counts = {k.name: len(m.pairs) + len(m.unmatched) for k, m in matchings}
    plan.violations, listed, plan.gone = judge_deletes(plan.changes, matchings)
    plan.unmanaged = [u for u in plan.unmanaged if u.address not in listed]
    by_name = {kind.name: matching for kind, matching in matchings}
    for kind, matching in matchings:
        if isinstance(kind, HasRails):
            own = [c for c in plan.changes if c.kind == kind.name]
            plan.violations += kind.rail_violations(matching, own)
        if isinstance(kind, HasRailsAcrossKinds):
            plan.violations += kind.rails_across_kinds(by_name, plan.changes)
        if isinstance(kind, WarnsAcrossKinds):
            plan.warnings += kind.warnings_across_kinds(by_name, plan.changes)
    mark_replacements(plan, matchings)
    _audience(plan, matchings)
    plan.matchings = [(kind.name, matching) for kind, matching in matchings]
    return plan


def _audience(plan: Plan, matchings: Sequence[tuple[Kind, Matching]]) -> None:
    """The audience diff (`docform.engine.audience`) from the facts the kinds give of the live
    side and of the planned side, and the doors apply checks (`docform.engine.doors`)."""

    def of(changes: Sequence[Change], changed: set[str] | None) -> tuple[list[Any], Any]:
        deleted = {c.address for c in changes if c.action == "delete"}
        sides = kind_sides(matchings, deleted, changed)
        if all_as_they_stand(sides):
            return [], DoorCheck()
        per_kind = list(sides_facts(sides))
        old = [f for _, facts, _ in per_kind for f in facts]
        new = [f for _, _, facts in per_kind for f in facts]
        return plan_audience(old, new), door_check(per_kind)

    plan.audience, plan.doors = of(plan.changes, None)
    plan.audience_of = lambda kept: of(kept, {c.address for c in kept})


def unread_with_referrers(order: Sequence[Kind], unreadable: Mapping[str, str]) -> dict[str, str]:
    """The kinds not read, with why, and the kinds that refer to one of them (in ``order``,
    reference order, so transitively): a live object of such a kind names one that was not
    read, so it cannot be told apart from a manifest entry's, nor kept or deleted safely."""
    unread = dict(unreadable)
    for kind in order:
        blocked = [r for r in kind.references if r != kind.name and r in unread]
        if blocked and kind.name not in unread:
            plural = kind.plural
            unread[kind.name] = f"{plural}: refer to {', '.join(blocked)}, not read"
    return unread


def _drop_unread(plan: Plan, unreadable: Mapping[str, str]) -> None:
    """Nothing is planned for a kind that could not be read (its live objects are unknown, not
    absent), nor for what depends on it; the plan says so (``not_planned``)."""
    plan.not_planned = dict(unreadable)
    if not unreadable:
        return
    dropped: set[str] = set()
    for change in plan.changes:  # in dependency order: what a change needs comes before it
        if change.kind in unreadable or dropped.intersection(change.depends_on):
            dropped.add(change.key)
    plan.changes = [c for c in plan.changes if c.key not in dropped]


class EmptyChangeError(DocformError):
    """A kind planned a change with no call to make it: applying it would change nothing, and
    every later plan would show it again."""


def refuse_changes_without_calls(changes: Sequence[Change], kinds: Mapping[str, Kind]) -> None:
    """Refuses changes without calls but those only the service's app makes (`MadeInTheApp`)."""
    empty = [
        f"{c.address} ({c.action})"
        for c in changes
        if not c.calls and not _made_in_the_app(kinds.get(c.kind), c)
    ]
    if empty:
        raise EmptyChangeError(
            "docform planned changes that no API call makes: " + ", ".join(empty) + "; this "
            "is a bug in docform, please report it with the manifests of these objects"
        )


def _made_in_the_app(kind: Kind | None, change: Change) -> bool:
    return isinstance(kind, MadeInTheApp) and kind.made_in_the_app(change)


def _kind_changes(kind: Kind, matching: Matching, index: AddressIndex) -> list[Change]:
    changes: list[Change] = []
    for d in matching.creates:
        changes.append(_create_change(kind, d, index))
    for pair in matching.restores:
        changes.append(_restore_change(kind, pair))
        changes.extend(_diff_changes(kind, pair, index))
    for pair in matching.pairs:
        changes.extend(_diff_changes(kind, pair, index))
    return changes


def _record_sources(plan: Plan, matching: Matching) -> None:
    entries = [*matching.creates, *(p.desired for p in (*matching.pairs, *matching.restores))]
    changed = {c.address for c in plan.changes}
    plan.secret_sources.update(secret_sources.wanted_sources(entries))
    plan.kept_sources.update(secret_sources.kept_sources(entries, changed))


def _identities(kind: Kind, matching: Matching) -> dict[str, str]:
    """What docform.lock records for each matched entry: its live id, or for a kind with a
    `lock_field`, the value the lock already holds (a change of it records the new one)."""
    pairs = (*matching.pairs, *matching.restores)
    if kind.lock_field is None:
        return {p.desired.address: p.observed.id for p in pairs}
    return {p.desired.address: p.desired.locked_id for p in pairs if p.desired.locked_id}


def _create_change(kind: Kind, d: Desired, index: AddressIndex) -> Change:
    null_means = kind.rules.null_means
    return Change(
        lock_after=d.fields.get(kind.lock_field) if kind.lock_field else None,
        address=d.address,
        kind=kind.name,
        action="create",
        action_reason=(
            kind.create_reason(d)
            if isinstance(kind, ExplainsCreates)
            else default_create_reason(kind, d)
        ),
        before=None,
        after=dict(d.fields),
        fields=[
            FieldChange(k, None, v, k in d.sensitive, null_means=null_means.get(k))
            for k, v in d.fields.items()
            if v is not None or k in null_means
        ],
        calls=kind.create_calls(d, index.resolve),
        sensitive=sorted(d.sensitive),
    )


def _restore_change(kind: Kind, pair: Pair) -> Change:
    obs = pair.observed
    assert isinstance(kind, Restores), f"only a kind that restores matches a deleted {kind.name}"
    return Change(
        address=pair.desired.address,
        kind=kind.name,
        action="restore",
        action_reason=f"the {kind.name} {obs.id} it is tied to was deleted and can still be "
        "restored",
        before=None,
        after={k: obs.fields.get(k) for k in pair.desired.fields},
        calls=kind.restore_calls(obs),
        live_id=obs.id,
        sensitive=sorted(obs.sensitive | pair.desired.sensitive),
    )


def _delete_change(kind: Kind, obs: Observed, reason: str | None = None) -> Change:
    return Change(
        address=unmatched_address(kind.name, obs),
        kind=kind.name,
        action="delete",
        action_reason=reason
        or (
            kind.delete_reason(obs)
            if isinstance(kind, ExplainsDeletes)
            else default_delete_reason(kind, obs)
        ),
        before=dict(obs.fields),
        after=None,
        calls=kind.delete_calls(obs),
        live_id=obs.id,
        sensitive=sorted(obs.sensitive),
        loses=kind.lost_with(obs) if isinstance(kind, TellsWhatIsLost) else None,
    )


def _diff_changes(kind: Kind, pair: Pair, index: AddressIndex) -> list[Change]:
    d, obs = pair.desired, pair.observed
    observed = obs.fields
    if kind.lock_field is not None:
        observed = {**observed, kind.lock_field: d.locked_id}
    rules = kind.rules
    by_action: dict[str, dict[str, Any]] = {}
    settled = secret_sources.settled(d, obs)
    for name, want in d.fields.items():
        if name in settled:
            continue
        # What the service never shows is only a placeholder on the live side.
        have = secret_sources.compared(name, observed.get(name), obs.unread)
        want = secret_sources.compared(name, want, settled)
        # Most fields of most pairs are equal: settled without a call (19,000 pairs a plan).
        if _same_field(kind, name, want, have):
            continue
        if name in rules.immutable:
            raise rules.immutable[name].refusal(d, obs, name)
        by_action.setdefault(rules.actions.get(name, "update"), {})[name] = d.fields[name]
    changes = []
    for action, changed in by_action.items():
        changes.append(
            Change(
                address=d.address,
                kind=kind.name,
                action=action,
                action_reason=_reason(kind, pair, action),
                before={k: observed.get(k) for k in changed},
                after=dict(changed),
                fields=_field_changes(kind, changed, observed, d.sensitive, obs.sensitive),
                calls=kind.change_calls(ChangeContext(action, obs, d, changed, index.resolve)),
                live_id=obs.id,
                sensitive=sorted(set(changed) & d.sensitive),
                sensitive_before=sorted(set(changed) & obs.sensitive),
                lock_after=changed.get(kind.lock_field) if kind.lock_field else None,
            )
        )
    return changes


def _reason(kind: Kind, pair: Pair, action: str) -> str:
    matched_by = {
        "id": "its pinned id",
        "lock": "its id in docform.lock",
        "key": "its natural key",
        "formerly": "a key listed in formerly",
        "moved": "its key in another container (moved)",
        "unfinished": "what an interrupted create of it left",
    }[pair.reason]
    return f"live {kind.name} {pair.observed.id}, matched by {matched_by}, differs"


def _same_field(kind: Kind, name: str, want: Any, have: Any) -> bool:
    if want == have:
        return True
    if isinstance(kind, ComparesOwnWay):
        return kind.same_field(name, want, have)
    return same_value(want, have, unordered=name in kind.rules.unordered)


def _field_changes(
    kind: Kind,
    changed: Mapping[str, Any],
    before: Mapping[str, Any],
    sensitive: frozenset[str],
    sensitive_before: frozenset[str],
) -> list[FieldChange]:
    """Each changed field, or each part of it that changes when it is nested (secrets whole)."""
    out: list[FieldChange] = []
    for name, after in changed.items():
        prior = before.get(name)
        if name in sensitive or name in sensitive_before:
            out.append(FieldChange(name, prior, after, name in sensitive, name in sensitive_before))
            continue
        null_means = kind.rules.null_means.get(name)
        out += [
            FieldChange(path, old, new, null_means=null_means)
            for path, old, new in (
                kind.changed_parts(name, prior, after)
                if isinstance(kind, ComparesOwnWay)
                else differing_parts(name, prior, after)
            )
        ]
    return out


def _known_addresses(matchings: Sequence[tuple[Kind, Matching]]) -> set[str]:
    """Every entry's address and every live object's (``KIND.~ID`` when unmanaged)."""
    known: set[str] = set()
    for kind, matching in matchings:
        known |= {unmatched_address(kind.name, obs) for obs in matching.unmatched}
        known |= {d.address for d in matching.creates}
        known |= {p.desired.address for p in (*matching.pairs, *matching.restores)}
    return known


def _ignore_warnings(
    ignore: IgnoreRules, matchings: Sequence[tuple[Kind, Matching]], plan: Plan
) -> list[str]:
    """A warning for each ``ignore:`` pattern that matched nothing this plan could see."""
    used = {item.pattern for item in plan.ignored}
    if all(pattern in used for pattern in ignore.patterns):
        return []  # nothing to look for: skip naming every field of every object
    addresses = set(plan.addresses)
    fields = set()
    for kind, matching in matchings:
        addresses |= {f"{address_head(kind.name)}.{obs.title}" for obs in matching.unmatched}
        for desired in matching.creates:
            fields |= {f"{desired.address}.{name}" for name in desired.fields}
        for pair in (*matching.pairs, *matching.restores):
            names = {*pair.desired.fields, *pair.observed.fields}
            fields |= {f"{pair.desired.address}.{name}" for name in names}
    return ignore.unused(addresses, fields, used=used)


def _name_changes(changes: Sequence[Change], matchings: Sequence[tuple[Kind, Matching]]) -> None:
    """Give each change the human key of its object: the last part of its natural key (an
    email, a title, a path, a slug, a label), as the manifests write it when they do."""
    keys: dict[str, Any] = {}
    for kind, matching in matchings:
        for obs in matching.unmatched:
            keys[unmatched_address(kind.name, obs)] = obs.key
        for pair in (*matching.pairs, *matching.restores):
            keys[pair.desired.address] = pair.desired.key
        for desired in matching.creates:
            keys[desired.address] = desired.key
    for change in changes:
        key = keys.get(change.address)
        # A key that is the live id (the organization's) tells a person nothing more.
        if key and isinstance(key[-1], str) and key[-1] and key[-1] != change.live_id:
            change.human_key = key[-1]
