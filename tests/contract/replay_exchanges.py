"""Check an exchange log again, offline, as the suite's contract check does: to measure the
check, or compare two versions of it on the same exchanges.

Record a log with the check off, then replay it (each file in one process, as one worker):

    DOCFORM_CONTRACT=off DOCFORM_SANDBOX_EXCHANGE_LOG=/dev/shm/exchanges.jsonl \\
        .venv/bin/pytest -n 2 -q tests/kinds tests/workflow
    .venv/bin/python tests/contract/replay_exchanges.py /dev/shm/exchanges.jsonl [--lines OUT]

It prints the exchanges checked, the mismatches found and the CPU time of the check (the
plugin's own reading and checking, `ContractWatch.check`); ``--lines OUT`` writes each mismatch's
line, to compare two runs with ``cmp``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from contract_definition import Definition
from contract_plugin import ContractWatch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="an exchange log (JSON lines)")
    parser.add_argument("--lines", type=Path, help="write each mismatch's line here")
    arguments = parser.parse_args()
    watch = ContractWatch(Definition(), enforce=False, worker=False)
    shutil.rmtree(watch.folder, ignore_errors=True)
    watch.log = arguments.log
    mismatches = watch.check(None)
    print(
        f"{sum(watch.counts.values())} exchanges, {len(mismatches)} distinct mismatches, "
        f"{sum(watch.contradicted.values())} let through, {watch.seconds:.2f} s of CPU"
    )
    if arguments.lines:
        arguments.lines.write_text("".join(f"{m.line()}\n" for m in mismatches))


if __name__ == "__main__":
    main()
