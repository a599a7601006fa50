"""The plan as versioned JSON (see README, "Plan JSON")."""

from __future__ import annotations

import json
import re
from typing import Any

from docform.engine.plan import Plan

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def render_json(plan: Plan) -> str:
    return json_text(plan.to_json())


def json_text(value: Any) -> str:
    """``value`` as readable JSON (characters as they are), but a lone surrogate a live text
    may hold (no UTF-8 can carry it) as its ``\\uXXXX`` escape: it reads back as itself."""
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
