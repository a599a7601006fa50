"""Small pieces several kinds use to state their entries: references, roles, merge rules,
secrets, and the per-site reading of a site's parts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from docform.engine.kind import AddressIndex, Desired, Ref
from docform.engine.live import LiveReader
from docform.engine.plan import SecretRef
from docform.kind_framework.marks import site_id, under_site
from docform.kind_framework.rest import site_prefix
from docform.model.entry import BoundModel, Entry, address_head
from docform.model.fields import MergeRule, MergeRules, role_value


def ref(kind: str, name: str | None) -> Ref | None:
    """The reference an entry makes to another entry, by manifest name."""
    return None if name is None else Ref(f"{address_head(kind)}.{name}")


def member_ref(email: str) -> Ref:
    return Ref(f"member.{email.lower()}")


def level_value(level: str | None) -> str | None:
    """``guest`` is the API's null; ``inherit`` and roles are sent as written."""
    return role_value(level)


def location(entry: BoundModel) -> str:
    return str(entry.location)


def entry_desired(
    e: Entry,
    fields: dict[str, Any],
    key: object,
    *,
    scope: tuple[object, ...] = (),
    former: Callable[[str], object] = lambda name: name,
    refs: Mapping[str, Callable[[str | None], object]] | None = None,
    **extra: Any,
) -> Desired:
    """An entry as the engine compares it: its natural key is ``(*scope, key)``.

    Each item of ``formerly`` is a former natural key: a string is a former ``key`` in the same
    scope; a mapping gives former values of some of the entry's ``former_key_fields`` (the last
    parts of the key) and the others stay as they are now. ``refs`` turns the manifest name of
    a container (a collection, a section) into the reference the key holds."""
    natural = (*scope, key)
    return Desired(
        address=e.address,
        key=natural,
        fields=fields,
        location=location(e),
        pinned_id=e.id,
        formerly=[former_key(e, natural, item, former, refs or {}) for item in e.formerly]
        + extra.pop("formerly", []),
        protect=e.protect,
        key_fields=e.former_key_fields,
        entry=extra.pop("entry", e),
        **extra,
    )


def former_key(
    e: Entry,
    natural: tuple[object, ...],
    item: str | Mapping[str, str | None],
    former: Callable[[str], object],
    refs: Mapping[str, Callable[[str | None], object]],
) -> tuple[object, ...]:
    """One ``formerly`` item of ``e`` as a natural key (see `entry_desired`)."""
    parts = list(natural)
    if isinstance(item, str):
        parts[-1] = former(item)
        return tuple(parts)
    names = e.former_key_fields
    first = len(natural) - len(names)
    for name, value in item.items():
        at = first + names.index(name)
        if name in refs:
            parts[at] = refs[name](value)
        else:
            # Only the entry's own name field has no `refs`, and its model refuses a null there.
            assert value is not None, f"a former {name} of {e.address} is null"
            parts[at] = former(value)
    return tuple(parts)


def merge_rules_desired(rules: MergeRules | None) -> dict[str, Any] | None:
    """Merge rules with member emails turned into member references (the API takes user ids)."""
    if rules is None:
        return None
    body: dict[str, Any] = {"type": rules.type}
    if rules.rules is not None:
        body["rules"] = [_rule_desired(r) for r in rules.rules]
    return body


def _rule_desired(rule: MergeRule) -> dict[str, Any]:
    out = rule.model_dump(exclude_none=True)
    if rule.users is not None:
        out["users"] = [member_ref(email) for email in rule.users]
    return out


def merge_rules_observed(raw: object, index: AddressIndex) -> dict[str, Any] | None:
    if not isinstance(raw, Mapping):
        return None
    body: dict[str, Any] = {"type": raw.get("type")}
    if "rules" in raw:
        body["rules"] = [_rule_observed(r, index) for r in raw.get("rules") or []]
    return body


def _rule_observed(rule: Mapping[str, Any], index: AddressIndex) -> dict[str, Any]:
    out = {k: v for k, v in rule.items() if v is not None}
    if "users" in out:
        out["users"] = [index.ref("member", uid) for uid in out["users"]]
    return out


def secret(address: str, field: str) -> SecretRef:
    return SecretRef(f"{address}.{field}")


async def read_per_site(
    reader: LiveReader, kind: str, org_id: str, suffix: str
) -> list[dict[str, Any]]:
    """One list per managed site (``section-groups``, ``sections``, ``site-spaces``), each item
    marked with its site (`marks.under_site`)."""
    sites = reader.managed("site")
    lists = await asyncio.gather(
        *(reader.list(kind, f"{site_prefix(org_id, site['id'])}/{suffix}") for site in sites)
    )
    return [
        under_site(item, site["id"])
        for site, items in zip(sites, lists, strict=True)
        for item in items
    ]


def site_ref(index: AddressIndex, raw: Mapping[str, Any]) -> Ref | None:
    """The managed site a structure item belongs to, or None when no manifest manages it."""
    # What lies inside an unmanaged site is not the manifests' business: deleting the site
    # takes it along.
    return index.managed_ref("site", site_id(raw))
