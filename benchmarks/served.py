"""A served sandbox for one scenario, and the measured worker processes that talk to it.

Each scenario serves a fresh copy of the generated database with ``docform sandbox serve`` (a
real HTTP server in its own process), so the sandbox's CPU never counts as docform's.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SERVER_TOKEN = "bench-admin-token"
READY_TIMEOUT_S = 30.0


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]

    def _control(self, method: str, path: str) -> Any:
        request = urllib.request.Request(
            self.url + path,
            method=method,
            data=b"" if method == "POST" else None,
            headers={"Authorization": f"Bearer {SERVER_TOKEN}"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            body = answer.read()
        return json.loads(body) if body else None

    def take_stats(self) -> dict[str, Any]:
        """The sandbox's request counts since the last call, then reset."""
        stats = self._control("GET", "/_sandbox/stats")
        self._control("POST", "/_sandbox/stats/reset")
        return {"total": stats["total"], "byStatus": stats["byStatus"]}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def served_sandbox(out: Path, name: str, latency_ms: float) -> Iterator[Server]:
    """``docform sandbox serve`` over a copy of ``out/base.sqlite``, stopped on exit."""
    data = out / f"{name}.sqlite"
    for stale in out.glob(f"{name}.sqlite*"):
        stale.unlink()
    shutil.copyfile(out / "base.sqlite", data)
    port = _free_port()
    command = [
        sys.executable, "-m", "docform", "sandbox", "serve", "--port", str(port),
        "--data", str(data), "--token", SERVER_TOKEN, "--latency-ms", str(latency_ms),
    ]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    server = Server(f"http://127.0.0.1:{port}", process)
    try:
        _wait_ready(server)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_ready(server: Server) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        try:
            server.take_stats()
            return
        except OSError:
            if server.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the sandbox at {server.url} did not start") from None
            time.sleep(0.1)


def command(server: Server, out: Path) -> dict[str, Any]:
    """``docform apply --yes`` of a fresh copy of ``out/changed`` (it writes docform.lock
    there), the command a user runs, every step of it (the rehearsal on a twin, the calls,
    the read after them, the audience read back): its exit code, its last line, its wall and
    CPU time and its peak memory."""
    manifests = out / "command"
    shutil.rmtree(manifests, ignore_errors=True)
    shutil.copytree(out / "changed", manifests)
    run = [sys.executable, "-m", "docform", "apply", str(manifests), "--yes"]
    env = {**os.environ, "DOCFORM_API_URL": server.url, "DOCFORM_API_TOKEN": SERVER_TOKEN}
    env["NO_COLOR"] = "1"
    started = time.monotonic()
    process = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert process.stdout is not None
    lines = process.stdout.read().decode("utf-8", "replace").splitlines()
    _, status, usage = os.wait4(process.pid, 0)
    exit_code = os.waitstatus_to_exitcode(status)
    said = [line for line in lines if line.startswith(("Apply ", "Error", "Rehearsed "))]
    return {
        "exit": exit_code,
        "said": said[-3:],
        "process": {
            "wall_s": time.monotonic() - started,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_mb": usage.ru_maxrss / 1024,  # kilobytes on Linux
        },
    }


def worker(server: Server, mode: str, *args: str) -> dict[str, Any]:
    """``worker.py MODE ARGS URL`` in a new process: its JSON, its CPU time and peak memory."""
    command = [sys.executable, str(HERE / "worker.py"), mode, *args, server.url]
    env = {**os.environ, "DOCFORM_API_TOKEN": SERVER_TOKEN}
    env.pop("DOCFORM_API_URL", None)
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"the {mode} worker failed (exit {process.returncode})")
    result = json.loads(output)
    result["process"] = {
        "wall_s": time.monotonic() - started,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,  # kilobytes on Linux
    }
    return result
