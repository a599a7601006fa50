"""Running docform as a user's shell does: its output on a terminal (a pseudo-terminal), where
it draws progress and colours that a pipe never shows."""

from __future__ import annotations

import os
import pty
import re
import subprocess

ANSI_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def on_a_terminal(command: list[str], env: dict[str, str], *, raw: bool = False) -> str:
    """Run ``command`` with its output on a pseudo-terminal (as in a user's shell); returns
    everything it wrote, terminal control sequences removed unless ``raw``."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == 0, b"".join(chunks).decode()
    written = b"".join(chunks).decode()
    return written if raw else ANSI_CONTROL.sub("", written)
