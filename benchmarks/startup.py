"""What starting docform costs: the CPU and wall time of whole ``docform`` processes.

    python benchmarks/startup.py [--runs N] [--compile] [--baseline SRC]

Each command runs N times (default 10) after one run that is not counted, as a user or a CI job
runs it: ``--version``, ``--help``, ``validate`` of examples/acme, and ``plan`` of it against a
sandbox seeded from its sandbox-seed.yaml (``DOCFORM_API_URL=sandbox:FILE``). A run's CPU is
the operating system's account of the finished process (user + system, its children included);
the median is printed with the spread. Bytecode is kept in a directory of this run (the state of
any installed docform); ``--compile`` measures instead what each start costs where it cannot be
kept (PYTHONDONTWRITEBYTECODE=1 with an editable install: every run compiles docform again).
``--baseline SRC`` runs a second docform beside it, from the source folder SRC (one made by
``git archive REV src | tar -x``), each of its runs right after one of this docform's, so that
both meet the same load: its medians and this one's share of them are printed too.

The tests start docform about 150 times and every CI job at least once, so what a command
imports that it does not run is paid for many times over.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ACME = REPO / "examples" / "acme"
COMMANDS = (
    ("--version",),
    ("--help",),
    ("validate", str(ACME / "manifests")),
    ("plan", str(ACME / "manifests")),
)


Run = tuple[float, float]


def run_once(arguments: tuple[str, ...], env: dict[str, str]) -> Run:
    """CPU and wall seconds of one ``docform ARGUMENTS`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "docform", *arguments]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"docform {' '.join(arguments)} exited {done.returncode}: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):6.3f} ({min(values):.3f}-{max(values):.3f})"


def row(label: str, runs: list[Run]) -> str:
    return f"{label:<44} {spread([r[0] for r in runs]):>22} {spread([r[1] for r in runs]):>22}"


def environment(work: Path, compile_each_run: bool) -> dict[str, str]:
    sandbox = work / "acme.sqlite"
    seed = [sys.executable, "-m", "docform", "sandbox", "seed", "--data", str(sandbox)]
    subprocess.run([*seed, str(ACME / "sandbox-seed.yaml")], check=True, capture_output=True)
    env = {
        **os.environ,
        "DOCFORM_API_URL": f"sandbox:{sandbox}",
        "DOCFORM_API_TOKEN": "tok_startup_benchmark",
        "NO_COLOR": "1",
    }
    if compile_each_run:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="counted runs of each command")
    parser.add_argument(
        "--compile", action="store_true", help="no bytecode kept: each run compiles docform"
    )
    parser.add_argument("--baseline", type=Path, help="a docform source folder to compare with")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="docform-startup-") as directory:
        env = environment(Path(directory), args.compile)
        baseline = {**env, "PYTHONPATH": str(args.baseline)} if args.baseline else None
        print(f"load average {os.getloadavg()[0]:.2f}; {args.runs} runs each; median (min-max)")
        print(f"{'command':<44} {'CPU s':>22} {'wall s':>22}")
        for arguments in COMMANDS:
            shown = "docform " + " ".join(arguments).replace(f"{REPO}/", "")
            runs: list[Run] = []
            before: list[Run] = []
            # The first run of each is not counted: it keeps the bytecode, warms the caches.
            for number in range(args.runs + 1):
                ran = run_once(arguments, env)
                runs += [ran] if number else []
                if baseline is not None:
                    ran = run_once(arguments, baseline)
                    before += [ran] if number else []
            print(row(shown, runs))
            if before:
                share = statistics.median(r[0] for r in runs) / statistics.median(
                    r[0] for r in before
                )
                print(row(f"  baseline (CPU: this one is {share:.2f} of it)", before))
    return 0


if __name__ == "__main__":
    sys.exit(main())
