"""What ``docform adopt`` wrote into the manifests, and the drift it left alone."""

from __future__ import annotations

from collections.abc import Sequence

from docform.workflow.adopt import AdoptResult

_HOW = {"fields": "wrote {fields}", "added": "added its entry", "removed": "removed its entry"}


def render_adopted(results: Sequence[AdoptResult]) -> str:
    lines: list[str] = []
    for result in results:
        for adopted in result.adopted:
            how = _HOW[adopted.how].format(fields=", ".join(adopted.fields))
            lines.append(f"  {adopted.address}: {how} in {adopted.file}")
        for address, why in result.left:
            lines.append(f"  {address}: not adopted: {why}")
    count = sum(len(r.adopted) for r in results)
    files = sorted({f"{r.directory / f}" for r in results for f in r.files})
    if not count:
        head = "Nothing to adopt: the manifests already say what the live organization holds."
        return "\n".join([head, *lines]) + "\n"
    head = f"Adopted {count} drifted object{'s' if count != 1 else ''} into {', '.join(files)}:"
    tail = "Planning now shows no changes for what was adopted; review the files and commit them."
    return "\n".join([head, *lines, tail]) + "\n"
