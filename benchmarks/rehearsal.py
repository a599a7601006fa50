"""What a rehearsal adds to a plan: the benchmark organization's changed plan (``changed/``),
made against a served sandbox at 50 ms latency, then rehearsed on a twin, side by side in
alternating pairs, each on a fresh copy of the generated database.

    python benchmarks/rehearsal.py [--quick] [--out DIR] [--latency-ms 50] [--pairs 3]

It prints one JSON object: per pair the plan's wall time, the rehearsal's and their ratio, the
calls the twin accepted and whether it converged, and the median ratio. The issue's target: the
rehearsal adds at most half of the plan's wall time (ratio <= 0.5).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from docform.manifest import load_manifest_set
from docform.workflow.connect import Client
from docform.workflow.rehearsal import rehearse
from docform.workflow.run import make_plan
from run import REPO, ensure_generated
from served import SERVER_TOKEN, served_sandbox


async def one_pair(url: str, directory: Path) -> dict[str, Any]:
    manifests = load_manifest_set(directory)
    started = time.monotonic()
    async with Client(url, SERVER_TOKEN, read_only=True) as client:
        plan = await make_plan(manifests, client)
    planned = time.monotonic() - started
    result = await rehearse(manifests, plan, parallelism=manifests.settings.limits.parallelism)
    return {
        "changes": len(plan.changes),
        "plan_s": round(planned, 3),
        "rehearsal_s": round(result.seconds, 3),
        "ratio": round(result.seconds / planned, 3),
        "calls": result.calls,
        "accepted": result.accepted,
        "converged": result.converged,
        "kinds_not_loaded": result.kinds_not_loaded,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 10x smaller organization")
    parser.add_argument("--out", type=Path, help="work directory (default .docform/bench[-quick])")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args(argv)
    out = args.out or REPO / ".docform" / ("bench-quick" if args.quick else "bench")
    ensure_generated(out, args.quick, False)
    pairs = []
    for number in range(args.pairs):
        with served_sandbox(out, "rehearsal", args.latency_ms) as server:
            pairs.append(asyncio.run(one_pair(server.url, out / "changed")))
        print(f"pair {number + 1}: {json.dumps(pairs[-1])}", file=sys.stderr)
    ratio = statistics.median(pair["ratio"] for pair in pairs)
    print(json.dumps({"latency_ms": args.latency_ms, "pairs": pairs, "median_ratio": ratio}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
