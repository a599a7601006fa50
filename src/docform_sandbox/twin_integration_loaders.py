"""Twin loaders of the organization's integration installations, the spaces and sites each is
installed on, the published integrations they install, and Git Sync installations
(`docform_sandbox.twin_registry` says what a loader does). What the service never answers (a
write-only setting, a GitLab access token) is not known to the twin either: it holds what the
answers show."""

from __future__ import annotations

from typing import Any

from docform_sandbox.routes.git_sync import KIND as GIT_SYNC
from docform_sandbox.routes.git_sync import SETUP_FIELDS
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
    org_of,
    row,
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


# -- Git Sync ----------------------------------------------------------------------------------


def _git_installation(store: Store, item: dict[str, Any]) -> None:
    """One Git Sync installation as answered: what the service never answers (a GitLab access
    token) the twin does not know either."""
    target = item["target"]
    target_id = target.get("spaceId") or target.get("siteId") or ""
    doc = {name: item[name] for name in GIT_FIELDS if name in item}
    doc.update(targetId=target_id, organization=org_of(store, target["type"], target_id))
    insert_new(store, GIT_SYNC, doc, org=doc["organization"] or None)


GIT_FIELDS = ("id", "target", "status", "provider", "providerConfiguration", "createdAt",
              "createdBy", "updatedAt", "operation", *SETUP_FIELDS)  # fmt: skip


@loads("/git/installations/{}", listed=False, watch=lambda ids, _: [row(GIT_SYNC, ids[0])])
def _git_sync(store: Store, ids: tuple[str, ...], body: Any) -> None:
    _git_installation(store, body)


@loads(
    "/orgs/{}/sites/{}/spaces/git/installations",
    newest_first=False,
    watch=lambda ids, _: [in_org(GIT_SYNC, ids[0])],
)
def _site_git_syncs(store: Store, ids: tuple[str, ...], body: Any) -> None:
    for item in items_of(body):
        _git_installation(store, item)


@loads("/spaces/{}/git/info", listed=False, watch=lambda ids, _: [GIT_SYNC], last=True)
def _space_git_info(store: Store, ids: tuple[str, ...], body: Any) -> None:
    """A synced space's state is its installation's, read on its own (loaded before this)."""
    if store.locate(GIT_SYNC, body.get("installationId", "")) is None:
        raise NotHeld(f"space {ids[0]}: its Git Sync installation was not read")
