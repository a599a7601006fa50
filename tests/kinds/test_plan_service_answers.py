"""End to end: planning on answers as the service sends them, beyond what the sandbox's own
defaults show: a member whose user has no email, section groups read from ``children`` (and
from the deprecated ``sections`` only without it), and groups nested in groups.

Live state is arranged in a seeded in-process sandbox (org_acme: u_alice admin, u_erin edit,
u_bob guest, site_docs); answers the sandbox does not send by itself are made by a transport
that rewrites the sandbox's answers on their way to docform.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from docform.engine.plan import Plan
from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.run import make_plan
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.transport import SandboxTransport
from planning import (
    actions,
    apply,
    assert_converged,
    calls,
    change,
    copy_sandbox,
    live_api,
    open_store,
    plan_json,
    run,
    seeded_and_applied,
    write_manifests,
)

ORG_PATH = "/orgs/org_acme"
DOCS = f"{ORG_PATH}/sites/site_docs"
MEMBERS = """\
organization: {id: org_acme}
members:
  alice@acme.test: admin
  erin@acme.test: edit
  bob@acme.test: guest
"""


# -- a member whose user has no email ------------------------------------------------------------


@pytest.fixture
def dana(sandbox: Path, tmp_path: Path) -> str:
    """A read member, u_dana, whose user has no email (the service does not promise one)."""
    seed = tmp_path / "dana.yaml"
    seed.write_text(
        "organizations: [{id: org_acme, title: Acme, "
        "members: [{id: u_dana, displayName: Dana, role: read}]}]\n",
        encoding="utf-8",
    )
    with open_store(sandbox) as store:
        apply_seed(store, load_seed_file(seed))
    return "u_dana"


def test_a_member_without_email_is_listed_as_unmanaged_with_how_to_match_it(
    sandbox: Path, manifests: Path, dana: str
) -> None:
    write_manifests(manifests, MEMBERS)
    result = run(["plan", manifests], sandbox)
    assert result.exit_code == 0, result.output
    assert (
        "  member.~u_dana (Dana (no email: only an entry with `id: u_dana` matches this member))\n"
        in result.stdout
    )
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert [u for u in plan["unmanaged"] if u["kind"] == "member"] == [
        {
            "kind": "member",
            "id": "u_dana",
            "title": "Dana (no email: only an entry with `id: u_dana` matches this member)",
        }
    ]


def test_an_entry_pinned_to_a_member_without_email_manages_it(
    sandbox: Path, manifests: Path, dana: str
) -> None:
    write_manifests(manifests, MEMBERS + "  dana@acme.test: {role: edit, id: u_dana}\n")
    plan = plan_json(manifests, sandbox)
    assert actions(plan) == [("member.dana@acme.test", "update")]
    assert calls(change(plan, "member.dana@acme.test")) == [
        ("PATCH", f"{ORG_PATH}/members/u_dana", {"role": "edit"})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)
    assert live_api(sandbox, "GET", f"{ORG_PATH}/members/u_dana")["role"] == "edit"


def test_an_invite_says_a_member_without_email_may_be_the_same_person(
    sandbox: Path, manifests: Path, dana: str
) -> None:
    write_manifests(manifests, MEMBERS + "  dana@acme.test: read\n")
    invite = change(plan_json(manifests, sandbox), "member.dana@acme.test", "create")
    reason = invite["action_reason"]
    assert reason.startswith("no live member matches "), reason
    assert reason.endswith(
        "main.yaml:6:3; the service shows no email for member(s) u_dana: if one of them is "
        "dana@acme.test, pin its id with `id:` in the entry instead of inviting"
    ), reason


def test_a_team_member_without_email_is_named_by_its_id(
    sandbox: Path, manifests: Path, dana: str
) -> None:
    team = live_api(sandbox, "PUT", f"{ORG_PATH}/teams", {"title": "Platform"})["id"]
    body = {"add": ["u_dana", "alice@acme.test"]}
    live_api(sandbox, "PUT", f"{ORG_PATH}/teams/{team}/members", body)
    write_manifests(
        manifests,
        MEMBERS + "  dana@acme.test: {role: read, id: u_dana}\n"
        "teams:\n  platform: {title: Platform, members: {alice@acme.test: member}}\n",
    )
    plan = plan_json(manifests, sandbox)
    membership = change(plan, "team.platform", "membership")
    assert membership["before"] == {"members": {"alice@acme.test": "member", "u_dana": "member"}}
    assert calls(membership) == [
        ("PUT", f"{ORG_PATH}/teams/{team}/members", {"remove": ["u_dana"]})
    ]
    apply(manifests, sandbox)
    assert_converged(manifests, sandbox)


def test_export_leaves_out_a_member_without_email(sandbox: Path, tmp_path: Path, dana: str) -> None:
    out = tmp_path / "exported"
    result = run(["export", "org_acme", out], sandbox)
    assert result.exit_code == 0, result.output
    exported = "".join(p.read_text(encoding="utf-8") for p in sorted(out.glob("*.yaml")))
    assert "alice@acme.test" in exported
    assert "u_dana" not in exported


# -- section groups: children, sections, nesting ---------------------------------------------------


class RewritingTransport(SandboxTransport):
    """The sandbox, with the JSON answers of one path rewritten before docform reads them."""

    def __init__(self, path: Path, route: str, rewrite: Callable[[Any], Any]) -> None:
        super().__init__(path)
        self.route, self.rewrite = route, rewrite
        self.rewritten = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if request.method != "GET" or request.url.path != "/v1" + self.route:
            return response
        body = json.loads(await response.aread())
        self.rewritten += 1
        return httpx.Response(response.status_code, json=self.rewrite(body))


def plan_through(manifests: Path, transport: RewritingTransport) -> Plan:
    loaded = load_manifest_set(manifests)

    async def plan() -> Plan:
        async with Client("https://sandbox.test", "tok_alice_0123456789",
                             transport=transport, read_only=True) as client:  # fmt: skip
            return await make_plan(loaded, client)

    return asyncio.run(plan())


def each_group(change_group: Callable[[dict[str, Any]], None]) -> Callable[[Any], Any]:
    def rewrite(page: Any) -> Any:
        for group in page["items"]:
            change_group(group)
        return page

    return rewrite


GROUPED = """\
organization: {id: org_acme}
spaces: {handbook: {title: Handbook}, oncall: {title: On-call}}
sites:
  docs:
    id: site_docs
    sectionGroups: {learn: {title: Learn, sections: [guides]}}
    sections:
      guides: {title: Guides, path: guides, spaces: {main: {space: handbook, path: handbook}}}
      ops: {title: On-call, path: on-call, spaces: {main: {space: oncall, path: on-call}}}
"""


@pytest.fixture(scope="module")
def grouped_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """site_docs with group Learn holding section Guides, and section On-call outside it, as
    ``GROUPED`` says, applied and converged once for the module: the manifests, the sandbox
    and the live ids of the group and sections."""
    manifests = write_manifests(tmp_path_factory.mktemp("grouped") / "manifests", GROUPED)
    sandbox = seeded_and_applied(manifests)
    assert_converged(manifests, sandbox)
    [group] = live_api(sandbox, "GET", f"{DOCS}/section-groups")["items"]
    sections = {s["path"]: s for s in live_api(sandbox, "GET", f"{DOCS}/sections")["items"]}
    ids = {
        "learn": group["id"],
        "guides": sections["guides"]["id"],
        "ops": sections["on-call"]["id"],
    }
    return manifests, sandbox, ids


@pytest.fixture
def grouped(
    sandbox: Path, manifests: Path, grouped_once: tuple[Path, Path, dict[str, str]]
) -> dict[str, str]:
    """The test's sandbox and manifests made copies of ``grouped_once``; returns its ids."""
    source_manifests, source_sandbox, ids = grouped_once
    assert copy_sandbox(source_sandbox, sandbox.parent) == sandbox
    shutil.copytree(source_manifests, manifests)
    return ids


def test_a_group_is_read_from_children_when_the_deprecated_sections_differ(
    sandbox: Path, manifests: Path, grouped: dict[str, str]
) -> None:
    sections = live_api(sandbox, "GET", f"{DOCS}/sections")["items"]
    [ops] = [s for s in sections if s["id"] == grouped["ops"]]
    transport = RewritingTransport(
        sandbox, f"{DOCS}/section-groups", each_group(lambda g: g.update(sections=[ops]))
    )
    assert plan_through(manifests, transport).changes == []
    assert transport.rewritten == 1


@pytest.mark.parametrize(
    "missing",
    [
        pytest.param("sections", id="without-the-deprecated-sections-read-from-children"),
        pytest.param("children", id="without-children-read-from-sections"),
    ],
)
def test_a_group_without_one_of_its_lists_is_read_from_the_other(
    sandbox: Path, manifests: Path, grouped: dict[str, str], missing: str
) -> None:
    transport = RewritingTransport(
        sandbox, f"{DOCS}/section-groups", each_group(lambda g: g.pop(missing))
    )
    assert plan_through(manifests, transport).changes == []


def test_a_group_nested_in_a_group_is_unmanaged_until_an_entry_places_it_there(
    sandbox: Path, manifests: Path, grouped: dict[str, str]
) -> None:
    body = {"title": "Deeper", "parent": grouped["learn"]}
    nested = live_api(sandbox, "POST", f"{DOCS}/section-groups", body)["id"]
    plan = plan_json(manifests, sandbox)
    assert plan["changes"] == []
    assert {"kind": "section_group", "id": nested, "title": "Deeper"} in plan["unmanaged"]
    doc = yaml.safe_load(GROUPED)
    doc["sites"]["docs"]["sectionGroups"]["deeper"] = {"title": "Deeper", "group": "learn"}
    write_manifests(manifests, yaml.safe_dump(doc, sort_keys=False))
    assert plan_json(manifests, sandbox)["changes"] == []
