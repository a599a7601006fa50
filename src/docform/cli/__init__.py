"""The ``docform`` command line: parse, call, render, exit code. No logic lives here.

Exit codes are the same for every command: 0 success (for ``--detailed-exitcode``: no changes),
1 any error, usage errors included, 2 only for "there are changes" or "drift found", and 3
only for a partial plan (``--detailed-exitcode``: the token may not read some kinds).
"""

from __future__ import annotations

import warnings

from docform.cli.group import cli  # its commands' modules are imported as they run

__all__ = ["cli", "main"]


def main() -> None:
    # Ctrl-C cancels reads in flight; anyio's connection racing (happy eyeballs) then drops a
    # coroutine it had made but not started, which Python reports at exit as a RuntimeWarning
    # that is noise to a user: docform's own coroutines are not matched.
    warnings.filterwarnings(
        "ignore",
        message=r"coroutine 'connect_tcp\.<locals>\.try_connect' was never awaited",
        category=RuntimeWarning,
    )
    cli.main(prog_name="docform")
