"""One measured run, in its own process so its CPU time and peak memory are docform's alone.

    python benchmarks/worker.py plan DIR URL        # plan (read, match, diff, render the text)
    python benchmarks/worker.py apply DIR URL       # plan, check the safety rails, apply
    python benchmarks/worker.py per-object ORG URL  # a Terraform provider's per-object pattern
    python benchmarks/worker.py replay DIR URL      # the plan's GETs again, bare httpx (floor)
    python benchmarks/worker.py c-loader DIR URL    # PyYAML's C loader, and docform's, on DIR

The API token is read from DOCFORM_API_TOKEN. It prints one JSON object on stdout. docform runs
through its own entry points (`make_plan`, `check_safety`, `apply_plan`, `render_text`), with
its own client and its process knobs on (`docform.runtime`), as the docform command runs them;
a recording transport under that client notes every request, so the runner can check that
none was sent twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import yaml

from docform import runtime
from docform.api import ApiClient
from docform.api.connections import network_transport
from docform.cli.common import run_async
from docform.engine.apply import apply_plan
from docform.kind_registry import build_kinds
from docform.manifest import load_manifest_set
from docform.render import render_text
from docform.workflow.connect import Client
from docform.workflow.run import load_and_plan, make_plan, recover_by_planning
from docform.workflow.safety import check_safety
from docform.workflow.saved import secret_resolver

TEAM_MEMBERS = re.compile(r"^/v1/orgs/[^/]+/teams/[^/]+/members$")
PER_OBJECT_PARALLELISM = 10
"""Terraform's default ``-parallelism``."""
C_LOADER_REPEATS = 3


class RecordingTransport(httpx.AsyncBaseTransport):
    """Counts every request by method, URL (query included) and body."""

    def __init__(self, inner: httpx.AsyncBaseTransport, seen: Counter[str]) -> None:
        self.inner = inner
        self.seen = seen
        self.first_sent: float | None = None
        self.last_answered: float | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = hashlib.sha1(request.content).hexdigest()[:12] if request.content else ""
        self.seen[f"{request.method} {request.url.raw_path.decode()} {body}".rstrip()] += 1
        if self.first_sent is None:
            self.first_sent = time.monotonic()
        response = await self.inner.handle_async_request(request)
        self.last_answered = time.monotonic()
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def open_client(url: str, seen: Counter[str], **options: Any) -> ApiClient:
    transport = RecordingTransport(network_transport(), seen)
    token = os.environ["DOCFORM_API_TOKEN"]
    return Client(url, token, transport=transport, **options)


def timeline(started: float, client: ApiClient, **moments: float) -> dict[str, float]:
    """When the first request left, when the last answer came, and ``moments``: seconds since
    ``started``, in the order they happened."""
    recorder = client.http._transport
    while not isinstance(recorder, RecordingTransport):
        recorder = recorder.inner
    moments["first_request"] = recorder.first_sent or started
    moments["last_answer"] = recorder.last_answered or started
    return {
        name: round(at - started, 3) for name, at in sorted(moments.items(), key=lambda m: m[1])
    }


def call_report(seen: Counter[str], client: ApiClient) -> dict[str, Any]:
    repeated = {call: n for call, n in seen.items() if n > 1}
    membership: Counter[str] = Counter()
    for call, n in seen.items():
        method, path = call.split(" ")[:2]
        if method == "PUT" and TEAM_MEMBERS.match(path):
            membership[path] += n
    return {
        "requests": client.stats.requests,
        "retries": client.stats.retries,
        "by_route": dict(client.stats.by_route),
        "repeated": repeated,
        "membership_calls": sum(membership.values()),
        "most_membership_calls_of_one_team": max(membership.values(), default=0),
    }


async def run_plan(directory: str, url: str) -> tuple[dict[str, Any], Any, Any]:
    """Load and plan as ``docform plan`` does (`load_and_plan`: the reads start while the
    manifests load), with a recording client of ``url``."""
    started, cpu = time.monotonic(), time.process_time()
    seen: Counter[str] = Counter()
    clients: list[ApiClient] = []

    def open_reader(view: Any) -> ApiClient:
        clients.append(open_client(url, seen, read_only=True))
        return clients[-1]

    manifests, plan, _ = await load_and_plan(Path(directory), open_reader)
    planned = time.monotonic()
    text = render_text(plan, color=False)
    client = clients[0]
    report = {
        "wall_s": time.monotonic() - started,
        "cpu_s": time.process_time() - cpu,
        "phases_s": {"read_and_plan": planned - started, "render": time.monotonic() - planned},
        "timeline_s": timeline(started, client, planned=planned),
        "changes": len(plan.changes),
        "actions": Counter(c.action for c in plan.changes),
        "summary": plan.summary(),
        "text_lines": text.count("\n"),
        **call_report(seen, client),
    }
    return report, manifests, plan


async def run_apply(directory: str, url: str) -> dict[str, Any]:
    planned, manifests, plan = await run_plan(directory, url)
    started, cpu = time.monotonic(), time.process_time()
    check_safety(manifests, plan)
    seen: Counter[str] = Counter()
    recover = recover_by_planning(manifests, lambda: open_client(url, Counter(), read_only=True))
    async with open_client(url, seen) as client:
        report = await apply_plan(
            plan.changes,
            client,
            parallelism=manifests.settings.limits.parallelism,
            resolve_secret=secret_resolver(manifests),
            recover=recover,
            kinds=build_kinds(manifests.organization.id),
        )
    applied = {
        "wall_s": time.monotonic() - started,
        "cpu_s": time.process_time() - cpu,
        "parallelism": manifests.settings.limits.parallelism,
        "done": len(report.done),
        "failed": [f"{c.key}: {why}" for c, why in report.failed[:10]],
        "not_attempted": len(report.not_attempted),
        "calls_by_change": Counter(c.action for c in plan.changes for _ in c.calls),
        "changes_by_action": Counter(c.action for c in plan.changes),
        **call_report(seen, client),
    }
    return {"plan": planned, "apply": applied}


async def run_per_object(url: str, org_id: str) -> dict[str, Any]:
    """List each kind's ids, then GET every object, ``PER_OBJECT_PARALLELISM`` at a time (the
    lists docform reads stand in where the API has no single GET: a team's members, a site's
    sections, groups and site spaces)."""
    started, cpu = time.monotonic(), time.process_time()
    seen: Counter[str] = Counter()
    options = {"read_only": True, "max_in_flight": PER_OBJECT_PARALLELISM}
    async with open_client(url, seen, **options) as client:
        org = f"/orgs/{org_id}"
        members, teams, collections, spaces, sites, specs, saml = await asyncio.gather(
            *(
                client.list_all(f"{org}/{name}")
                for name in (
                    "members",
                    "teams",
                    "collections",
                    "spaces",
                    "sites",
                    "openapi",
                    "saml",
                )
            )
        )
        paths = [org]
        paths += [f"{org}/members/{m['id']}" for m in members]
        paths += [f"{org}/teams/{t['id']}" for t in teams]
        paths += [f"/collections/{c['id']}" for c in collections]
        paths += [f"/spaces/{s['id']}" for s in spaces]
        paths += [f"{org}/sites/{s['id']}" for s in sites]
        paths += [f"{org}/openapi/{s['slug']}" for s in specs]
        paths += [f"{org}/saml/{p['id']}" for p in saml]
        lists = [f"{org}/teams/{t['id']}/members" for t in teams]
        for site in sites:
            lists += [f"{org}/sites/{site['id']}/{n}" for n in ("section-groups", "sections")]
            lists.append(f"{org}/sites/{site['id']}/site-spaces")
        await asyncio.gather(*(client.get(p) for p in paths), *(client.list_all(p) for p in lists))
    return {
        "wall_s": time.monotonic() - started,
        "cpu_s": time.process_time() - cpu,
        "objects": len(paths),
        **call_report(seen, client),
    }


async def run_replay(directory: str, url: str) -> dict[str, Any]:
    """The HTTP floor of this machine: the GETs a plan of ``directory`` sends, sent again with
    bare httpx at docform's read parallelism, in no particular order and with nothing done
    with the answers but decoding them. Only the second part is timed."""
    seen: Counter[str] = Counter()
    async with open_client(url, seen, read_only=True) as client:
        await make_plan(load_manifest_set(directory), client)
    parallelism = inspect.signature(ApiClient).parameters["max_in_flight"].default
    paths = [call.split(" ")[1] for call in seen]
    slots = asyncio.Semaphore(parallelism)
    headers = {"authorization": f"Bearer {os.environ['DOCFORM_API_TOKEN']}"}
    async with httpx.AsyncClient(base_url=url, headers=headers) as http:

        async def fetch(path: str) -> None:
            async with slots:
                (await http.get(path)).raise_for_status().json()

        started, cpu = time.monotonic(), time.process_time()
        await asyncio.gather(*(fetch(path) for path in paths))
    return {
        "wall_s": time.monotonic() - started,
        "cpu_s": time.process_time() - cpu,
        "requests": len(paths),
        "parallelism": parallelism,
    }


def run_c_loader(directory: str) -> dict[str, Any]:
    """The irreducible part of loading: PyYAML's C loader (``yaml.load`` with ``CSafeLoader``)
    on the manifest files of ``directory``, read from disk; the median CPU of a few runs. And
    docform's own loading (`load_manifest_set`) of the same files the same way, as
    ``docform_load`` (a plan loads them while it reads, so its timeline does not show it)."""
    files = sorted(p for p in Path(directory).rglob("*") if p.suffix in (".yaml", ".yml"))
    runs, docform_runs = [], []
    for _ in range(C_LOADER_REPEATS):
        cpu = time.process_time()
        for path in files:
            yaml.load(path.read_text("utf-8"), Loader=yaml.CSafeLoader)
        runs.append(time.process_time() - cpu)
        cpu = time.process_time()
        load_manifest_set(directory)
        docform_runs.append(time.process_time() - cpu)
    median, docform = statistics.median(runs), statistics.median(docform_runs)
    docform_load = {"wall_s": docform, "cpu_s": docform, "runs_s": docform_runs, "requests": 0}
    return {
        "wall_s": median,
        "cpu_s": median,
        "runs_s": runs,
        "files": len(files),
        "requests": 0,
        "docform_load": docform_load,
    }


def main(argv: list[str]) -> int:
    mode, *args = argv
    # The process stands for the docform command, which turns its process knobs on
    # (`docform.runtime`, BENCHMARKS.md "Process knobs"); the bare replay uses none of them.
    runtime.start_command()
    runtime.enable()
    if mode == "plan":
        result: Any = run_async(run_plan(args[0], args[1]))[0]
    elif mode == "apply":
        result = run_async(run_apply(args[0], args[1]))
    elif mode == "per-object":
        result = asyncio.run(run_per_object(url=args[1], org_id=args[0]))
    elif mode == "replay":
        result = asyncio.run(run_replay(args[0], args[1]))
    elif mode == "c-loader":
        result = run_c_loader(args[0])
    else:
        raise SystemExit(f"unknown mode {mode!r}: plan, apply, per-object, replay or c-loader")
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
