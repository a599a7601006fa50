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
    found: list[tuple[str, Mismatch]],
) -> None:
    path.write_text("\n".join(report_lines(definition, counts, found)) + "\n", encoding="utf-8")


def report_lines(
    definition: Definition, counts: Counter[str], found: list[tuple[str, Mismatch]]
) -> list[str]:
    version = json.loads((DEFINITION.parents[1] / "package.json").read_text())["version"]
    routes = sandbox_routes(definition)
    by_operation: dict[str, list[tuple[str, Mismatch]]] = defaultdict(list)
    for test, mismatch in found:
        by_operation[mismatch.operation].append((test, mismatch))
    lines = [
        f"# Contract check: the suite's exchanges against @gitbook/api {version}",
        "",
        f"{sum(counts.values())} exchanges checked on {len(counts)} operations; "
        f"{len(found)} mismatches on {len(by_operation)} routes.",
        "",
        "## Exchanges by operation",
        "",
        "| operation | exchanges | mismatches |",
        "|---|---:|---:|",
    ]
    for operation, count in sorted(counts.items()):
        lines.append(f"| `{operation}` | {count} | {len(by_operation.get(operation, []))} |")
    never = sorted(route for route, op in routes.items() if op is not None and not counts[op])
    lines += ["", "## Sandbox routes no exchange of the suite reached", ""]
    lines += [f"- `{route}`" for route in never] or ["None."]
    outside = sorted(route for route, op in routes.items() if op is None)
    lines += ["", "## Sandbox routes the definition does not have", ""]
    lines += [f"- `{route}`" for route in outside] or ["None."]
    lines += ["", "## Mismatches by operation", ""]
    for operation in sorted(by_operation):
        lines += [f"### `{operation}`", ""]
        lines += _mismatch_lines(by_operation[operation])
        lines.append("")
    if not by_operation:
        lines.append("None.")
    return lines


def _mismatch_lines(entries: list[tuple[str, Mismatch]]) -> list[str]:
    tests: dict[tuple[int, str, str, str], list[str]] = defaultdict(list)
    for test, mismatch in entries:
        key = (mismatch.status, mismatch.where, mismatch.path, mismatch.message)
        tests[key].append(test)
    lines = []
    for (status, where, path, message), names in sorted(tests.items()):
        shown = ", ".join(f"`{name}`" for name in sorted(set(names))[:TESTS_SHOWN])
        more = len(set(names)) - TESTS_SHOWN
        shown += f" and {more} more" if more > 0 else ""
        lines.append(f"- {status} {where} `{path}`: {message} ({len(names)}x; {shown})")
    return lines
