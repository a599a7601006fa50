"""What the client's checks of read answers cost: CPU per object checked against its shape.

    python benchmarks/answer_checks.py [--checks N] [--runs R]

examples/acme is applied to a sandbox seeded from its sandbox-seed.yaml, then planned once more
with the sandbox's exchange log on (``DOCFORM_SANDBOX_EXCHANGE_LOG``): the GET answers of that
plan are the ones a user's plan reads. The checks the client makes of each (`docform.api.shapes`:
an object route's shape and id, a list page's envelope and each item's shape, with the shapes
derived from the description of the service's answers) are then run over those answers until
N objects (default 200,000) are checked; the CPU of that loop (``time.process_time``) is printed
for each of R runs (default 5), and their median. Only the checks are timed: not decoding JSON,
not the shapes' derivation (once per process).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from docform.api.answers import envelope_misfit, items_misfit
from docform.workflow.connect import KIND_SHAPES

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "examples" / "acme"


def recorded_reads(work: Path) -> list[tuple[str, Any]]:
    """The path and answer of every GET a plan of examples/acme makes, after an apply."""
    sandbox, log = work / "acme.sqlite", work / "exchanges.jsonl"
    docform = [sys.executable, "-m", "docform"]
    seed = [*docform, "sandbox", "seed", "--data", str(sandbox), str(ACME / "sandbox-seed.yaml")]
    subprocess.run(seed, check=True, capture_output=True)
    env = {**os.environ, "DOCFORM_API_URL": f"sandbox:{sandbox}"}
    manifests = work / "manifests"
    subprocess.run(["cp", "-rL", str(ACME / "manifests"), str(manifests)], check=True)
    apply = [*docform, "apply", "--yes", str(manifests)]
    subprocess.run(apply, check=True, capture_output=True, env=env)
    plan = [*docform, "plan", str(manifests)]
    subprocess.run(
        plan, check=True, capture_output=True, env={**env, "DOCFORM_SANDBOX_EXCHANGE_LOG": str(log)}
    )
    reads = []
    for line in log.read_text(encoding="utf-8").splitlines():
        exchange = json.loads(line)
        if exchange["method"] == "GET" and exchange["status"] == 200:
            path = "/" + exchange["path"].removeprefix("/v1/")
            reads.append((path, json.loads(exchange["answer"])))
    return reads


def check(path: str, answer: Any) -> int:
    """The client's checks of one read answer; the number of objects checked."""
    shape = KIND_SHAPES.item_shape(path)
    if shape is not None:
        assert envelope_misfit(answer) is None and items_misfit(answer["items"], shape) is None
        return len(answer["items"])
    if KIND_SHAPES.object_shape(path) is None:
        return 0
    assert KIND_SHAPES.object_misfit(path, answer) is None, path
    return 1


def timed(reads: list[tuple[str, Any]], checks: int) -> tuple[float, int]:
    done = 0
    started = time.process_time()
    while done < checks:
        for path, answer in reads:
            done += check(path, answer)
    return time.process_time() - started, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        reads = recorded_reads(Path(work))
    checked = sum(check(path, answer) for path, answer in reads)
    print(f"{len(reads)} GET answers of a plan of examples/acme, {checked} objects checked")
    times = []
    for _ in range(arguments.runs):
        cpu, done = timed(reads, arguments.checks)
        times.append(cpu)
        print(f"{done} objects checked: {cpu:.3f} s of CPU")
    print(f"median {statistics.median(times):.3f} s ({min(times):.3f}-{max(times):.3f})")


if __name__ == "__main__":
    main()
