"""Secrets the service never answers (write-only: a Git Sync access token, an integration's
``writeOnly`` setting), compared by where they come from rather than by value.

A kind names the paths of such a secret on the live side (`Observed.unread`) and, on the
manifest side, the source each secret is written with (`Desired.secret_sources`: its
``${env:NAME}`` or ``{file: PATH}``, never a value). docform.lock records the source each was
last sent with (`Desired.locked_sources`); a write-only secret whose source is the one recorded
is taken as sent and planned no change, so it is sent again only when its source changes, its
line leaves docform.lock, or another change of its object sends it anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from docform.engine.objects import Desired, Observed

Sources = dict[str, dict[str, str]]
"""Address -> secret path -> source, as docform.lock records them."""


def settled(desired: Desired, observed: Observed) -> frozenset[str]:
    """The write-only secrets of ``observed`` that ``desired`` writes with the source
    docform.lock records as sent: not compared."""
    return frozenset(
        path
        for path in observed.unread
        if path in desired.secret_sources
        and desired.locked_sources.get(path) == desired.secret_sources[path]
    )


def compared(name: str, want: Any, paths: frozenset[str]) -> Any:
    """``want`` (field ``name``) less its parts in ``paths``, which are not compared."""
    if not paths or not isinstance(want, Mapping):
        return want
    return {key: value for key, value in want.items() if f"{name}.{key}" not in paths}


def wanted_sources(entries: Iterable[Desired]) -> Sources:
    """The sources each entry writes its secrets with, by address."""
    return {d.address: dict(d.secret_sources) for d in entries if d.secret_sources}


def kept_sources(entries: Iterable[Desired], changed: set[str]) -> Sources:
    """What docform.lock holds before an apply: for an entry the plan leaves alone, the sources
    it writes (sent before, or readable and equal); for one it changes, those recorded so far,
    until its change is made."""
    kept: Sources = {}
    for d in entries:
        sources = d.locked_sources if d.address in changed else d.secret_sources
        if sources:
            kept[d.address] = dict(sources)
    return kept
