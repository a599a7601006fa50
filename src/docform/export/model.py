"""What a kind hands to the exporter for one live object: a manifest entry not yet named.

A kind knows how its live objects map to manifest fields, but not the manifest names of the
objects they refer to, since names are chosen only once every object is known (collisions get
suffixes). So an `Exported` entry holds references as `LiveRef` (kind and live id) and the
exporter replaces them with names. Secret-bearing values are `FileValue` (written beside the
manifests) or `EnvValue` (read from an environment variable), never inline text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LiveRef:
    """Another live object, written as the manifest name of its entry."""

    kind: str
    id: str


@dataclass(frozen=True)
class WithinRef:
    """The manifest name of the entry that holds another (a site space's section), when that
    entry is of ``kind``; otherwise the field is left out (a site space at a site's root)."""

    of: LiveRef
    kind: str


@dataclass(frozen=True)
class FileValue:
    """Text written to ``FOLDER/<entry name>.EXTENSION`` and referenced as ``{file: ...}``."""

    text: str
    folder: str
    extension: str


@dataclass(frozen=True)
class EnvValue:
    """A secret left out of the files: written ``${env:DOCFORM_<SECTION>_<NAME>_<SUFFIX>}``.
    ``unread``: the path of a secret the service never answers (``accessToken``), which
    docform.lock then records as sent from that variable (`docform.engine.secret_sources`)."""

    suffix: str
    unread: str | None = None


@dataclass
class Exported:
    """One live object as a manifest entry of ``section`` (``teams``, ``sites``...).

    ``kind`` and ``id`` identify it for `LiveRef` resolution. The manifest name is derived
    from ``hint`` (a title or path) unless ``name`` fixes it (a member's email). A nested entry
    names the entry it lives in (``within``) and the key it is listed under there
    (``nested_as``: ``sections``, ``spaces``...); its siblings keep the live order.
    ``single`` marks a section holding one entry and no names (``organization``). ``part``
    marks a piece of the entry it lives in rather than an entry: its fields are merged into
    that entry's ``nested_as`` value (a grant into its space's ``access``), with no name.
    ``created_at`` is the live ``createdAt`` (set by the exporter), which decides who keeps a
    plain name when several would get the same one. ``named_after`` is an entry whose manifest
    name this one's is made of, and what follows it (a Git Sync takes its space's name, a
    translation its source space's and its language), so a key reads like what it is about
    rather than a live id; ``hint`` serves when that entry is not exported.
    """

    section: str
    kind: str
    id: str
    hint: str
    fields: dict[str, Any]
    name: str | None = None
    within: LiveRef | None = None
    nested_as: str = ""
    single: bool = False
    part: bool = False
    created_at: str = ""
    notes: list[str] = field(default_factory=list)
    named_after: tuple[LiveRef, str] | None = None

    @property
    def ref(self) -> LiveRef:
        """How other entries refer to this one; names and nesting are looked up by it."""
        return LiveRef(self.kind, self.id)
