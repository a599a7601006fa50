"""How long an apply spends keeping docform.lock current: N creates, each recorded at once.

    python benchmarks/lock_writes.py [N]

Runs `LockRecorder` (what `apply` uses) against a temporary directory, so it measures the
rendering and the atomic file replacement per create, not the API.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from docform.workflow.identity import LockRecorder


def main(creates: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        manifests = SimpleNamespace(directory=Path(directory), organization=SimpleNamespace(id="o"))
        recorder = LockRecorder(manifests, SimpleNamespace(identities={}))
        recorder.start()
        started = time.perf_counter()
        for n in range(creates):
            change = SimpleNamespace(kind="space", address=f"space.s{n:06d}")
            recorder.created(change, {"id": f"sp_{n}"})
        seconds = time.perf_counter() - started
    print(f"{creates} creates recorded in {seconds:.2f} s ({seconds / creates * 1000:.2f} ms each)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
