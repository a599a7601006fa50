"""The plan as versioned JSON (see README, "Plan JSON")."""

from __future__ import annotations

import json

from docform.engine.plan import Plan


def render_json(plan: Plan) -> str:
    return json.dumps(plan.to_json(), indent=2, ensure_ascii=False, sort_keys=False)
