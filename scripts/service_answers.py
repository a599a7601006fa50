"""Writes src/docform/service/service_answers.json from the service's published definition.

    .venv/bin/python scripts/service_answers.py      # make answers

The definition is the npm package ``@gitbook/api`` that ``.ci/node-tools`` pins (``make
node-tools`` installs it); what is taken out of it are the answers of the GET operations the
kinds read, cut down to the fields they use (`docform.service.extract`). Run it after moving the
pin or changing what a kind reads (its ``Reads``); tests/service/test_service_answers.py fails
while the file is stale.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DESCRIPTION_FILE, help="another file")
    target: Path = parser.parse_args().output
    try:
        text = expected_text()
    except ExtractError as exc:
        print(f"make answers: {exc}", file=sys.stderr)
        return 1
    target.write_text(text, encoding="utf-8")
    routes = len(json.loads(text)["routes"])
    shown = target.relative_to(REPO) if target.is_relative_to(REPO) else target
    print(f"wrote {shown}: the answers of {routes} GET routes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
