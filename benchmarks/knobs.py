"""What each process or transport knob saves: a command a user runs, with the knob and without.

    python benchmarks/knobs.py acme [--pairs N] [--knob NAME ...]
    python benchmarks/knobs.py bench [--pairs N] [--latency-ms MS] [--knob NAME ...]

``acme`` is ``docform plan examples/acme/manifests`` against a sandbox seeded from its
sandbox-seed.yaml (``sandbox:FILE``, in-process); ``bench`` is ``docform plan`` of the benchmark
organization's ``match/`` manifests (benchmarks/generate.py, ``.docform/bench``) against that
organization served by ``docform sandbox serve`` (default latency 0 ms). Each run is a whole
``docform`` process, started the same way with the knob on and off: off, a few lines run before
the command undo that one knob and nothing else (`OFF`; the knobs that BENCHMARKS.md, "Process
knobs", found not worth keeping were measured with this script as it was in the commit that
added it). Each pair runs both, in alternating order, so that both meet the same load; the
median of the CPU (user + system, the operating system's account of the process) and of the
wall time is printed for each side, with the share the knob saves (1 - on / off).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ACME = REPO / "examples" / "acme"
sys.path.insert(0, str(HERE))

OFF = {
    "connection-pool": (
        "import httpx, docform.api.client as c\n"
        "c.network_transport = lambda proxy=None: httpx.AsyncHTTPTransport(proxy=proxy)\n"
    ),
    "worker-threads": (
        "import docform.engine.snapshot as s, docform.workflow.run as r, docform.runtime as t\n"
        "async def inline(items, function, *args, **kwargs):\n"
        "    return function(*args, **kwargs)\n"
        "async def on_the_loop(function, *args, **kwargs):\n"
        "    return function(*args, **kwargs)\n"
        "s.beside_the_loop = r.beside_the_loop = inline\n"
        "t.in_a_thread = on_the_loop\n"
    ),
    "switch-interval": "import docform.runtime as r\nr.SWITCH_INTERVAL_S = 1.0\n",
    "gc-planning": (
        "import contextlib, docform.runtime as r\n"
        "r.collecting_rarely = contextlib.nullcontext\n"
        "r.frozen_after = lambda step: step\n"
    ),
}
"""For each knob, what undoes it before the command runs."""
HEADER = (
    "| knob | CPU s on | CPU s off | CPU saved | wall s on | wall s off | wall saved | pairs |\n"
    "|---|---|---|---|---|---|---|---|"
)
RUN = "import sys\nfrom docform.cli import main\nsys.argv[0] = 'docform'\nmain()\n"


def run_once(code: str, arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU and wall seconds of one docform process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-c", code + RUN, *arguments]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 2):
        raise SystemExit(f"docform {' '.join(arguments)} exited {done.returncode}: {done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def compare(knob: str, arguments: list[str], env: dict[str, str], pairs: int) -> str:
    on: list[tuple[float, float]] = []
    off: list[tuple[float, float]] = []
    run_once("", arguments, env)  # not counted: bytecode written, caches warm
    for pair in range(pairs):
        sides = [("", on), (OFF[knob], off)]
        for code, runs in sides if pair % 2 == 0 else reversed(sides):
            runs.append(run_once(code, arguments, env))
    cpu_on, cpu_off = (statistics.median(cpu for cpu, _ in runs) for runs in (on, off))
    wall_on, wall_off = (statistics.median(wall for _, wall in runs) for runs in (on, off))
    return (
        f"| {knob} | {cpu_on:.3f} | {cpu_off:.3f} | {1 - cpu_on / cpu_off:+.1%} "
        f"| {wall_on:.3f} | {wall_off:.3f} | {1 - wall_on / wall_off:+.1%} | {pairs} |"
    )


def acme_command(work: Path) -> tuple[list[str], dict[str, str]]:
    data = work / "acme.sqlite"
    seed = [sys.executable, "-m", "docform", "sandbox", "seed", "--data", str(data), "-q"]
    subprocess.run([*seed, str(ACME / "sandbox-seed.yaml")], check=True)
    env = {**os.environ, "DOCFORM_API_URL": f"sandbox:{data}", "NO_COLOR": "1"}
    env.pop("DOCFORM_API_TOKEN", None)
    return ["plan", str(ACME / "manifests")], env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("acme", "bench"))
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--knob", action="append", choices=sorted(OFF))
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--out", type=Path, default=REPO / ".docform" / "bench")
    args = parser.parse_args(argv)
    print(
        "| knob | CPU s on | CPU s off | CPU saved | wall s on | wall s off | wall saved | pairs |"
    )
    print("|---|---|---|---|---|---|---|---|")
    work = Path(tempfile.mkdtemp(prefix="docform-knobs-"))
    try:
        if args.command == "acme":
            arguments, env = acme_command(work)
            for knob in args.knob or sorted(OFF):
                print(compare(knob, arguments, env, args.pairs), flush=True)
            return 0
        from served import SERVER_TOKEN, served_sandbox

        with served_sandbox(args.out, "knobs", args.latency_ms) as server:
            env = {**os.environ, "DOCFORM_API_URL": server.url, "NO_COLOR": "1"}
            env["DOCFORM_API_TOKEN"] = SERVER_TOKEN
            arguments = ["plan", str(args.out / "match")]
            for knob in args.knob or sorted(OFF):
                print(compare(knob, arguments, env, args.pairs), flush=True)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
