"""Property: a rehearsal on a twin foretells the real apply. Hypothesis draws an organization
and everyday edits of its manifests (those of `test_plan_edit_properties`), applies the
organization, then plans the edits with ``--rehearse`` and applies them for real without it:
whenever the rehearsal converged, the real apply succeeds and converges in one apply; whenever
the real apply fails, the rehearsal failed first; and when the real apply goes through, so did
the rehearsal.

The default run draws a few examples; ``DOCFORM_FUZZ_EXAMPLES`` draws more.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_plan_edit_properties import EDITS, applied_organization, drawn_organization, edited

from conftest import fuzz_examples
from planning import run, write_manifests


@settings(
    max_examples=fuzz_examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@example(seed=2, edits=["delete-team", "swap-section-paths"], keep_lock=True)
@example(seed=4, edits=["swap-site-basenames", "rename-and-move-space"], keep_lock=False)
@example(seed=7, edits=["hand-over-section-path", "reorder-sections"], keep_lock=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    edits=st.lists(st.sampled_from(EDITS), min_size=1, max_size=4),
    keep_lock=st.booleans(),
)
def test_a_converged_rehearsal_means_the_apply_converges_in_one(
    seed: int, edits: list[str], keep_lock: bool
) -> None:
    rng = random.Random(seed)
    org = drawn_organization(rng)
    with tempfile.TemporaryDirectory() as tmp:
        sandbox, directory = applied_organization(org, Path(tmp))
        if not keep_lock:
            (directory / "docform.lock").unlink()
        write_manifests(directory, yaml.safe_dump(edited(org, edits, rng), allow_unicode=True))

        planned = run(["plan", directory, "--json", "--force", "--rehearse"], sandbox)
        rehearsal = json.loads(planned.stdout)["rehearsal"]
        applied = run(["apply", directory, "--yes", "--force", "--no-rehearse"], sandbox)

        if rehearsal["converged"]:
            assert planned.exit_code == 0, planned.output
            assert applied.exit_code == 0, f"{edits}: rehearsed as converged\n{applied.output}"
            again = run(["plan", directory, "--detailed-exitcode"], sandbox)
            assert again.exit_code == 0, f"{edits}: rehearsed as converged\n{again.output}"
        if applied.exit_code != 0:
            assert rehearsal["refused"], f"{edits}: the apply failed, its rehearsal did not"
        else:  # and no false alarm: what the service takes, the twin takes
            assert rehearsal["converged"], f"{edits}: the apply went through\n{planned.output}"
