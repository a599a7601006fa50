"""docform at scale, against a served sandbox: measured requests and times, and their ideals.

    python benchmarks/run.py [--quick] [--check] [--out DIR] [--latency-ms 50]

Scenarios (each on a fresh copy of the generated sandbox, served by ``docform sandbox serve``):
1. no-change plan at ``--latency-ms``: wall time and requests;
2. plan + apply of the mixed changes at ``--latency-ms``: wall time and requests;
3. both again at latency 0: docform's CPU time and peak memory (its own process).
Plus the per-object pattern of a Terraform provider on the same organization, with docform's
own client, and docform's speed-up over it; and the HTTP floor of the machine: the no-change
plan's requests sent again with bare httpx, nothing done with the answers (at both latencies);
and PyYAML's C loader on the same manifest files (the irreducible part of loading them).

``--quick`` uses a 10x smaller organization (under a minute). ``--check`` exits 1 when a
request count is off its ideal or a request was sent twice; never because of a time.
``--plan-vs-floor N`` measures only scenario 1 and the HTTP floor, alternating them N times on
one served sandbox, and prints each run's wall ratio and their median (the wall target alone,
in a fraction of the time, with each ratio measured under the same load).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from docform.api import ApiClient
from generate import load_expected, load_team_sizes
from ideal import Ideal, apply_graph, ideal, read_graph
from org_shape import FULL, ORG_ID, QUICK
from report import TARGETS, render_table, summarize
from served import Server, served_sandbox, worker

HERE = Path(__file__).parent
REPO = HERE.parent
READ_PARALLELISM = inspect.signature(ApiClient).parameters["max_in_flight"].default


def ensure_generated(out: Path, quick: bool, regenerate: bool) -> None:
    """Generate the organization unless ``out`` holds the one asked for."""
    shape = QUICK if quick else FULL
    expected = out / "expected.json"
    if not regenerate and expected.is_file() and load_expected(out)[0] == shape:
        print(f"using the organization generated in {out}", file=sys.stderr)
        return
    args = [sys.executable, str(HERE / "generate.py"), str(out)] + (["--quick"] if quick else [])
    subprocess.run(args, check=True)


def measure(out: Path, latency_ms: float) -> dict[str, Any]:
    """Every scenario's worker output and the sandbox's own request counts."""
    results: dict[str, Any] = {}
    print(f"scenario 1: no-change plan at {latency_ms:g} ms", file=sys.stderr)
    with served_sandbox(out, "s1", latency_ms) as server:
        warm_up(server, out)
        results["plan"] = worker(server, "plan", str(out / "match"))
        results["plan"]["served"] = server.take_stats()
        print("HTTP floor (the plan's requests again, bare httpx)", file=sys.stderr)
        results["replay"] = worker(server, "replay", str(out / "match"))
        server.take_stats()
        print("per-object pattern (list ids, GET each, 10 at a time)", file=sys.stderr)
        results["per_object"] = worker(server, "per-object", ORG_ID)
    print(f"scenario 2: plan + apply of the changes at {latency_ms:g} ms", file=sys.stderr)
    with served_sandbox(out, "s2", latency_ms) as server:
        results["apply"] = worker(server, "apply", str(out / "changed"))
        results["apply"]["served"] = server.take_stats()
    print("scenario 3: the same at latency 0 (CPU time, peak memory)", file=sys.stderr)
    with served_sandbox(out, "s3", 0) as server:
        results["plan_cpu"] = worker(server, "plan", str(out / "match"))
        print("HTTP floor at latency 0; PyYAML's C loader on the manifests", file=sys.stderr)
        results["replay_cpu"] = worker(server, "replay", str(out / "match"))
        results["c_loader"] = worker(server, "c-loader", str(out / "match"))
    with served_sandbox(out, "s3b", 0) as server:
        results["apply_cpu"] = worker(server, "apply", str(out / "changed"))
    return results


def warm_up(server: Server, out: Path) -> None:
    """One untimed plan on a freshly started sandbox: the floor's worker plans once before its
    timed replay, so without this the plan alone would pay the server's first requests (its
    database pages, its code paths) and the two walls would not be compared on equal terms."""
    worker(server, "plan", str(out / "match"))
    server.take_stats()


def plan_vs_floor(out: Path, latency_ms: float, repeats: int) -> dict[str, Any]:
    """Scenario 1's plan and the HTTP floor, alternating ``repeats`` times on one sandbox (a
    no-change plan changes nothing): each pair's walls, its ratio and the load average."""
    pairs = []
    with served_sandbox(out, "s1", latency_ms) as server:
        warm_up(server, out)
        for number in range(1, repeats + 1):
            load = os.getloadavg()[0]
            plan = worker(server, "plan", str(out / "match"))
            plan["served"] = server.take_stats()
            floor = worker(server, "replay", str(out / "match"))
            server.take_stats()
            ratio = plan["wall_s"] / floor["wall_s"]
            pairs.append({"plan": plan, "replay": floor, "ratio": ratio, "load": load})
            print(
                f"{number}: plan {plan['wall_s']:.2f} s, floor {floor['wall_s']:.2f} s, "
                f"ratio {ratio:.3f} (load average {load:.2f}, {plan['requests']} requests)",
                file=sys.stderr,
            )
    median = statistics.median(pair["ratio"] for pair in pairs)
    return {"latency_ms": latency_ms, "pairs": pairs, "median_ratio": median}


def ideals(out: Path) -> dict[str, Ideal]:
    shape, changes = load_expected(out)
    reading = ideal(read_graph(shape, load_team_sizes(out)), READ_PARALLELISM)
    parallelism = 8  # limits.parallelism, left at its default in the generated manifests
    return {"read": reading, "apply": ideal(apply_graph(changes), parallelism)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 10x smaller organization")
    parser.add_argument("--check", action="store_true", help="exit 1 when a count check fails")
    parser.add_argument("--out", type=Path, help="work directory (default .docform/bench[-quick])")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="served latency")
    parser.add_argument("--regenerate", action="store_true", help="generate even if present")
    parser.add_argument(
        "--plan-vs-floor", type=int, metavar="N", help="only scenario 1 and the floor, N times"
    )
    args = parser.parse_args(argv)
    out = args.out or REPO / ".docform" / ("bench-quick" if args.quick else "bench")
    ensure_generated(out, args.quick, args.regenerate)
    if args.plan_vs_floor:
        series = plan_vs_floor(out, args.latency_ms, args.plan_vs_floor)
        (out / "plan_vs_floor.json").write_text(json.dumps(series, indent=1, default=str), "utf-8")
        target = TARGETS["plan_wall_floor_ratio"]
        verdict = "met" if series["median_ratio"] <= target else "MISSED"
        print(f"{verdict}: median no-change plan wall / HTTP floor {series['median_ratio']:.3f}"
              f" (<= {target})")  # fmt: skip
        return 0
    results = measure(out, args.latency_ms)
    (out / "results.json").write_text(json.dumps(results, indent=1, default=str), "utf-8")
    _, expected = load_expected(out)
    rows, checks = summarize(results, ideals(out), expected, args.latency_ms)
    print(render_table(rows))
    print(checks.render())
    return 1 if args.check and not checks.passed else 0


if __name__ == "__main__":
    sys.exit(main())
