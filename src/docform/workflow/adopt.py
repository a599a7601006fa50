"""Adopting drift: writing what the live organization holds into the manifests, in place.

Drift can be undone (``apply`` puts the live organization back) or kept: adopting writes the
live values of the drifted fields into the entries that hold them, an entry for each live
object no entry manages (pinned by its id, in the file where its section is written), and
removes the entries whose live object is gone. The values are those ``export`` would write
(`Kind.export_entry`), with references as the user's own manifest names, so that planning
right after shows no change for what was adopted. The files are edited by
`docform.manifest.edit`, which keeps everything else as written.

Nothing is written unless the edited manifests load and validate (tried in a copy of the
directory); then the edited files, the new ones and the identity file (docform.lock, which
forgets the entries adopt removed) are written as one (`docform.manifest.file_set`): after a
kill at any point, either all of them have their new text or none has.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from docform.engine.objects import address_head
from docform.engine.plan import Change, Plan
from docform.engine.targets import check_patterns, matches
from docform.errors import DocformError
from docform.export.document import resolve_entry
from docform.export.model import LiveRef
from docform.export.names import slugify
from docform.kind_registry import build_kinds
from docform.manifest import ManifestError, ManifestSet, load_manifest_set
from docform.manifest.edit import ManifestFile, unwritable
from docform.manifest.file_set import replace_files
from docform.manifest.lock import LOCK_NAME, render_lock
from docform.model.entry import BoundModel
from docform.workflow.adopt_parts import part_value

#: Plan actions that say an entry's live object is gone: adopting removes the entry.
GONE = ("create", "restore")
#: Plan actions that say a live object's fields differ: adopting writes them.
DIFFER = ("update", "move", "membership")


class AdoptError(DocformError):
    """The live state cannot be written into the manifests; nothing was written."""


@dataclass
class Adopted:
    """One drifted object written into the manifests: ``how`` is ``fields``, ``added`` or
    ``removed``; ``fields`` the fields written (for ``fields``)."""

    address: str
    how: str
    file: str
    fields: list[str] = field(default_factory=list)
    drifted: str = ""
    """The address the drift had (``team.~tm_1`` for an unmanaged object now adopted)."""


@dataclass
class AdoptResult:
    directory: Path
    adopted: list[Adopted] = field(default_factory=list)
    left: list[tuple[str, str]] = field(default_factory=list)
    """Drift not adopted: ``(address, why)``."""
    files: list[str] = field(default_factory=list)
    """The manifest files written, relative to the directory."""
    unkept: list[tuple[str, str]] = field(default_factory=list)
    """What was written but a plan of the written manifests still shows: ``(address, why)``
    (`check_adopted`)."""
    checked: bool = False
    """Whether the written manifests were planned again (`check_adopted`)."""


def check_adopted(result: AdoptResult, fresh: Plan | None, error: str | None = None) -> None:
    """Adopt's promise, checked: ``fresh``, a plan of the manifests as written, shows no change
    for what was adopted; what it still shows is moved to ``unkept``, with why."""
    result.checked = fresh is not None
    still = set() if fresh is None else {c.address for c in fresh.changes}
    if fresh is not None:
        still |= {u.address for u in fresh.unmanaged}
    kept = []
    for adopted in result.adopted:
        if fresh is None:
            why = f"written, but planning again to check it failed: {error}"
            result.unkept.append((adopted.address, why))
        elif adopted.address in still or (adopted.how != "added" and adopted.drifted in still):
            why = (
                f"written ({_listed_how(adopted)}), but the next plan still shows a change "
                "here: docform cannot write its live state exactly; edit the entry by hand"
            )
            result.unkept.append((adopted.address, why))
        else:
            kept.append(adopted)
    result.adopted = kept


def _listed_how(adopted: Adopted) -> str:
    if adopted.how == "fields":
        return ", ".join(adopted.fields)
    return f"{adopted.how} its entry"


def adopt_plan(
    manifests: ManifestSet,
    plan: Plan,
    targets: Sequence[str] = (),
    excludes: Sequence[str] = (),
    *,
    check: bool = True,
) -> AdoptResult:
    """Write the drift ``plan`` found (narrowed by ``targets`` and ``excludes``) into the
    manifests of ``manifests``' directory. ``check``: first refuse a pattern that matches
    nothing in ``plan`` (`check_patterns`, which a caller adopting several sets runs once)."""
    if check:
        check_patterns([plan], targets, excludes)
    adopter = _Adopter(manifests, plan)
    for change in plan.changes:
        if _chosen(change.address, _named(change), targets, excludes):
            adopter.change(change)
    for unmanaged in plan.unmanaged:
        address = unmanaged.address
        if _chosen(address, f"{address_head(unmanaged.kind)}.{unmanaged.title}", targets, excludes):
            adopter.add(address, unmanaged.kind)
    adopter.write()
    return adopter.result


def _chosen(
    address: str, named: str | None, targets: Sequence[str], excludes: Sequence[str]
) -> bool:
    def hit(pattern: str) -> bool:
        return matches(address, pattern) or (named is not None and matches(named, pattern))

    if any(hit(e) for e in excludes):
        return False
    return not targets or any(hit(t) for t in targets)


def _named(change: Change) -> str | None:
    head = address_head(change.kind)
    if change.address.startswith(f"{head}.~") and change.human_key:
        return f"{head}.{change.human_key}"
    return None


class _Adopter:
    def __init__(self, manifests: ManifestSet, plan: Plan) -> None:
        self.manifests = manifests
        self.plan = plan
        self.directory: Path = manifests.directory
        self.kinds = {kind.name: kind for kind in build_kinds(plan.organization)}
        self.entries: dict[str, BoundModel] = {e.address: e for e in manifests.entries()}
        self.names = _reference_names(self.entries.values(), plan.identities)
        self.by_ref = {
            LiveRef(e.kind, plan.identities[a]): e
            for a, e in self.entries.items()
            if a in plan.identities
        }
        self.files: dict[str, ManifestFile] = {}
        self.removed: list[tuple[str, tuple[str, ...]]] = []
        self.added_files: dict[str, str] = {}
        self.parts_done: set[tuple[str, str]] = set()
        self.result = AdoptResult(self.directory)

    # -- what each drift becomes ----------------------------------------------------------------

    def change(self, change: Change) -> None:
        holder = self._holder_of(change.address)
        if holder is not None:
            self.set_part(change, holder)
        elif change.action in GONE:
            self.remove(change.address)
        elif change.action == "delete":
            self.add(change.address, change.kind)
        elif change.action in DIFFER:
            self.set_fields(change)
        else:
            self.leave(
                change.address, f"adopt does not write a {change.action} yet: edit it by hand"
            )

    def set_part(self, change: Change, holder: BoundModel) -> None:
        """A change inside an entry (a grant in ``space.handbook.access``): the entry's whole
        value for it, written again from live, once per entry."""
        key = change.address[len(holder.address) + 1 :].split(".", 1)[0]
        if (holder.address, key) in self.parts_done:
            return
        self.parts_done.add((holder.address, key))
        value, why = part_value(self.kinds[change.kind], self.plan, holder.address, key, self.names)
        if value is None:
            self.leave(f"{holder.address}.{key}", why)
            return
        file, shorthand = holder.location.file, _shorthand(type(holder))
        hostile = unwritable(value)
        if hostile:
            self.leave(f"{holder.address}.{key}", f"{hostile}: write it by hand")
            return
        self.file(file).set_fields(holder.source_path, {key: value}, set(), shorthand)
        adopted = Adopted(holder.address, "fields", file, [key], drifted=change.address)
        self.result.adopted.append(adopted)

    def _holder_of(self, address: str) -> BoundModel | None:
        """The entry an address without an entry of its own is written inside, if any."""
        if address in self.entries:
            return None
        holders = [a for a in self.entries if address.startswith(a + ".")]
        return self.entries[max(holders, key=len)] if holders else None

    def remove(self, address: str) -> None:
        entry = self.entries.get(address)
        if entry is None:
            self.leave(address, "it has no manifest entry of its own: edit the entry holding it")
            return
        file, path = entry.location.file, entry.source_path
        if any(file == f and path[: len(p)] == p for f, p in self.removed):
            return  # its parent entry is removed, and it with it
        self.file(file).remove_entry(path)
        self.removed.append((file, path))
        self.result.adopted.append(Adopted(address, "removed", file, drifted=address))

    def set_fields(self, change: Change) -> None:
        entry = self.entries.get(change.address)
        raw = self.plan.live_objects.get(change.address)
        if entry is None or raw is None:
            self.leave(
                change.address, "it has no manifest entry of its own: edit the entry holding it"
            )
            return
        exported = self.kinds[change.kind].export_entry(raw)
        if exported is None:
            self.leave(change.address, "docform cannot write this object's live state")
            return
        values = resolve_entry(exported, entry.name, self.names).sections[exported.section]
        live = values[entry.name]
        written: dict[str, Any] = {}
        dropped: set[str] = set()
        for name in change.after or {}:
            why = self._why_not(change, entry, name, exported)
            if why:
                self.leave(f"{change.address}.{name}", why)
            elif name in live:
                written[name] = live[name]
            elif name in exported.fields:
                self.leave(
                    f"{change.address}.{name}",
                    "it refers to a live object no entry manages: adopt that object first",
                )
            else:
                dropped.add(name)
        # A field the plan compares under another name than the entry writes it (a space
        # invite's role is its entry's level): the entry's fields that differ from live.
        unwritten = {name for name in dropped if name not in entry.model_fields_set}
        if unwritten:
            dropped -= unwritten
            written |= _differing(entry, live, written)
        for name in [n for n in written if unwritable(written[n])]:
            self.leave(
                f"{change.address}.{name}", f"{unwritable(written.pop(name))}: write it by hand"
            )
        if not written and not dropped:
            return
        file = entry.location.file
        self.file(file).set_fields(entry.source_path, written, dropped, _shorthand(type(entry)))
        adopted = sorted([*written, *dropped])
        adopted_as = Adopted(change.address, "fields", file, adopted, drifted=change.address)
        self.result.adopted.append(adopted_as)

    def add(self, address: str, kind_name: str) -> None:
        raw = self.plan.unmatched_objects.get(address)
        exported = self.kinds[kind_name].export_entry(raw) if raw is not None else None
        if exported is None or exported.part or exported.single:
            self.leave(address, "docform cannot write this live object as an entry: add it by hand")
            return
        where = self._place(exported)
        if where is None:
            self.leave(address, "the entry it belongs in is not managed: adopt that one first")
            return
        file, path = where
        written = self.file(file)
        taken = set(written.mapping(path) or {}) | {e.name for e in self.entries.values()}
        name = _free_name(
            exported.name or slugify(exported.hint, exported.kind), exported.id, taken
        )
        self.names[exported.ref] = name
        built = resolve_entry(exported, name, self.names)
        why = unwritable(built.sections[exported.section][name])
        if why:
            self.leave(address, f"{why}: add it by hand")
            return
        written.add_entry(path, name, built.sections[exported.section][name])
        for relative, text in built.files.items():
            self.added_files.setdefault(relative, text)
        for note in built.notes:
            self.leave(address, note)
        self.result.adopted.append(
            Adopted(f"{address_head(exported.kind)}.{name}", "added", file, drifted=address)
        )

    def leave(self, address: str, why: str) -> None:
        self.result.left.append((address, why))

    def _why_not(self, change: Change, entry: BoundModel, name: str, exported: Any) -> str:
        """Why the live value of field ``name`` cannot be written, or "" when it can."""
        if name in change.sensitive or name in change.sensitive_before:
            return "it holds a secret, which adopt never writes: write it by hand"
        if name not in type(entry).model_fields:
            return "docform cannot write this field back: edit it by hand"
        return ""

    def _place(self, exported: Any) -> tuple[str, tuple[str, ...]] | None:
        """The file and the mapping a new entry goes into."""
        if exported.within is None:
            return self._section_file(exported.section), (exported.section,)
        holder = self.by_ref.get(exported.within)
        if holder is None:
            return None
        return holder.location.file, (*holder.source_path, exported.nested_as)

    def _section_file(self, section: str) -> str:
        """The first file whose entries include one of ``section``, else the organization's."""
        for entry in self.entries.values():
            if entry.source_path[:1] == (section,) and len(entry.source_path) == 2:
                return entry.location.file
        return str(self.manifests.organization.location.file)

    def file(self, name: str) -> ManifestFile:
        if name not in self.files:
            self.files[name] = ManifestFile(self.directory / name, name)
        return self.files[name]

    # -- writing --------------------------------------------------------------------------------

    def write(self) -> None:
        """Every edited file, the new ones and docform.lock written as one (all or none, a
        kill at any point included), once a copy of the directory with them validates."""
        changed = {name: f.text() for name, f in self.files.items()}
        changed = {
            name: text for name, text in changed.items() if text != self.files[name].original
        }
        extra = {p: t for p, t in self.added_files.items() if not (self.directory / p).exists()}
        if not changed and not extra:
            return
        texts = {**changed, **extra, **self._lock_without_removed()}
        problem = _invalid_with(self.directory, texts)
        if problem is not None:
            raise AdoptError(problem)
        try:
            replace_files(self.directory, texts)
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise AdoptError(f"cannot write the manifests in {self.directory}: {why}") from None
        self.result.files = sorted(changed)

    def _lock_without_removed(self) -> dict[str, str]:
        """docform.lock's new text when it records entries adopt removed, else nothing."""
        if not (self.directory / LOCK_NAME).exists() or not self.removed:
            return {}
        gone = {a.address for a in self.result.adopted if a.how == "removed"}
        ids = {
            address: live_id
            for address, live_id in self.manifests.lock.ids_for(self.plan.organization).items()
            if not any(address == g or address.startswith(g + ".") for g in gone)
        }
        return {LOCK_NAME: render_lock(self.plan.organization, ids)}


def _differing(
    entry: BoundModel, live: Mapping[str, Any], done: Mapping[str, Any]
) -> dict[str, Any]:
    """The fields of ``live`` (an entry as export writes it) that ``entry`` writes otherwise;
    never its id, which ties it to its object (docform.lock's, or a pin the user writes)."""
    fields = type(entry).model_fields
    return {
        name: value
        for name, value in live.items()
        if name in fields
        and name not in done
        and name != "id"
        and getattr(entry, name, None) != value
    }


def _reference_names(
    entries: Iterable[BoundModel], identities: Mapping[str, str]
) -> dict[LiveRef, str]:
    """How the manifests name each live object an entry manages, for references to it."""
    return {
        LiveRef(entry.kind, identities[entry.address]): entry.name
        for entry in entries
        if entry.address in identities
    }


def _free_name(base: str, live_id: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    suffix = slugify(live_id, "x")
    number = 2
    name = f"{base}-{suffix}"
    while name in taken:
        name, number = f"{base}-{suffix}-{number}", number + 1
    return name


def _shorthand(model: type[BoundModel]) -> Any:
    """The field a scalar written for a whole entry of ``model`` stands for, if any."""

    def field_of(value: Any) -> str | None:
        try:
            entry = model.model_validate(value)
        except ValidationError:
            return None
        written = entry.model_fields_set
        return next(iter(written)) if len(written) == 1 else None

    return field_of


def _invalid_with(directory: Path, texts: Mapping[str, str]) -> str | None:
    """Why the manifests of ``directory`` with ``texts`` written would not load, or None. They
    are tried in a copy: a file a manifest refers to never lies outside its directory."""
    with tempfile.TemporaryDirectory(prefix="docform-adopt-") as scratch:
        copy = Path(scratch) / "manifests"
        shutil.copytree(directory, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        for relative, text in texts.items():
            (copy / relative).parent.mkdir(parents=True, exist_ok=True)
            (copy / relative).write_text(text, encoding="utf-8")
        try:
            load_manifest_set(copy)
        except ManifestError as exc:
            return _invalid(exc, directory)
    return None


def _invalid(exc: ManifestError, directory: Path) -> str:
    shown = "; ".join(str(p) for p in exc.problems[:3])
    more = f" (and {len(exc.problems) - 3} more)" if len(exc.problems) > 3 else ""
    return (
        f"the adopted manifests in {directory} would not be valid, so nothing was written: "
        f"{shown}{more}; adopt fewer objects with --target, or write these changes by hand"
    )
