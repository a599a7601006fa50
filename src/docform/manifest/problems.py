"""Problems found in manifests, each with a location, and the error that carries all of them."""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path as FilePath
from typing import Any

from docform.errors import DocformError
from docform.model.entry import Location

#: A path to a value: mapping keys and list indexes from the top of a manifest document.
Path = tuple[str | int, ...]


# A key that is empty or starts or ends with a space would vanish from a dotted path: quoted.
_INVISIBLE_KEY = re.compile(r"^(\s.*|.*\s|)$", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def render_path(path: Path) -> str:
    """``('sites', 'docs', 'sections', 0)`` -> ``sites.docs.sections[0]``; an empty key or one
    with spaces around it is quoted (``teams[" "]``), so that it is still seen."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _INVISIBLE_KEY.match(part):
            text += f"[{json.dumps(part)}]"
        else:
            text += f".{part}" if text else part
    return text


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped (``\\n``), so that
    every problem prints as exactly one line, whatever a manifest's keys and values hold."""
    return _CONTROL.sub(lambda found: json.dumps(found.group())[1:-1], text)


@dataclass(frozen=True, order=True)
class Problem:
    """One mistake: where (file relative to the manifest directory, ``.`` for the directory
    itself; line; column), which value (a dotted path) and what is wrong. Renders as
    ``FILE:LINE:COL: path.to.field: message``."""

    file: str
    line: int
    column: int
    path: str
    message: str

    @classmethod
    def at(cls, location: Location, path: Path, message: str) -> Problem:
        return cls(location.file, location.line, location.column, render_path(path), message)

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        text = f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"
        return one_line(text)

    def seen_from(self, directory: str | os.PathLike[str]) -> Problem:
        """This problem with its file joined to ``directory`` (the manifest directory as the
        user named it), so that it is relative to the working directory like the command line
        was: ``integrations.yaml`` -> ``manifests/integrations.yaml``. Editors, terminals and
        CI problem matchers can then open it."""
        return replace(self, file=str(FilePath(directory, self.file)))

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "path": self.path,
            "message": self.message,
        }


MAX_LISTED_PROBLEMS = 1000
"""Problems a `ManifestError` lists: past them, a count (a pasted file of 100,000 copies of one
entry would otherwise print, and hold, every one of its problems)."""


class ManifestError(DocformError):
    """The manifests are not valid; ``problems`` lists every mistake, sorted by file and line."""

    def __init__(self, problems: Iterable[Problem]):
        found = sorted(set(problems))
        self.problems: list[Problem] = found[:MAX_LISTED_PROBLEMS]
        if len(found) > MAX_LISTED_PROBLEMS:
            rest = len(found) - MAX_LISTED_PROBLEMS
            self.problems.append(
                Problem(
                    ".", 0, 0, "",
                    f"{rest} more problems are not listed (docform lists the first "
                    f"{MAX_LISTED_PROBLEMS}); fix these and validate again",
                )
            )  # fmt: skip
        count = len(found)
        lines = "\n".join(str(p) for p in self.problems)
        noun = "problem" if count == 1 else "problems"
        super().__init__(f"{count} {noun} in the manifests:\n{lines}")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'title'?)`` when a choice is close to ``word``, else an empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def unknown_name(what: str, name: str, choices: Sequence[str]) -> str:
    """``unknown collection 'enginering' (did you mean 'engineering'?)``."""
    return f"unknown {what} '{name}'{did_you_mean(name, choices)}"
