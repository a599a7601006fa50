"""Manifest sets (one per organization) loaded and planned side by side: the one pipeline of
every command that plans a directory, whether it holds one set or several (one is a list of
one).

Each set is handled on its own: one that fails to load or plan keeps its error and does not
stop the others, so a command can report every organization and exit with the worst code; a
command given one set raises that set's error as it came (`SetOutcome.exception`). Planning
runs concurrently, each set with its own read-only client, its reads starting while its
manifests load (`docform.workflow.run.load_and_plan`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from docform.engine.plan import Plan
from docform.errors import DocformError
from docform.manifest import ManifestError, ManifestSet, load_manifest_set
from docform.manifest.discover import ManifestDir, check_distinct_organizations
from docform.manifest.problems import Problem

if TYPE_CHECKING:  # validate loads manifests only: the client and planning load with a plan
    from docform.api.stats import CallStats
    from docform.engine.live import Progress
    from docform.workflow.connect import Client
    from docform.workflow.early import EarlyView

#: Exit codes from best to worst: 0 nothing to report, 2 changes or drift, 1 an error.
_SEVERITY = {0: 0, 2: 1, 3: 2, 1: 3}


@dataclass
class SetOutcome:
    """One manifest set: what was loaded and planned, or what went wrong."""

    source: ManifestDir
    manifests: ManifestSet | None = None
    plan: Plan | None = None
    stats: CallStats | None = None
    problems: list[Problem] = field(default_factory=list)
    error: str | None = None
    exception: DocformError | None = None
    """The error of a set that loaded but could not be planned, as it was raised."""

    @property
    def name(self) -> str:
        return self.source.name

    @property
    def organization(self) -> str | None:
        return self.manifests.organization.id if self.manifests is not None else None

    @property
    def failed(self) -> bool:
        return self.error is not None

    def planned(self) -> tuple[ManifestSet, Plan]:
        """The manifests and their plan, of a set that did not fail."""
        if self.manifests is None or self.plan is None:
            raise RuntimeError(f"{self.label()} has no plan: {self.error or 'not planned yet'}")
        return self.manifests, self.plan

    def label(self) -> str:
        """``org_acme (acme/)``, or the directory alone when it did not load."""
        if self.name == ".":
            return self.organization or str(self.source.directory)
        where = f"{self.name}/"
        return f"{self.organization} ({where})" if self.organization else where


def load_sets(sets: Sequence[ManifestDir]) -> list[SetOutcome]:
    """Load every set; a set with problems keeps them, each file seen from the working
    directory (`Problem.seen_from`).

    Two sets describing one organization is an error for the whole run (`DiscoveryError`).
    """

    outcomes = []
    for source in sets:
        outcome = SetOutcome(source)
        try:
            outcome.manifests = load_manifest_set(source.directory)
        except ManifestError as exc:
            outcome.problems = [p.seen_from(source.directory) for p in exc.problems]
            outcome.error = invalid_manifests(len(exc.problems), source.directory)
        outcomes.append(outcome)
    check_distinct_organizations(
        [(o.source, o.manifests.organization.id) for o in outcomes if o.manifests]
    )
    return outcomes


def invalid_manifests(count: int, directory: Path) -> str:
    """The error of a manifest set with ``count`` problems, pointing to ``docform validate``."""
    return (
        f"{count} problem{'s' if count != 1 else ''} in the manifests; run "
        f"'docform validate {directory}' for details"
    )


async def plan_sets(
    sets: Sequence[ManifestDir],
    narrow: Callable[[Plan], Plan] | None = None,
    progress: Progress | None = None,
) -> list[SetOutcome]:
    """Load and plan every set concurrently; each outcome gets its manifests, plan and call
    counts, or its problems and error. Two sets describing one organization is an error for the
    whole run (`DiscoveryError`)."""
    from docform.workflow.connect import open_client
    from docform.workflow.run import load_and_plan

    def open_reader(view: ManifestSet | EarlyView) -> Client:
        return open_client(view, read_only=True)

    async def plan_one(outcome: SetOutcome) -> None:
        directory = outcome.source.directory
        try:
            manifests, plan, outcome.stats = await load_and_plan(
                directory, open_reader, progress=progress
            )
        except ManifestError as exc:
            outcome.problems = [p.seen_from(directory) for p in exc.problems]
            outcome.error = invalid_manifests(len(exc.problems), directory)
            return
        except DocformError as exc:
            outcome.error, outcome.exception = str(exc), exc
            outcome.manifests = _loaded_or_none(directory)
            return
        outcome.manifests = manifests
        outcome.plan = narrow(plan) if narrow else plan

    outcomes = [SetOutcome(source) for source in sets]
    await asyncio.gather(*(plan_one(outcome) for outcome in outcomes))
    check_distinct_organizations(
        [(o.source, o.manifests.organization.id) for o in outcomes if o.manifests]
    )
    return outcomes


def _loaded_or_none(directory: Path) -> ManifestSet | None:
    """The manifests of a set whose plan failed, for the organization its report names."""
    try:
        return load_manifest_set(directory)
    except DocformError:
        return None


PARTIAL_PLAN_EXIT_CODE = 3


def detailed_exit_code(plan: Plan) -> int:
    """``plan --detailed-exitcode``: 3 for a partial plan (the token may not read some kinds,
    so whether they change is unknown), else 2 with changes and 0 without."""
    if plan.not_planned:
        return PARTIAL_PLAN_EXIT_CODE
    return 2 if plan.has_changes else 0


def worst_exit_code(codes: Sequence[int]) -> int:
    """1 (an error) beats 3 (a partial plan), which beats 2 (changes, drift), then 0."""
    return max(codes, key=lambda code: _SEVERITY[code], default=0)


def total_summary(plans: Sequence[Plan]) -> dict[str, int]:
    """The summaries of ``plans`` added up (same keys as `Plan.summary`)."""
    total = dict.fromkeys(("create", "update", "delete", "move", "restore"), 0)
    for plan in plans:
        for action, count in plan.summary().items():
            total[action] += count
    return total
