"""The engine's protocols are what the layers above really hand it.

`ServiceClient` and `ManifestView` (docform.engine.client, docform.engine.manifests) let the
engine name no API client and no manifest set. mypy checks this module strictly (`files` in
pyproject's [tool.mypy]): the two assignments in `_seams` fail it as soon as `ApiClient` or
`ManifestSet` stop being what the engine calls. The test plans through them, against the
sandbox, as `docform plan` does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from docform.api import ApiClient
from docform.engine.client import ServiceClient
from docform.engine.manifests import ManifestView
from docform.engine.plan import Plan
from docform.engine.snapshot import read_live_state
from docform.kind_registry import build_kinds
from docform.manifest import load_manifest_set
from docform.manifest.manifest_set import ManifestSet
from docform.workflow.connect import Client
from planning import actions, plan_changes, plan_json


def _seams(client: ApiClient, manifests: ManifestSet) -> tuple[ServiceClient, ManifestView]:
    return client, manifests


async def _plan(directory: Path, sandbox: Path) -> Plan:
    loaded = load_manifest_set(directory)
    org_id = loaded.organization.id
    kinds = build_kinds(org_id)
    async with Client(f"sandbox:{sandbox}", read_only=True) as opened:
        client, manifests = _seams(opened, loaded)
        live = await read_live_state(client, org_id, kinds, {})
    return plan_changes(kinds, manifests, live, org_id, prune={})


def test_the_engine_plans_with_the_api_client_and_manifest_set_it_is_handed(
    basic: Path, sandbox: Path
) -> None:
    plan = asyncio.run(_plan(basic, sandbox))

    assert plan.summary() == {"create": 13, "update": 1, "delete": 0, "move": 0, "restore": 0}
    assert [(c.address, c.action) for c in plan.changes] == actions(plan_json(basic, sandbox))
