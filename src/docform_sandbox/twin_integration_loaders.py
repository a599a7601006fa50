"""Twin loaders of the organization's integration installations, the spaces and sites each is
installed on, and the published integrations they install (`docform_sandbox.twin_registry`
says what a loader does). What the service never answers (a write-only setting) is not known
to the twin either: its configurations hold what the answers show."""

from __future__ import annotations

from typing import Any

from docform_sandbox.routes.integration_catalogue import CATALOGUE
from docform_sandbox.routes.integration_targets import target_id
from docform_sandbox.routes.integrations import KIND as INSTALLATION
from docform_sandbox.routes.integrations import TARGET_KIND
from docform_sandbox.store import Store
from docform_sandbox.twin_registry import (
    Loader,
    NotHeld,
    in_org,
    insert_new,
    items_of,
    loads,
    under,
)

INSTALLATION_FIELDS = ("id", "space_selection", "site_selection", "configuration",
                       "externalIds", "createdAt", "updatedAt")  # fmt: skip


@loads("/orgs/{}/installations", watch=lambda ids, _: [in_org(INSTALLATION, ids[0])])
def _installations(store: Store, ids: tuple[str, ...], body: Any) -> None:
    (org_id,) = ids
    for item in items_of(body):
        installation = item["installation"]
        doc = {name: installation[name] for name in INSTALLATION_FIELDS if name in installation}
        doc.update(organization=org_id, integration=item["integration"]["name"])
        insert_new(store, INSTALLATION, doc, org=org_id)


@loads("/integrations/{}", listed=False, watch=lambda ids, _: [])
def _published_integration(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """The twin publishes the sandbox's integrations, which no call changes: one it does not
    publish is not held."""
    if ids[0] not in CATALOGUE:
        raise NotHeld(f"the sandbox publishes no integration '{ids[0]}'")


def _targets(target: str) -> Loader:
    def load(store: Store, ids: tuple[str, ...], body: Any) -> None:
        name, installation_id = ids
        org_id = (store.get(INSTALLATION, installation_id) or {}).get("organization")
        for item in items_of(body):
            what_id = str(item[target])
            doc = {"id": target_id(installation_id, target, what_id), "parent": installation_id,
                   "integration": name, "target": target, "targetId": what_id,
                   "configuration": item.get("configuration", {}),
                   "externalIds": item.get("externalIds", [])}  # fmt: skip
            insert_new(store, TARGET_KIND, doc, org=org_id, parent=installation_id)

    return load


for _target in ("space", "site"):
    loads(
        f"/integrations/{{}}/installations/{{}}/{_target}s",
        watch=lambda ids, _: [under(TARGET_KIND, ids[1])],
        last=True,
    )(_targets(_target))
