"""What deepdiff costs a plan's comparison of a site's customization document.

    python benchmarks/settings_diff.py [--runs 5] [--repeat 300]

A customization document (the benchmark site's block laid over the defaults, with header
links, footer groups, social accounts and a custom font) is compared with its live version in
three cases: the same document (a no-change plan), one color changed, one header link's title
changed. Each case is timed in three ways, in CPU time of this process (``time.process_time``,
so a busy machine slows it less than wall time would), median of ``--runs`` runs of
``--repeat`` comparisons, in microseconds per document:

- ``flatten``: the comparison before deepdiff: the live document flattened into its fields,
  each compared with ``==``, the differing ones split by ``engine.values.differing_parts``;
- ``docform``: the comparison a plan makes now: the same flattening and ``==``, the fields that
  are not identical handed to the kind (`SettingsKind.same_field` and ``changed_parts``: deepdiff);
- ``deepdiff whole``: one DeepDiff of the two whole documents, for scale (what handing every
  document to deepdiff would cost).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable
from typing import Any

from deepdiff import DeepDiff

from docform.engine.values import differing_parts
from docform.kinds.customization import CustomizationKind
from docform.kinds.customization_block import fields_of
from docform.service.customization_stored import DEFAULTS, as_stored, laid_over

LINK = {"kind": "url", "url": "https://bench.test"}
BLOCK: dict[str, Any] = {
    "styling": {
        "primaryColor": {"light": "#0B5FFF", "dark": "#5C8DFF"},
        "font": {
            "id": "bench-sans",
            "custom": True,
            "fontFamily": "Bench Sans",
            "fontFaces": [
                {"weight": w, "sources": [{"url": f"https://bench.test/{w}.woff2"}]}
                for w in (400, 500, 700)
            ],
        },
    },
    "header": {
        "preset": "default",
        "links": [
            {"title": f"Link {i}", "to": LINK, "links": [{"title": "Sub", "to": LINK}]}
            for i in range(4)
        ],
    },
    "footer": {
        "copyright": "Bench Corp",
        "groups": [
            {"title": f"Group {g}", "links": [{"title": f"L{i}", "to": LINK} for i in range(4)]}
            for g in range(3)
        ],
    },
    "announcement": {"enabled": True, "message": "Benchmark", "style": "info"},
    "socialAccounts": [
        {"platform": p, "handle": "bench", "display": {"footer": True, "header": False}}
        for p in ("github", "linkedin", "youtube")
    ],
}


def documents() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Each case: (wanted document, live document)."""
    live = as_stored(laid_over(DEFAULTS, BLOCK))
    color = copy.deepcopy(live)
    color["styling"]["primaryColor"]["light"] = "#346DDB"
    link = copy.deepcopy(live)
    link["header"]["links"][1]["title"] = "Renamed"
    return {"no change": (live, copy.deepcopy(live)), "one color": (color, live),
            "one link title": (link, live)}  # fmt: skip


def flatten(want: dict[str, Any], have: dict[str, Any], kind: CustomizationKind) -> int:
    wanted, live = fields_of(want), fields_of(have)
    parts = 0
    for name, value in wanted.items():
        if value != live[name]:
            parts += len(differing_parts(name, live[name], value))
    return parts


def through_kind(want: dict[str, Any], have: dict[str, Any], kind: CustomizationKind) -> int:
    wanted, live = fields_of(want), fields_of(have)
    parts = 0
    for name, value in wanted.items():
        if value != live[name] and not kind.same_field(name, value, live[name]):
            parts += len(kind.changed_parts(name, live[name], value))
    return parts


def whole(want: dict[str, Any], have: dict[str, Any], kind: CustomizationKind) -> int:
    return len(DeepDiff(have, want, view="tree"))


WAYS: dict[str, Callable[[dict[str, Any], dict[str, Any], CustomizationKind], int]] = {
    "flatten": flatten,
    "docform": through_kind,
    "deepdiff whole": whole,
}


def per_document_us(way: Callable[..., int], want: Any, have: Any, runs: int, repeat: int) -> float:
    kind = CustomizationKind("org_bench")
    times = []
    for _ in range(runs):
        started = time.process_time()
        for _ in range(repeat):
            way(want, have, kind)
        times.append((time.process_time() - started) / repeat * 1e6)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args(argv)
    print(f"{'case':<16}" + "".join(f"{way:>16}" for way in WAYS) + "   (CPU us per document)")
    for case, (want, have) in documents().items():
        row = [per_document_us(way, want, have, args.runs, args.repeat) for way in WAYS.values()]
        print(f"{case:<16}" + "".join(f"{us:>16.1f}" for us in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
