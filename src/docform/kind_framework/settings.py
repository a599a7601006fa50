"""Settings written inside another kind's entry and kept by the service as one document per
object (a site's customization, its adaptive content, a site space's overrides): a base for
their kinds.

There is one such document per object whose entry writes the block, and it is read only for
those. Reading without manifests (export) reads them all; an object whose entry does not write
the block then has its document left alone: it is neither managed nor unmanaged, and never
deleted (the service cannot delete it either).

A document's fields are compared and shown part by part by deepdiff
(`docform.kind_framework.document_diff`), its ``order_free`` lists as collections.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from docform.engine.capabilities import ComparesOwnWay
from docform.engine.kind import Desired, Kind, Observed, Ref
from docform.engine.manifests import ManifestView
from docform.engine.plan import Call
from docform.errors import DocformError
from docform.kind_framework import document_diff


class SettingsKind(Kind, ComparesOwnWay):
    """The kind of a settings document; the last part of its key is the object it is on."""

    prune_setting = None
    renamable = False
    guard_creates = False  # writing the same settings twice stores them once
    locked = False  # one per object: that object's id is its id
    cannot_delete: ClassVar[str]
    """What to write instead of removing the block (the document cannot be deleted)."""
    order_free: ClassVar[frozenset[str]] = frozenset()
    """Dotted paths (list indices left out) of the document's lists whose order means nothing."""

    def __init__(self, org_id: str) -> None:
        super().__init__(org_id)
        self._writing: set[str] = set()

    def desired(self, manifests: ManifestView) -> list[Desired]:
        found = self.settings_desired(manifests)
        self._writing = {d.key[-1].address for d in found}
        return found

    def settings_desired(self, manifests: ManifestView) -> list[Desired]:
        """One `Desired` per entry that writes the block, keyed ``(..., Ref(its object))``."""
        raise NotImplementedError

    def written_on(self, holder: Ref | None) -> bool:
        """Whether an entry writes the block on ``holder`` (observe leaves the others alone)."""
        return holder is not None and holder.address in self._writing

    def same_field(self, name: str, want: Any, have: Any) -> bool:
        return document_diff.same_value(name, want, have, self.order_free)

    def changed_parts(self, name: str, before: Any, after: Any) -> list[tuple[str, Any, Any]]:
        return document_diff.differing_parts(name, before, after, self.order_free)

    def delete_calls(self, observed: Observed) -> list[Call]:
        raise DocformError(f"{observed.title}: the service keeps it; {self.cannot_delete}")

    def export_entry(self, raw: Mapping[str, Any]) -> Any:
        raise NotImplementedError
