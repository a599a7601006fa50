"""The description of the service's read answers that docform's client is built from, written
by the sandbox's route modules and committed as ``src/docform/service/service_answers.json``.

Each route module describes its answers beside its endpoints (`docform_sandbox.answer_schema`).
The client must check answers against the same description, yet never import the sandbox (a
plan against the real service loads none of it). So the description of every ``GET`` answer is
written to a JSON file in the package, next to the code that reads it
(`docform.service.answer_description`), and a test fails when it no longer matches the route
modules.
Run ``make answers`` (``python -m docform_sandbox.service_answers``) after changing a route's
answer. Path templates are written as the kinds write them: ``*`` for each path parameter.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from typing import Any

from docform.service.answer_description import DESCRIPTION_FILE
from docform_sandbox.answer_schema import Schema
from docform_sandbox.routes import ENDPOINTS, objects

TARGET = DESCRIPTION_FILE
ABOUT = (
    "The answers of the service's GET routes, by path template (* for a path parameter), in "
    "JSON Schema. Generated from the sandbox's route modules by `make answers`; do not edit."
)
_PARAMETER = re.compile(r"\{\w+\}")
_REF = "#/components/schemas/"


def template(path: str) -> str:
    """``/orgs/{organizationId}/teams`` as ``/orgs/*/teams``."""
    return _PARAMETER.sub("*", path)


def service_answers() -> dict[str, Any]:
    """Every GET route's answer and the objects those answers are made of."""
    answers = {
        template(ep.path): ep.answer
        for ep in sorted(ENDPOINTS, key=lambda ep: template(ep.path))
        if ep.method == "GET" and ep.answer is not None
    }
    names = sorted(_referenced(answers.values()))
    return {
        "about": ABOUT,
        "paths": answers,
        "components": {"schemas": {name: objects()[name] for name in names}},
    }


def _referenced(schemas: Iterable[Schema]) -> set[str]:
    """The names of the objects ``schemas`` refer to, and those those refer to, and so on."""
    found: set[str] = set()
    pending = list(schemas)
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith(_REF) and ref[len(_REF) :] not in found:
                found.add(ref[len(_REF) :])
                pending.append(objects()[ref[len(_REF) :]])
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return found


def rendered() -> str:
    """The file's text: stable, so that an unchanged description leaves no diff."""
    return json.dumps(service_answers(), indent=1, sort_keys=True) + "\n"


def main() -> int:
    TARGET.write_text(rendered(), encoding="utf-8")
    print(f"wrote {TARGET.name}: the answers of {len(service_answers()['paths'])} GET routes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
