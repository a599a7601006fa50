"""An integration installed on a space or a site: the ``spaces:`` and ``sites:`` of an
``integrations:`` entry, each with its own configuration.

The entry lists every space (site) the integration is installed on: one it leaves out is
uninstalled there, and an entry without ``spaces:`` (``sites:``) leaves them unmanaged and
unread. Only the installations of managed integrations whose entries write them are listed:
two lists per such installation, none for the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, cast

from docform.engine.capabilities import ExplainsDeletes
from docform.engine.kind import AddressIndex, ChangeContext, Desired, Kind, Observed, Ref, Resolve
from docform.engine.live import LiveReader
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.export.model import Exported, LiveRef
from docform.kind_framework import configuration
from docform.kind_framework.configuration import ComparesConcealed
from docform.kind_framework.declaration import Declaration, Reads
from docform.kind_framework.rest import id_in_path
from docform.kinds.integration import (
    IntegrationEntry,
    TargetEntry,
    declared_configuration,
    declared_secrets_of,
    integration_name,
)

#: Target kind -> (the entry's field, the list's path segment, the create body's id field).
TARGETS = {"space": ("spaces", "spaces", "space"), "site": ("sites", "sites", "siteId")}
LISTS = "/integrations/*/installations/*"
TARGET_FIELDS = ("installation", "configuration")


class IntegrationTargetKind(Kind, ComparesConcealed, ExplainsDeletes):
    """Space and site installations: POST to install, PATCH their configuration, DELETE."""

    concealed_fields = frozenset({"configuration"})
    name = "integration_target"
    plural = "integration installations on spaces and sites"
    prune_setting = None
    declaration = Declaration(
        position=153,
        reads=Reads(
            fields={
                f"{LISTS}/spaces": (*TARGET_FIELDS, "space"),
                f"{LISTS}/sites": (*TARGET_FIELDS, "site"),
            },
            list_names=("integrations", "installations", "spaces", "sites"),
        ),
    )
    references = ("integration", "space", "site")
    read_after = ("integration",)
    renamable = False
    guard_creates = False  # the key is the target: a second install finds the first
    locked = False
    unmanaged_go_with_container = True

    async def read(self, reader: LiveReader, wanted_ids: Sequence[str]) -> list[dict[str, Any]]:
        lists = [
            (raw, target)
            for raw, desired in reader.managed_with_entries("integration")
            for target, (field, _, _) in TARGETS.items()
            if desired is None or getattr(desired.entry, field) is not None
        ]
        answers = await asyncio.gather(
            *(reader.list(self.name, self._list_path(raw, target)) for raw, target in lists)
        )
        return [
            _tagged(item, raw, target)
            for (raw, target), items in zip(lists, answers, strict=True)
            for item in items
        ]

    def _list_path(self, installation: Mapping[str, Any], target: str) -> str:
        name, segment = integration_name(installation), TARGETS[target][1]
        return f"/integrations/{name}/installations/{installation['id']}/{segment}"

    def desired(self, manifests: ManifestView) -> list[Desired]:
        found = []
        for entry in manifests.section("integrations").values():
            for target, (field, _, _) in TARGETS.items():
                for name, written in (getattr(entry, field) or {}).items():
                    found.append(self._desired(entry, target, name, written))
        return found

    def _desired(
        self, entry: IntegrationEntry, target: str, name: str, written: TargetEntry
    ) -> Desired:
        on, what = Ref(entry.address), Ref(f"{target}.{name}")
        fields = {}
        if written.configuration is not None:
            fields["configuration"] = configuration.wanted(written.configuration)
        return Desired(
            address=target_address(on, target, what),
            key=(on, target, what),
            fields=fields,
            location=str(entry.location),
            requires=frozenset({on.address, what.address}),
            secret_sources=configuration.sources(
                written.configuration, "configuration", entry.rotate
            ),
            entry=(entry, written),
        )

    def observe(self, raw: Mapping[str, Any], index: AddressIndex) -> Observed | None:
        installation, placed = _installed_on(raw)
        on = index.managed_ref(installation.kind, installation.id)
        if on is None:
            return None
        target = placed.kind
        what = index.ref(target, placed.id)
        assert what is not None
        write_only = frozenset(raw["_write_only"])
        unread = configuration.unread(raw.get("configuration"), write_only, "configuration")
        live = configuration.live(raw.get("configuration"), _secrets(raw))
        configuration.held_unread(live, unread, "configuration")
        return Observed(
            id=raw["id"],
            key=(on, target, what),
            fields={"configuration": live},
            title=f"{target} {placed.id}",
            raw=raw,
            address=target_address(on, target, what),
            unread=unread,
        )

    def delete_reason(self, observed: Observed) -> str:
        return f"{observed.key[0]} does not list {observed.title}"

    def create_calls(self, desired: Desired, resolve: Resolve) -> list[Call]:
        on, target, what = desired.key
        entry, written = desired.entry
        target_id = resolve(what)
        body = {TARGETS[target][2]: target_id}
        calls = [Call("POST", self._base(entry, on, target, resolve), body)]
        if written.configuration is not None:
            calls.append(self._patch(desired, f"{calls[0].path}/{id_in_path(target_id)}"))
        return calls

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return [self._patch(change.desired, self._object_path(change.observed))]

    def _patch(self, desired: Desired, path: str) -> Call:
        _, written = desired.entry
        source = f"{desired.address}.configuration"
        sent = configuration.body(written.configuration, source)
        return Call("PATCH", path, {"configuration": sent})

    def delete_calls(self, observed: Observed) -> list[Call]:
        return [Call("DELETE", self._object_path(observed))]

    def _base(self, entry: IntegrationEntry, on: Ref, target: str, resolve: Resolve) -> str:
        installation, segment = id_in_path(resolve(on)), TARGETS[target][1]
        return f"/integrations/{entry.integration}/installations/{installation}/{segment}"

    def _object_path(self, observed: Observed) -> str:
        installation, placed = _installed_on(observed.raw)
        return (
            f"/integrations/{observed.raw['integration']}/installations/{installation.id}/"
            f"{TARGETS[placed.kind][1]}/{placed.id}"
        )

    def export_entry(self, raw: Mapping[str, Any]) -> Exported:
        installation, placed = _installed_on(raw)
        target = placed.kind
        written: dict[str, Any] = {}
        prefix = f"{target}_{placed.id}"
        config = configuration.exported(raw.get("configuration"), prefix, _secrets(raw))
        if config:
            written["configuration"] = config
        return Exported(
            "integrations",
            self.name,
            raw["id"],
            "",
            # Keyed by the target, written as its manifest name once names are known.
            cast(dict[str, Any], {placed: written}),
            within=installation,
            nested_as=TARGETS[target][0],
            part=True,
        )


def target_address(on: Ref, target: str, what: Ref | Any) -> str:
    """``integration.analytics.spaces.handbook``; ``...spaces.~ID`` for a space no entry names."""
    name = what.address.split(".", 1)[1] if isinstance(what, Ref) else f"~{what.id}"
    return f"{on.address}.{TARGETS[target][0]}.{name}"


def _tagged(
    item: Mapping[str, Any], installation: Mapping[str, Any], target: str
) -> dict[str, Any]:
    """An installation on a space or site as listed, with the organization installation it
    belongs to and an id made of both (it has none of its own)."""
    value, secrets = item[target], declared_secrets_of(installation, target)
    declared = declared_configuration(installation, target)
    target_id = value["id"] if isinstance(value, Mapping) else value
    return {
        **item,
        "id": f"{installation['id']}/{target}/{target_id}",
        "integration": integration_name(installation),
        "_installation": installation["id"],
        "_target": target,
        "_target_id": target_id,
        # A list: raws are kept as JSON (saved plans, fingerprints).
        "_secrets": None if secrets is None else sorted(secrets),
        "_write_only": sorted(configuration.declared_write_only(declared)),
    }


def _installed_on(raw: Mapping[str, Any]) -> tuple[LiveRef, LiveRef]:
    """The organization installation a listed target belongs to, and the space or site it is
    (`_tagged`)."""
    return LiveRef("integration", raw["_installation"]), LiveRef(raw["_target"], raw["_target_id"])


def _secrets(raw: Mapping[str, Any]) -> configuration.Secrets:
    listed = raw.get("_secrets")
    return None if listed is None else frozenset(listed)
