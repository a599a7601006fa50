"""engine/planner.py guards: a plan never holds a change that no API call makes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from docform.engine.kind import ChangeContext
from docform.engine.plan import Call
from docform.engine.planner import EmptyChangeError
from docform.engine.snapshot import read_live_state
from docform.kind_registry import build_kinds
from docform.kinds.team import TeamKind
from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from planning import live_api, plan_changes, write_manifests


class CallLessTeamKind(TeamKind):
    """A team kind with the bug the guard is for: it sees a change but makes no call."""

    def change_calls(self, change: ChangeContext) -> list[Call]:
        return []


def test_a_change_without_calls_is_refused(sandbox: Path, tmp_path: Path) -> None:
    live_api(sandbox, "PUT", "/orgs/org_acme/teams", {"title": "Support"})
    directory = write_manifests(
        tmp_path / "manifests",
        """
        organization: {id: org_acme}
        members:
          erin@acme.test: {role: edit}
        teams:
          support: {title: Support, members: {erin@acme.test: member}}
        """,
    )
    manifests = load_manifest_set(directory)
    kinds = [
        CallLessTeamKind("org_acme") if kind.name == "team" else kind
        for kind in build_kinds("org_acme")
    ]

    async def read() -> Any:
        async with Client(f"sandbox:{sandbox}", read_only=True) as client:
            return await read_live_state(client, "org_acme", kinds, {})

    live = asyncio.run(read())
    with pytest.raises(EmptyChangeError) as refused:
        plan_changes(kinds, manifests, live, "org_acme", {})
    assert str(refused.value) == (
        "docform planned changes that no API call makes: team.support (membership); this is "
        "a bug in docform, please report it with the manifests of these objects"
    )
