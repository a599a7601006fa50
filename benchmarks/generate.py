"""Generate the benchmark organization: a sandbox that holds it, and manifests that describe it.

    python benchmarks/generate.py OUT [--quick] [--changes N] [--seed S]

writes
- ``OUT/base.sqlite``: a sandbox holding the organization. Its organization, members and site
  come from a seed (the sandbox's own seeding); everything else is created through the API, by
  docform itself (plan and apply against the in-process sandbox), so the data is what the API
  holds. The build ends with a plan that must be empty, or the generator fails.
- ``OUT/match/``: manifests of exactly that organization, space ids pinned (as ``export``
  writes them), so a plan of it has no changes;
- ``OUT/changed/``: the same manifests changed by N mixed changes (`org_changes.py`);
- ``OUT/expected.json``: the shape and the expected changes, for `ideal.py` and the checks, and
  the digest of what made them (`inputs_digest`), so that a run regenerates only when the
  generator or docform changed.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from docform.manifest import load_manifest_set
from docform.workflow.run import apply_changes, plan_manifests
from docform_sandbox.seed import Seed, apply_seed
from docform_sandbox.store import Store
from org_changes import Expected, change_org
from org_shape import EMAIL_DOMAIN, FULL, ORG_ID, QUICK, SITE_ID, Org, Shape, build_org

HERE = Path(__file__).parent
GENERATOR = ("generate.py", "org_shape.py", "org_changes.py")
DOCFORM = HERE.parent / "src" / "docform"
CERTIFICATE = "-----BEGIN CERTIFICATE-----\nMIIBbenchmarkcertificate\n-----END CERTIFICATE-----\n"
BUILD_PARALLELISM = 16


def write_manifests(org: Org, directory: Path, *, changes: int = 0) -> None:
    """The manifests of ``org``, one file per area, like a hand-kept repository."""
    (directory / "certs").mkdir(parents=True, exist_ok=True)
    (directory / "certs" / "idp.pem").write_text(CERTIFICATE, encoding="utf-8")
    settings: dict[str, Any] = {"prune": {"spaces": True}}
    # The rails stay on; the limits allow the deletions this benchmark asks for.
    settings["limits"] = {"maxDeletions": max(10, changes), "maxDeletionShare": 1.0}
    files = {
        "organization.yaml": {
            "docform": settings,
            "organization": {"id": ORG_ID, "title": "Bench Corp", "defaultRole": "read"},
            "customFonts": org.fonts,
            "customHostnames": {org.hostname: {"site": "docs"}},
            "glossary": org.glossary,
        },
        "members.yaml": {"members": org.members},
        "teams.yaml": {"teams": org.teams},
        "content.yaml": {"collections": org.collections, "spaces": org.spaces},
        "site.yaml": {"sites": {"docs": org.site}},
        "integrations.yaml": {
            "openapi": org.openapi,
            "saml": org.saml,
            "integrations": org.integrations,
        },
        "git-sync.yaml": {"gitSync": org.git_sync},
    }
    for name, doc in files.items():
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
        (directory / name).write_text(text, encoding="utf-8")


def seed_sandbox(org: Org, path: Path) -> None:
    """The organization, its members and its site, through the sandbox's seeding."""
    members = [
        {"id": f"u{i:05d}", "email": address, "role": role}
        for i, (address, role) in enumerate(org.members.items())
    ]
    seed = Seed.model_validate(
        {
            "organizations": [
                {
                    "id": ORG_ID,
                    "title": "Bench Corp",
                    "emailDomains": [EMAIL_DOMAIN],
                    "members": members,
                    "sites": [
                        {"id": SITE_ID, "title": org.site["title"], "hostname": org.hostname}
                    ],
                }
            ]
        }
    )
    store = Store(path)
    try:
        apply_seed(store, seed)
    finally:
        store.close()


async def build_through_api(directory: Path) -> dict[str, Any]:
    """Apply ``directory`` with docform, then plan again: returns the live objects by address.

    Fails when the second plan is not empty: the benchmark needs a converged organization.
    """
    manifests = load_manifest_set(directory)
    plan, _ = await plan_manifests(manifests)
    report = await apply_changes(manifests, plan, parallelism=BUILD_PARALLELISM)
    if not report.ok:
        failed = "; ".join(f"{c.address}: {why}" for c, why in report.failed[:5])
        raise SystemExit(f"building the benchmark organization failed: {failed}")
    again, _ = await plan_manifests(manifests)
    if again.has_changes:
        left = ", ".join(c.key for c in again.changes[:10])
        raise SystemExit(f"the built organization does not match its manifests: {left}")
    return again.live_objects


def generate(out: Path, shape: Shape, changes: int, seed: int) -> dict[str, Any]:
    """Everything the benchmark needs under ``out``; returns what ``expected.json`` holds."""
    out.mkdir(parents=True, exist_ok=True)
    database = out / "base.sqlite"
    for stale in out.glob("base.sqlite*"):
        stale.unlink()
    org = build_org(shape, seed)
    started = time.monotonic()
    seed_sandbox(org, database)
    write_manifests(org, out / "build")
    os.environ["DOCFORM_API_URL"] = f"sandbox:{database}"
    live = asyncio.run(build_through_api(out / "build"))
    for name, space in org.spaces.items():
        space["id"] = live[f"space.{name}"]["id"]
    write_manifests(org, out / "match")
    changed, expected = change_org(org, changes)
    write_manifests(changed, out / "changed", changes=changes)
    summary = {
        "shape": shape.as_dict(),
        "seed": seed,
        "changes": [e.__dict__ for e in expected],
        "team_sizes": [len(team["members"]) for team in org.teams.values()],
        "build_seconds": round(time.monotonic() - started, 1),
        "inputs": inputs_digest(),
    }
    (out / "expected.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def inputs_digest() -> str:
    """SHA-256 of the generator's modules and docform's source: the organization is built by
    docform's own plan and apply, so a change to either may change what is generated."""
    digest = hashlib.sha256()
    sources = [HERE / name for name in GENERATOR] + sorted(DOCFORM.rglob("*.py"))
    for path in sources:
        digest.update(f"{path.relative_to(HERE.parent)}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def generated_from(out: Path) -> str | None:
    """The `inputs_digest` that the organization in ``out`` was generated from, if recorded."""
    digest: str | None = json.loads((out / "expected.json").read_text(encoding="utf-8")).get(
        "inputs"
    )
    return digest


def load_expected(out: Path) -> tuple[Shape, list[Expected]]:
    doc = json.loads((out / "expected.json").read_text(encoding="utf-8"))
    return Shape(**doc["shape"]), [Expected(**c) for c in doc["changes"]]


def load_team_sizes(out: Path) -> list[int]:
    return json.loads((out / "expected.json").read_text(encoding="utf-8"))["team_sizes"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to write into")
    parser.add_argument("--quick", action="store_true", help="a 10x smaller organization")
    parser.add_argument("--changes", type=int, help="changes in OUT/changed (2000, quick 200)")
    parser.add_argument("--seed", type=int, default=7, help="random seed of the organization")
    args = parser.parse_args(argv)
    shape = QUICK if args.quick else FULL
    changes = args.changes if args.changes is not None else (200 if args.quick else 2000)
    summary = generate(args.out, shape, changes, args.seed)
    print(
        f"generated {args.out}: {summary['shape']} with {len(summary['changes'])} changes "
        f"in {summary['build_seconds']} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
