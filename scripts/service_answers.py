"""Writes src/docform/service/service_answers.json and src/docform_sandbox/definition_answers.json
from the service's published definition.

    .venv/bin/python scripts/service_answers.py      # make answers

The definition is the npm package ``@gitbook/api`` that ``.ci/node-tools`` pins (``make
node-tools`` installs it). Taken out of it: for docform, the answers of the GET operations the
kinds read, cut down to the fields they use (`docform.service.extract`); for the sandbox, the
success answers of every operation it serves and the schemas they use
(`docform_sandbox.answer_schema`). Run it after moving the pin, changing what a kind reads (its
``Reads``) or adding a sandbox route; tests/service/test_service_answers.py and
tests/sandbox/test_sandbox_answers.py fail while a file is stale.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from docform import kind_registry
from docform.service.answer_description import DESCRIPTION_FILE
from docform.service.extract import ExtractError, rendered
from docform_sandbox import answer_schema

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / ".ci" / "node-tools" / "node_modules" / "@gitbook" / "api"
DEFINITION = PACKAGE / "spec" / "openapi.json"


def pinned_definition() -> tuple[dict[str, Any], str]:
    """The pinned definition and its package's version."""
    if not DEFINITION.exists():
        raise SystemExit(
            f"the service's definition is missing ({DEFINITION.relative_to(REPO)}): "
            "run `make node-tools`"
        )
    document = json.loads(DEFINITION.read_text(encoding="utf-8"))
    version = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))["version"]
    return document, version


def expected_text() -> str:
    """What the file holds when it is fresh."""
    document, version = pinned_definition()
    reads, items_as = kind_registry.reads_by_kind(), kind_registry.items_read_as()
    return rendered(document, version, reads, items_as)


def sandbox_expected_text() -> str:
    """What the sandbox's file holds when it is fresh."""
    from docform_sandbox.routes import ENDPOINTS

    document, version = pinned_definition()
    operations = [(ep.method, ep.path) for ep in ENDPOINTS]
    return answer_schema.rendered(answer_schema.extracted(document, version, operations))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DESCRIPTION_FILE, help="another file")
    parser.add_argument(
        "--sandbox-output", type=Path, default=answer_schema.ANSWERS_FILE, help="another file"
    )
    arguments = parser.parse_args()
    try:
        text, sandbox_text = expected_text(), sandbox_expected_text()
    except (ExtractError, answer_schema.AnswerError) as exc:
        print(f"make answers: {exc}", file=sys.stderr)
        return 1
    arguments.output.write_text(text, encoding="utf-8")
    arguments.sandbox_output.write_text(sandbox_text, encoding="utf-8")
    routes = len(json.loads(text)["routes"])
    operations = len(json.loads(sandbox_text)["answers"])
    print(f"wrote {shown(arguments.output)}: the answers of {routes} GET routes")
    print(f"wrote {shown(arguments.sandbox_output)}: the answers of {operations} sandbox routes")
    return 0


def shown(target: Path) -> Path:
    return target.relative_to(REPO) if target.is_relative_to(REPO) else target


if __name__ == "__main__":
    sys.exit(main())
