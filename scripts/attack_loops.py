"""The attacker's loops of issue 27, as a script: kills, concurrent applies from separate clones,
and faults, each run ending with what an apply must never leave behind.

    .venv/bin/python scripts/attack_loops.py                 # a short run (10 runs)
    .venv/bin/python scripts/attack_loops.py --kills 65 --clones 8 --faults 40 --json out.json

Not part of `make test`: it starts many docform processes. Every run copies
examples/quickstart, seeds a fresh sandbox file from examples/sandbox-seed.yaml and calls docform
as a user would (`python -m docform`, the in-process sandbox through ``sandbox:FILE``), with a
random canary as DOCFORM_API_TOKEN. After each run a final `docform apply --yes` and `docform
plan --json` are made without faults, and counted:

- duplicates: the plan refuses because two live objects match one entry;
- orphans: live objects the final plan lists as unmanaged beyond those of a clean apply;
- false "Apply complete": an apply that said it, after which a plan without faults still
  finds changes (concurrent applies are not judged so: another apply may still be running);
- tracebacks: a "Traceback" in anything docform printed;
- canary leaks: the token in anything docform printed or left in the manifest directory.

Loops:
- kill: an apply is killed (SIGKILL) right after a random number of its calls have answered
  (1 to one less than a clean apply makes), then applied again to the end;
- clones: three applies at once, each from its own copy of the manifests and its own lock
  directory (three machines: the local lock does not serialise them), over HTTP to the sandbox
  file served by ``docform sandbox serve`` with 30 ms of latency;
- clone kills (``--clone-kills``): the clones loop, the last clone killed (SIGKILL) right after
  a random number of its calls have answered: a twin it made and did not settle is the next
  plan's to settle;
- faults: an apply under ``DOCFORM_SANDBOX_FAULTS`` (500/502/503/429/drop/lost at 40 % in all),
  repeated until it says "Apply complete" or five tries are spent.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
QUICKSTART = REPO / "examples" / "quickstart"
SEED = REPO / "examples" / "sandbox-seed.yaml"
FAULTS = "500:0.08,502:0.06,503:0.06,429:0.06,drop:0.07,lost:0.07"
CALL_LINES = ("ok   ", "FAIL ")
"""How `docform apply` starts the line of each call that answered."""
DUPLICATE = re.compile(r"\b\d+ live [\w ]+? match\b")


@dataclass
class Tally:
    runs: int = 0
    duplicates: int = 0
    orphans: int = 0
    false_complete: int = 0
    tracebacks: int = 0
    canary_leaks: int = 0
    not_converged: int = 0
    killed_mid_apply: int = 0
    creates_refused: int = 0
    """Creates not sent because their object appeared since the plan (another clone's)."""
    twins_settled: int = 0
    """Objects two clones made at once, the newer deleted by its creator."""
    twins_left_settled: int = 0
    """Entries whose twins a killed clone left, settled by a later plan (deleted by it)."""
    kill_points: list[int] = field(default_factory=list)
    """After how many answered calls each killed apply was killed."""
    notes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("runs", "duplicates", "orphans", "false_complete", "tracebacks",
                     "canary_leaks", "not_converged", "killed_mid_apply", "creates_refused",
                     "twins_settled", "twins_left_settled"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.notes += other.notes
        self.kill_points += other.kill_points


class Run:
    """One sandbox and the manifest copies that act on it, in a temporary directory."""

    def __init__(self, root: Path, canary: str) -> None:
        self.root = root
        self.sandbox = root / "sandbox.sqlite"
        self.canary = canary
        self.outputs: list[str] = []
        docform(["sandbox", "seed", "--data", str(self.sandbox), str(SEED)], {})

    def clone(self, name: str) -> Path:
        target = self.root / name
        shutil.copytree(QUICKSTART, target)
        return target

    def env(
        self, lock_dir: str = "locks", faults: str | None = None, seed: int = 0, url: str = ""
    ) -> dict:
        env = {
            "DOCFORM_API_URL": url or f"sandbox:{self.sandbox}",
            "DOCFORM_API_TOKEN": self.canary,
            "DOCFORM_LOCK_DIR": str(self.root / lock_dir),
            "NO_COLOR": "1",
        }
        if faults:
            env |= {"DOCFORM_SANDBOX_FAULTS": faults, "DOCFORM_SANDBOX_FAULT_SEED": str(seed),
                    "DOCFORM_SANDBOX_RETRY_AFTER": "0"}  # fmt: skip
        return env

    def docform(self, args: list[str], env: dict) -> subprocess.CompletedProcess[str]:
        done = docform(args, env)
        self.outputs.append(done.stdout + done.stderr)
        return done

    def start(self, args: list[str], env: dict) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "docform", *args], env={**os.environ, **env}, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def finish(self, manifests: Path, tally: Tally, baseline: Counter[str] | None) -> bool:
        """Apply to the end without faults, then plan; counts what the run left behind.
        Returns whether the organization converged."""
        applied = self.docform(["apply", str(manifests), "--yes"], self.env())
        planned = self.docform(["plan", str(manifests), "--json"], self.env())
        text = applied.stdout + applied.stderr + planned.stderr
        if planned.returncode == 1 and DUPLICATE.search(text):
            tally.duplicates += 1
            tally.notes.append(_first_error(text))
            return False
        if planned.returncode != 0:
            tally.not_converged += 1
            tally.notes.append(_first_error(text))
            return False
        plan = json.loads(planned.stdout)
        if plan.get("changes"):
            tally.not_converged += 1
            tally.notes.append(f"{len(plan['changes'])} changes left after a clean apply")
        if baseline is not None:
            extra = unmanaged(plan) - baseline
            if extra:
                tally.orphans += sum(extra.values())
                tally.notes.append(f"orphans: {sorted(extra)}")
        return not plan.get("changes")

    def judge_outputs(self, manifests: list[Path], tally: Tally) -> None:
        for text in self.outputs:
            lines = text.splitlines()
            tally.creates_refused += sum(
                line.startswith("  failed:") and "not created: a live" in line for line in lines
            )
            tally.twins_settled += sum(
                line.startswith("Note:") and "at the same time (" in line for line in lines
            )
            tally.twins_left_settled += sum(
                "twins that applies run at once left" in line for line in lines
            )
            if "Traceback" in text:
                tally.tracebacks += 1
                tally.notes.append(text[text.index("Traceback") :][:300])
            if self.canary in text:
                tally.canary_leaks += 1
        for directory in manifests:
            for path in directory.rglob("*"):
                if path.is_file() and self.canary.encode() in path.read_bytes():
                    tally.canary_leaks += 1
                    tally.notes.append(f"canary in {path.name}")


def docform(args: list[str], env: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docform", *args], env={**os.environ, **env}, text=True,
        capture_output=True, timeout=600,
    )  # fmt: skip


def unmanaged(plan: dict[str, Any]) -> Counter[str]:
    return Counter(f"{u['kind']}:{u.get('title')}" for u in plan.get("unmanaged", []))


def _first_error(text: str) -> str:
    lines = [line for line in text.splitlines() if line.startswith(("Error", "  failed"))]
    return (lines[0] if lines else text.strip().splitlines()[-1] if text.strip() else "")[:300]


def clean_baseline(work: Path) -> tuple[Counter[str], int]:
    """What a clean apply of the quickstart leaves unmanaged (the seed's own objects), and how
    many calls it makes."""
    run = Run(work / "baseline", canary_token())
    manifests = run.clone("m")
    applied = run.docform(["apply", str(manifests), "--yes"], run.env())
    planned = run.docform(["plan", str(manifests), "--json"], run.env())
    calls = sum(line.startswith(CALL_LINES) for line in applied.stdout.splitlines())
    return unmanaged(json.loads(planned.stdout)), calls


def canary_token() -> str:
    return f"canary-{secrets.token_hex(12)}"


def kill_loop(
    work: Path, runs: int, baseline: Counter[str], rng: random.Random, calls: int
) -> Tally:
    """Each apply is killed right after a random number of its calls have answered (1 to one
    less than a clean apply makes), so every kill lands after a write and before the end,
    however slow the machine; others may be in flight then."""
    tally = Tally()
    for number in range(runs):
        run = Run(work / f"kill-{number}", canary_token())
        manifests = run.clone("m")
        process = run.start(["apply", str(manifests), "--yes"], run.env())
        kill_after = rng.randint(1, max(1, calls - 1))
        seen, made = [], 0
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            made += line.startswith(CALL_LINES)
            if made == kill_after:
                process.send_signal(signal.SIGKILL)
                tally.killed_mid_apply += 1
                tally.kill_points.append(made)
                break
        out, _ = process.communicate()
        run.outputs.append("".join(seen) + (out or ""))
        run.finish(manifests, tally, baseline)
        run.judge_outputs([manifests], tally)
        tally.runs += 1
    return tally


def clone_loop(
    work: Path, runs: int, baseline: Counter[str], kill: tuple[random.Random, int] | None = None
) -> Tally:
    """Three clones apply at once over HTTP to one served sandbox (as three machines would).
    With ``kill`` (a seeded random and the calls of a clean apply), the last clone is killed
    right after a random number of its calls have answered, as a machine lost mid-apply: what
    it made and did not settle is the next plan's to settle."""
    tally = Tally()
    for number in range(runs):
        run = Run(work / f"clones-{number}", canary_token())
        clones = [run.clone(f"m{i}") for i in range(3)]
        with served(run) as root:
            started = [
                run.start(["apply", str(c), "--yes"], run.env(f"locks-{i}", url=root))
                for i, c in enumerate(clones)
            ]
            if kill is not None:
                rng, calls = kill
                killed_after = kill_after_calls(started[-1], rng.randint(1, max(1, calls - 1)))
                if killed_after is not None:
                    tally.killed_mid_apply += 1
                    tally.kill_points.append(killed_after)
            for process in started:
                out, _ = process.communicate(timeout=600)
                run.outputs.append(out or "")
        run.finish(clones[0], tally, baseline)
        run.judge_outputs(clones, tally)
        tally.runs += 1
    return tally


def kill_after_calls(process: subprocess.Popen[str], after: int) -> int | None:
    """SIGKILL ``process`` once ``after`` of its calls have answered; how many had, or None
    when it ended first. What it printed until then is lost with it (it printed no secret:
    the run's other outputs are judged)."""
    assert process.stdout is not None
    made = 0
    for line in process.stdout:
        made += line.startswith(CALL_LINES)
        if made == after:
            process.send_signal(signal.SIGKILL)
            return made
    return None


@contextlib.contextmanager
def served(run: Run) -> Iterator[str]:
    """``docform sandbox serve`` on the run's sandbox file, with some latency so that the
    applies' calls interleave; its token is the run's canary. Yields its root URL."""
    ready = run.root / "ready"
    server = subprocess.Popen(
        [sys.executable, "-m", "docform", "sandbox", "serve", "--port", "0", "--data",
         str(run.sandbox), "--token", run.canary, "--latency-ms", "30", "--ready-file", str(ready)],
        env={**os.environ, "NO_COLOR": "1"}, text=True, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not (ready.exists() and ready.read_text().strip()):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("docform sandbox serve did not start")
            time.sleep(0.1)
        yield ready.read_text().strip()
    finally:
        server.terminate()
        server.wait(timeout=30)


def fault_loop(work: Path, runs: int, baseline: Counter[str]) -> Tally:
    tally = Tally()
    for seed in range(runs):
        run = Run(work / f"faults-{seed}", canary_token())
        manifests = run.clone("m")
        for attempt in range(5):
            env = run.env(faults=FAULTS, seed=seed * 10 + attempt)
            applied = run.docform(["apply", str(manifests), "--yes"], env)
            if "Apply complete" not in applied.stdout + applied.stderr:
                continue
            planned = run.docform(["plan", str(manifests), "--json"], run.env())
            if planned.returncode != 0 or json.loads(planned.stdout).get("changes"):
                tally.false_complete += 1
                tally.notes.append(f"seed {seed}: 'Apply complete', then the plan was not empty")
            break
        run.finish(manifests, tally, baseline)
        run.judge_outputs([manifests], tally)
        tally.runs += 1
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=4, help="kill runs (default 4)")
    parser.add_argument("--clones", type=int, default=2, help="three-clone runs (default 2)")
    parser.add_argument(
        "--clone-kills", type=int, default=0, help="three-clone runs, one killed (default 0)"
    )
    parser.add_argument("--faults", type=int, default=4, help="fault seeds (default 4)")
    parser.add_argument("--seed", type=int, default=27, help="seed of the kill points")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="docform-attack-") as temporary:
        work = Path(temporary)
        baseline, calls = clean_baseline(work)
        loops = {
            "kill": kill_loop(work, args.kills, baseline, random.Random(args.seed), calls),
            "clones": clone_loop(work, args.clones, baseline),
            "clone-kills": clone_loop(
                work / "killed", args.clone_kills, baseline, (random.Random(args.seed), calls)
            ),
            "faults": fault_loop(work, args.faults, baseline),
        }
    total = Tally()
    for tally in loops.values():
        total.add(tally)
    figures = {name: asdict(t) for name, t in loops.items()} | {"total": asdict(total)}
    figures["seconds"] = round(time.monotonic() - started, 1)
    figures["calls_of_a_clean_apply"] = calls
    for name, tally in (*loops.items(), ("total", total)):
        print(
            f"{name:11} runs {tally.runs:3}  duplicates {tally.duplicates}  orphans "
            f"{tally.orphans}  false 'Apply complete' {tally.false_complete}  tracebacks "
            f"{tally.tracebacks}  canary leaks {tally.canary_leaks}  not converged "
            f"{tally.not_converged}  killed mid-apply {tally.killed_mid_apply}  creates "
            f"refused {tally.creates_refused}  twins settled {tally.twins_settled}  left twins "
            f"settled by a plan {tally.twins_left_settled}"
        )
    if total.kill_points:
        points = sorted(total.kill_points)
        print(f"  kills after {points[0]} to {points[-1]} answered calls "
              f"(median {points[len(points) // 2]}) of {calls}")  # fmt: skip
    for note in total.notes:
        print(f"  note: {note}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    bad = total.duplicates + total.orphans + total.false_complete + total.tracebacks
    return 1 if bad + total.canary_leaks + total.not_converged else 0


if __name__ == "__main__":
    sys.exit(main())
