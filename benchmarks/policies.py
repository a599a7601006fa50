"""What checking policies adds to a plan: every policy of the examples over the benchmark plan.

    python benchmarks/policies.py [--quick] [--out DIR] [--runs 7]

Plans the generated organization's changed manifests (2,000 changes; --quick 200) in-process
against a copy of its sandbox, with ``examples/acme/manifests/policies.yaml`` beside them, then
evaluates those policies ``--runs`` times from scratch (building their inputs included) and
prints the median, the fastest and the slowest, in milliseconds. Target: under 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from docform import runtime
from docform.manifest.loader import load_manifest_set
from docform.policies.evaluate import evaluate_policies
from docform.policies.inputs import planned_inputs
from docform.workflow.run import plan_manifests
from run import ensure_generated

HERE = Path(__file__).parent
POLICIES = HERE.parent / "examples" / "acme" / "manifests" / "policies.yaml"
TARGET_MS = 50.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 10x smaller organization")
    parser.add_argument("--out", type=Path, help="work directory (default .docform/bench[-quick])")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    out = args.out or HERE.parent / ".docform" / ("bench-quick" if args.quick else "bench")
    ensure_generated(out, args.quick, regenerate=False)
    with tempfile.TemporaryDirectory() as scratch:
        manifests = Path(scratch) / "manifests"
        shutil.copytree(out / "changed", manifests)
        shutil.copy(POLICIES, manifests / "policies.yaml")
        database = Path(scratch) / "sandbox.sqlite"
        shutil.copy(out / "base.sqlite", database)
        os.environ["DOCFORM_API_URL"] = f"sandbox:{database}"
        loaded = load_manifest_set(manifests)
        plan, _ = asyncio.run(plan_manifests(loaded))
        policies = list(loaded.policies.values())
        runtime.enable()  # as the docform command does: policies are evaluated as planning is
        times, cpu, report = [], [], None
        for _ in range(args.runs):
            started, started_cpu = time.perf_counter(), time.process_time()
            with runtime.collecting_rarely():
                report = evaluate_policies(policies, planned_inputs(plan, ()))
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
    assert report is not None
    median = statistics.median(times)
    print(
        f"{len(policies)} policies over a plan of {len(plan.changes)} changes "
        f"({sum(plan.live_counts.values())} live objects): median {median:.1f} ms, "
        f"min {min(times):.1f}, max {max(times):.1f} over {args.runs} runs "
        f"(CPU median {statistics.median(cpu):.1f} ms); "
        f"{len(report.results)} results; target < {TARGET_MS:g} ms: "
        f"{'met' if median < TARGET_MS else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
