"""Answers of the creates an apply made, for the calls after them that need their values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docform.errors import DocformError


class ApplyError(DocformError):
    """A value the applier needs is missing (a placeholder nobody produced, a secret)."""


class Outputs:
    """Answers of create calls by address, to fill ``${address.field}`` placeholders."""

    def __init__(self) -> None:
        self._answers: dict[str, Any] = {}

    def record(self, address: str, answer: Any) -> None:
        if isinstance(answer, Mapping):
            self._answers[address] = answer

    def lookup(self, ref: str) -> Any:
        address, path = self._split(ref)
        value: Any = self._answers[address]
        try:
            for part in path:
                value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise ApplyError(
                f"the value {ref} is not in the answer that created {address}; run plan again"
            ) from None
        return value

    def _split(self, ref: str) -> tuple[str, list[str]]:
        parts = ref.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            address = ".".join(parts[:cut])
            if address in self._answers:
                return address, parts[cut:]
        raise ApplyError(
            f"the value {ref} is not known: the call that creates it did not run or did not "
            "answer with it; run plan again"
        )
