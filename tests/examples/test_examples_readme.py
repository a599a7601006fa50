"""The walkthrough of examples/acme/README.md works as written: its shell blocks run in bash, in
a copy of the example, one after the other, and every line exits as its comment says
(`# exit 2: ...`; 0 when it says nothing)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "acme"
README = (EXAMPLE / "README.md").read_text(encoding="utf-8")
SHELL_BLOCK = re.compile(r"```sh\n(.*?)```", re.DOTALL)
COMMENT = re.compile(r"\s+#\s.*$")
SAID_EXIT = re.compile(r"#\s.*?\bexit (\d)")


def walkthrough_lines() -> list[str]:
    """The lines of every shell block before "## The CI", continuation lines joined."""
    text = README[README.index("## Walkthrough") : README.index("## The CI")]
    blocks = SHELL_BLOCK.findall(text)
    joined = re.sub(r"\\\n\s*", " ", "\n".join(blocks))
    return [line.strip() for line in joined.splitlines() if line.strip()]


def script_of(lines: list[str]) -> str:
    """A bash script running ``lines`` and reporting each one's exit code on fd 3."""
    script = []
    for number, line in enumerate(lines):
        command = COMMENT.sub("", line)
        if command.endswith("&"):
            script.append(command)
        else:
            script.append(f'{command}\necho "{number} $?" >&3')
    return "\n".join(script) + "\n"


def test_the_walkthrough_runs_as_written(tmp_path: Path):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed here")
    checkout = tmp_path / "acme"
    shutil.copytree(EXAMPLE, checkout)
    lines = walkthrough_lines()
    codes_file = tmp_path / "codes"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for name in ("DOCFORM_API_URL", "DOCFORM_API_TOKEN", "NO_COLOR"):
        env.pop(name, None)
    done = subprocess.run(
        ["bash", "-c", f"exec 3>{codes_file}\n{script_of(lines)}"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    codes = dict(line.split() for line in codes_file.read_text().splitlines())
    for number, line in enumerate(lines):
        if COMMENT.sub("", line).endswith("&"):
            continue
        said = SAID_EXIT.search(line)
        expected = said.group(1) if said else "0"
        assert codes.get(str(number)) == expected, f"{line}\n{done.stdout}\n{done.stderr}"
    assert "Plan: 56 to create, 8 to update, 1 to delete, 0 to move." in done.stdout
    assert "role" in (checkout / "drift.md").read_text(encoding="utf-8")
    assert not (checkout / ".docform" / "sandbox-url").exists()
