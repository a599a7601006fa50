"""The plan as versioned JSON (see README, "Plan JSON")."""

from __future__ import annotations

from docform.engine.fingerprints import json_text
from docform.engine.plan import Plan


def render_json(plan: Plan) -> str:
    return json_text(plan.to_json())
