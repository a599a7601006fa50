"""The shared base of kinds the API manages as plain REST resources.

Such a kind is created by a POST to a list path, changed by a PATCH of its object path, moved
by a call of its own and deleted by a DELETE of its object path. Some of its fields are not
taken by the create: a PATCH right after the create sets them, against the id the create
answers (``${address.id}`` in the plan). A kind built on `RestKind` states its paths and field
lists; a hook says what differs (a body field the lists cannot name, a call after the create).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from docform.engine.capabilities import FinishesOnRefusal
from docform.engine.kind import ChangeContext, Desired, Kind, Observed, Resolve
from docform.engine.plan import Call, Change, Placeholder
from docform.kind_framework.marks import site_id

NO_OP_MOVE = re.compile(r"would not result in any update", re.IGNORECASE)

PathValues = dict[str, str]
"""What a path template's ``{site}`` and the like stand for (``{org}`` and ``{id}`` aside)."""


def is_no_op_move(change: Change, status: int | None, message: str) -> bool:
    """A move to where the object already is may answer 409 (docs/service.md): done, not
    failed (`FinishesOnRefusal.already_done` of the kinds that move)."""
    return change.action == "move" and status == 409 and bool(NO_OP_MOVE.search(message))


def body_of(values: Mapping[str, Any], resolve: Resolve, names: Iterable[str]) -> dict[str, Any]:
    """The request body of the fields ``names`` that ``values`` holds, references resolved."""
    return {name: resolve(values[name]) for name in names if name in values}


def created(address: str, field: str = "id") -> Placeholder:
    return Placeholder(address, field)


def id_in_path(value: str | Placeholder) -> str:
    """A live id, or ``${address.id}`` when the object is created earlier in the apply."""
    return value.in_path() if isinstance(value, Placeholder) else str(value)


def site_prefix(org_id: str, site_id: str | Placeholder) -> str:
    return f"/orgs/{org_id}/sites/{id_in_path(site_id)}"


class RestKind(Kind, FinishesOnRefusal):
    """A kind whose calls are built from path templates and field lists.

    Templates hold ``{org}`` (the organization's id), ``{id}`` (the object's live id, or the
    placeholder of the one the apply creates) and what `path_values` adds.
    """

    create_path: ClassVar[str]
    """Where the create POST goes: ``/orgs/{org}/collections``."""
    object_path: ClassVar[str]
    """The object's own path, for PATCH and DELETE: ``/collections/{id}``."""
    created_with: ClassVar[tuple[str, ...]] = ()
    """Fields the create POST takes."""
    set_after_create: ClassVar[tuple[str, ...]] = ()
    """Fields the create does not take: a PATCH right after it sets those the entry gives."""
    patched: ClassVar[tuple[str, ...]] = ()
    """Fields a change sends in its PATCH."""
    parent_field: ClassVar[str | None] = None
    """The field naming the container the object sits in, sent as ``parent`` by the create
    (when set) and by ``POST {object_path}/move``."""

    def already_done(self, change: Change, status: int | None, message: str) -> bool:
        return is_no_op_move(change, status, message)

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        body = self.create_body(desired, resolve)
        at = self.path_values(desired, resolve)
        calls = [Call("POST", self.path(self.create_path, at), body)]
        settings = self.settings_after_create(desired, resolve)
        if settings:
            made = created(desired.address)
            calls.append(Call("PATCH", self.path(self.object_path, at, made), settings))
        return calls + self.after_create(desired, resolve, at)

    def change_calls(self, change: ChangeContext) -> list[Call]:
        at = self.path_values(change.desired, change.resolve)
        if change.action == "move":
            return [self.move_call(change, at)]
        body = self.patch_body(change.changed, change.resolve)
        path = self.path(self.object_path, at, change.observed.id)
        calls = [Call("PATCH", path, body)] if body else []
        return calls + self.after_change(change, at)

    def delete_calls(self, observed: Observed) -> list[Call]:
        at = self.live_path_values(observed)
        return [Call("DELETE", self.path(self.object_path, at, observed.id))]

    def path(
        self, template: str, at: PathValues, object_id: str | Placeholder | None = None
    ) -> str:
        """``template`` filled in; an id is a live id or the placeholder of a created one."""
        object_path = {} if object_id is None else {"id": id_in_path(object_id)}
        return template.format(org=self.org_id, **at, **object_path)

    # What a kind overrides where it differs from the plain resource.

    def path_values(self, desired: Desired, resolve: Resolve) -> PathValues:
        """The template values of a desired object (a site-scoped kind: its site)."""
        return {}

    def live_path_values(self, observed: Observed) -> PathValues:
        """The template values of a live object, for its deletion."""
        return {}

    def create_body(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        body = body_of(desired.fields, resolve, self.created_with)
        parent = desired.fields.get(self.parent_field) if self.parent_field else None
        if parent is not None:
            body["parent"] = resolve(parent)
        return body

    def settings_after_create(self, desired: Desired, resolve: Resolve) -> dict[str, Any]:
        return body_of(desired.fields, resolve, self.set_after_create)

    def after_create(self, desired: Desired, resolve: Resolve, at: PathValues) -> list[Call]:
        """Calls after the create and its settings (publish a new site...)."""
        return []

    def patch_body(self, changed: Mapping[str, Any], resolve: Resolve) -> dict[str, Any]:
        return body_of(changed, resolve, self.patched)

    def after_change(self, change: ChangeContext, at: PathValues) -> list[Call]:
        """Calls after a change's PATCH, for fields a PATCH of the object does not set."""
        return []

    def move_call(self, change: ChangeContext, at: PathValues) -> Call:
        assert self.parent_field is not None, f"{self.name} moves by its parent field"
        body = {"parent": change.resolve(change.changed[self.parent_field])}
        return Call("POST", self.path(self.object_path + "/move", at, change.observed.id), body)


class SiteRestKind(RestKind):
    """A REST kind inside a site: its templates start with ``{site}``
    (``/orgs/{org}/sites/{site id}``), the site its ``site`` field names, or for a live
    object the site it was listed in."""

    def path_values(self, desired: Desired, resolve: Resolve) -> PathValues:
        return {"site": site_prefix(self.org_id, resolve(desired.fields["site"]))}

    def live_path_values(self, observed: Observed) -> PathValues:
        return {"site": site_prefix(self.org_id, site_id(observed.raw))}
