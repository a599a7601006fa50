"""The organization's policies as one plan or drift found them
(`docform.policies.evaluate.PolicyReport`), for people. A denied policy is also a safety rail,
listed with the rails; here: which policies were checked, and the ones that only warn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def policies_text(report: Any) -> list[str]:
    """Lines for a terminal (none when the manifests have no policy)."""
    if report is None or not report.evaluated:
        return []
    lines = [_summary(report)]
    lines += [f"  warning: {result}" for result in report.warnings]
    return [*lines, ""]


def policies_markdown(report: Any, escape: Callable[[str], str]) -> list[str]:
    """A block beside the safety rails at the top of a comment."""
    if report is None or not report.evaluated:
        return []
    if not report.warnings:
        return [f"{escape(_summary(report))}", ""]
    lines = ["> [!WARNING]", f"> **{escape(_summary(report))}**", ">"]
    lines += [f"> - `policy.{r.policy}`: {escape(_item(r))}" for r in report.warnings]
    return [*lines, ""]


def live_policies_text(report: Any) -> list[str]:
    """For drift: each policy the live organization breaks, as it stands now."""
    if report is None or not report.results:
        return []
    lines = [f"Policies the live organization does not meet ({len(report.results)}):"]
    lines += [f"  {_severity(r)}: {r}" for r in report.results]
    return [*lines, ""]


def live_policies_markdown(report: Any, escape: Callable[[str], str]) -> list[str]:
    if report is None or not report.results:
        return []
    title = f"Policies the live organization does not meet ({len(report.results)}):"
    lines = ["> [!CAUTION]", f"> **{title}**", ">"]
    lines += [
        f"> - `policy.{r.policy}` ({_severity(r)}): {escape(_item(r))}" for r in report.results
    ]
    return [*lines, ""]


def _severity(result: Any) -> str:
    return "error" if result.error else result.severity


def _summary(report: Any) -> str:
    count = len(report.evaluated)
    denied, warned = len(report.blocking), len(report.warnings)
    verdict = "all hold" if not (denied or warned) else f"{denied} denied, {warned} warned"
    return f"Policies: {count} checked, {verdict}."


def _item(result: Any) -> str:
    where = "" if result.address == "organization" else f"{result.address}: "
    return f"{where}{result.message} ({result.places()})"
