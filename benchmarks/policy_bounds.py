"""What the policy bounds admit: for each family of costly calls, the largest size that a rule
passes the bounds at (docform.policies.bounds), and what evaluating it then takes.

    python benchmarks/policy_bounds.py

Each rule is evaluated in a fresh interpreter, so that its peak memory (the growth of the
process's maximum resident set while it runs) is its own.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

from docform.policies.bounds import over_bounds, rule_bound
from docform.policies.check import compile_rule
from docform.policies.evaluate import UNTRACED_LIST

FAMILIES = {
    "sets.contains of two ranges": "sets.contains(lists.range({n}), lists.range({n}))",
    "a range's size": "size(lists.range({n})) > 0",
    "map of a range": "lists.range({n}).map(x, x + 1).size() > 0",
    "filter of a range": "lists.range({n}).filter(x, x >= 0).size() > 0",
    "map of ranges": "lists.range({n}).map(x, lists.range({n})).size() > 0",
    "in a range, for all": "lists.range({n}).all(x, x in lists.range({n}))",
    "sort of a range": "lists.range({n}).sort().size() > 0",
    "replace growing a text": (
        "'a'.replace('', 'aaaaaaaaaa').replace('', lists.range({n}).map(x, 'a').join('')) != ''"
    ),
}


def largest_admitted(template: str) -> int:
    low, high = 1, 10**9
    while low < high:
        middle = (low + high + 1) // 2
        bound = rule_bound(template.format(n=middle), {}, UNTRACED_LIST)
        low, high = (middle, high) if over_bounds(bound) is None else (low, middle - 1)
    return low


def evaluate(rule: str) -> dict[str, object]:
    program = compile_rule(rule, ("plan",))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    outcome = program.eval(data={"plan": {}})
    seconds = time.perf_counter() - started
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    return {"seconds": round(seconds, 3), "peak_mb": round(grown / 1024, 1),
            "type": str(outcome.type())}  # fmt: skip


def main() -> None:
    if len(sys.argv) > 1:
        print(json.dumps(evaluate(sys.argv[1])))
        return
    for name, template in FAMILIES.items():
        size = largest_admitted(template)
        command = [sys.executable, __file__, template.format(n=size)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        print(f"{name:28} n = {size:>9,}  {done.stdout.strip()}")


if __name__ == "__main__":
    main()
