"""The contract check's report (``DOCFORM_CONTRACT_REPORT=FILE``), in Markdown: the exchanges
the suite checked by operation of the definition, the sandbox's routes it never reached, the
sandbox's routes the definition lacks, and every mismatch by operation."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from contract_definition import DEFINITION, Definition, Mismatch

from docform_sandbox.routes import ENDPOINTS

TESTS_SHOWN = 2


def sandbox_routes(definition: Definition) -> dict[str, str | None]:
    """Each sandbox route (``METHOD /template``) and the definition's operation it is, if any."""
    routes: dict[str, str | None] = {}
    for endpoint in ENDPOINTS:
        sample = re.sub(r"\{[^}]+\}", "x", endpoint.path)
        operation = definition.operation(endpoint.method, sample)
        routes[f"{endpoint.method} {endpoint.path}"] = operation.name if operation else None
    return routes


def write_report(
    path: Path,
    definition: Definition,
    counts: Counter[str],
    by_docform: Counter[str],
    found: list[tuple[str, Mismatch]],
) -> None:
    lines = report_lines(definition, counts, by_docform, found)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def report_lines(
    definition: Definition,
    counts: Counter[str],
    by_docform: Counter[str],
    found: list[tuple[str, Mismatch]],
) -> list[str]:
    package = DEFINITION.parents[1] / "package.json"
    version = json.loads(package.read_text())["version"] if package.exists() else DEFINITION.name
    routes = sandbox_routes(definition)
    by_operation: dict[str, list[tuple[str, Mismatch]]] = defaultdict(list)
    for test, mismatch in found:
        by_operation[mismatch.operation].append((test, mismatch))
    lines = [
        f"# Contract check: the suite's exchanges against @gitbook/api {version}",
        "",
        f"{sum(counts.values())} exchanges checked on {len(counts)} operations "
        f"({sum(by_docform.values())} of them sent by docform's client); "
        f"{len(found)} mismatches on {len(by_operation)} routes.",
        "",
        "## Exchanges by operation",
        "",
        "| operation | exchanges | sent by docform | mismatches |",
        "|---|---:|---:|---:|",
    ]
    for operation, count in sorted(counts.items()):
        mismatches = len(by_operation.get(operation, []))
        lines.append(f"| `{operation}` | {count} | {by_docform[operation]} | {mismatches} |")
    never = sorted(route for route, op in routes.items() if op is not None and not counts[op])
    lines += ["", "## Sandbox routes no exchange of the suite reached", ""]
    lines += [f"- `{route}`" for route in never] or ["None."]
    unsent = sorted(route for route, op in routes.items() if op is not None and not by_docform[op])
    lines += ["", "## Sandbox routes no request of docform's client reached", ""]
    lines += [f"- `{route}`" for route in unsent] or ["None."]
    outside = sorted(route for route, op in routes.items() if op is None)
    lines += ["", "## Sandbox routes the definition does not have", ""]
    lines += [f"- `{route}`" for route in outside] or ["None."]
    for title, on_request in (("Answers", False), ("Requests", True)):
        lines += ["", f"## {title} outside the definition, by operation", ""]
        shown = 0
        for operation in sorted(by_operation):
            entries = [e for e in by_operation[operation] if e[1].on_request is on_request]
            if entries:
                lines += [f"### `{operation}`", "", *_mismatch_lines(entries), ""]
                shown += 1
        if not shown:
            lines.append("None.")
    return lines


def _mismatch_lines(entries: list[tuple[str, Mismatch]]) -> list[str]:
    tests: dict[tuple[int, str, str, str], list[str]] = defaultdict(list)
    for test, mismatch in entries:
        # One line for a mismatch however many items of a list it hits.
        path = re.sub(r"\[\d+\]", "[*]", mismatch.path)
        key = (mismatch.status, mismatch.where, path, mismatch.message)
        tests[key].append(test)
    lines = []
    for (status, where, path, message), names in sorted(tests.items()):
        shown = ", ".join(f"`{name}`" for name in sorted(set(names))[:TESTS_SHOWN])
        more = len(set(names)) - TESTS_SHOWN
        shown += f" and {more} more" if more > 0 else ""
        lines.append(f"- {status} {where} `{path}`: {message} ({len(names)}x; {shown})")
    return lines
