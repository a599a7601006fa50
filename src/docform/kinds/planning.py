"""Small pieces several kinds use to plan: references, roles, bodies and site paths."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from docform.engine.kind import AddressIndex, Desired, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.plan import Placeholder, SecretRef
from docform.kinds.base import BoundModel
from docform.kinds.fields import role_value

NO_OP_MOVE = re.compile(r"would not result in any update", re.IGNORECASE)


def is_no_op_move(change: Any, status: int | None, message: str) -> bool:
    """A move to where the object already is may answer 409 (docs/service.md): done, not
    failed (`Kind.already_done` of the kinds that move)."""
    return change.action == "move" and status == 409 and bool(NO_OP_MOVE.search(message))


def ref(kind: str, name: str | None) -> Ref | None:
    """The reference an entry makes to another entry, by manifest name."""
    return None if name is None else Ref(f"{kind}.{name}")


def member_ref(email: str) -> Ref:
    return Ref(f"member.{email.lower()}")


def level_value(level: str | None) -> str | None:
    """``guest`` is the API's null; ``inherit`` and roles are sent as written."""
    return role_value(level)


def location(entry: BoundModel) -> str:
    return str(entry.location)


def entry_desired(
    e: Any,
    fields: dict[str, Any],
    key: Any,
    *,
    scope: tuple[Any, ...] = (),
    former: Callable[[str], Any] = lambda name: name,
    refs: Mapping[str, Callable[[str | None], Any]] | None = None,
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
    e: Any,
    natural: tuple[Any, ...],
    item: str | Mapping[str, str | None],
    former: Callable[[str], Any],
    refs: Mapping[str, Callable[[str | None], Any]],
) -> tuple[Any, ...]:
    """One ``formerly`` item of ``e`` as a natural key (see `entry_desired`)."""
    parts = list(natural)
    if isinstance(item, str):
        parts[-1] = former(item)
        return tuple(parts)
    names = e.former_key_fields
    first = len(natural) - len(names)
    for name, value in item.items():
        convert = refs.get(name, former)
        parts[first + names.index(name)] = convert(value)
    return tuple(parts)


def merge_rules_desired(rules: Any) -> dict[str, Any] | None:
    """Merge rules with member emails turned into member references (the API takes user ids)."""
    if rules is None:
        return None
    body: dict[str, Any] = {"type": rules.type}
    if rules.rules is not None:
        body["rules"] = [_rule_desired(r) for r in rules.rules]
    return body


def _rule_desired(rule: Any) -> dict[str, Any]:
    out = rule.model_dump(exclude_none=True)
    if rule.users is not None:
        out["users"] = [member_ref(email) for email in rule.users]
    return out


def merge_rules_observed(raw: Any, index: AddressIndex) -> dict[str, Any] | None:
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


def body_of(values: Mapping[str, Any], resolve: Resolve, names: Iterable[str]) -> dict[str, Any]:
    """The request body of the fields ``names`` that ``values`` holds, references resolved."""
    return {name: resolve(values[name]) for name in names if name in values}


def created(address: str, field: str = "id") -> Placeholder:
    return Placeholder(address, field)


def secret(address: str, field: str) -> SecretRef:
    return SecretRef(f"{address}.{field}")


def site_prefix(org_id: str, site_id: Any) -> str:
    site = site_id.in_path() if isinstance(site_id, Placeholder) else site_id
    return f"/orgs/{org_id}/sites/{site}"


def id_in_path(value: Any) -> str:
    """A live id, or ``${address.id}`` when the object is created earlier in the apply."""
    return value.in_path() if isinstance(value, Placeholder) else str(value)


async def read_per_site(reader: LiveReader, kind: str, org_id: str, suffix: str) -> list[dict]:
    """One list per managed site (``section-groups``, ``sections``, ``site-spaces``), each item
    tagged with its site's id as ``_site``."""
    sites = reader.managed("site")
    lists = await asyncio.gather(
        *(reader.list(kind, f"{site_prefix(org_id, site['id'])}/{suffix}") for site in sites)
    )
    return [
        {**item, "_site": site["id"]}
        for site, items in zip(sites, lists, strict=True)
        for item in items
    ]


def site_ref(index: AddressIndex, raw: Mapping[str, Any]) -> Any:
    """The managed site a structure item belongs to, or None when no manifest manages it."""
    # What lies inside an unmanaged site is not the manifests' business: deleting the site
    # takes it along.
    return index.managed_ref("site", raw["_site"])
