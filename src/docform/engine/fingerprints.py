"""What a plan records of the live objects it read: canonical JSON, and fingerprints.

A saved plan carries a fingerprint of every live object it was planned against; apply of the
saved plan reads them again and refuses when one changed. Its checksum hashes its canonical
JSON, as the receipt compares values by theirs.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any) -> str:
    """``value`` as readable JSON (characters as they are), but a lone surrogate a live text
    may hold (no UTF-8 can carry it) as its ``\\uXXXX`` escape: it reads back as itself."""
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def digest(value: Any) -> str:
    """The SHA-256 of ``value``'s canonical JSON. A live text may hold a lone surrogate (JSON
    can escape one, UTF-8 cannot encode it): kept as its code point's bytes, so two texts that
    differ in one still differ, and none fails."""
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()


def fingerprint(obj: dict[str, Any]) -> str:
    return digest(obj)[:16]


class _Unhashed:
    """A live object whose fingerprint is not computed yet."""

    __slots__ = ("raw",)

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw


class Fingerprints(MutableMapping[str, str]):
    """Fingerprints by ``kind:id``, each computed from its live object when first read.

    Only a plan saved or printed as JSON, and apply of a saved plan, read them; a plan printed
    as text never does, and hashing every live object took a twentieth of a large plan's CPU.
    The live objects are answers as decoded, which nothing changes after planning.
    """

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self._values: dict[str, str | _Unhashed] = dict(values or {})

    def add_object(self, key: str, raw: Mapping[str, Any]) -> None:
        """Fingerprint ``raw`` as ``key`` when the fingerprint is first read."""
        self._values[key] = _Unhashed(raw)

    def __getitem__(self, key: str) -> str:
        value = self._values[key]
        if isinstance(value, _Unhashed):
            value = self._values[key] = fingerprint(dict(value.raw))
        return value

    def __setitem__(self, key: str, value: str) -> None:
        self._values[key] = value

    def __delitem__(self, key: str) -> None:
        del self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Fingerprints({len(self._values)} objects)"
