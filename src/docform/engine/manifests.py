"""What the engine reads of the manifests, and hands to each kind.

`docform.manifest.manifest_set.ManifestSet` is one; the engine names only these protocols, so
it imports nothing from the layer that loads manifests. Entries are each kind's own models:
a kind reads its section and knows its entries' types, the engine does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class IgnoreSettings(Protocol):
    """The ``ignore:`` patterns of the settings (`docform.engine.ignore.IgnoreRules`)."""

    @property
    def ignore(self) -> Sequence[str]: ...

    @property
    def ignore_locations(self) -> Sequence[str]:
        """``FILE:LINE:COL`` of each pattern, in order (empty when not loaded from a file)."""
        ...


class ManifestView(Protocol):
    """A validated manifest set, as `docform.engine.kind.Kind.desired` reads it."""

    @property
    def settings(self) -> IgnoreSettings: ...

    @property
    def organization(self) -> Any:
        """The entry of the organization the manifests describe (every set has one)."""
        ...

    def section(self, name: str) -> Mapping[str, Any]:
        """The entries of one top-level section (``"teams"``) by manifest name."""
        ...

    def writes(self, name: str) -> bool:
        """Whether the files write section ``name``, if only as ``{}`` (no entries)."""
        ...
