"""Validating the merged tree entry by entry, so that one bad entry never hides another.

Each entry is validated on its own and bound to its manifest path and location; entries that
fail are reported and left out, and the checks between entries run on those that passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from docform.kinds.organization import OrganizationEntry
from docform.manifest.document import ENTRY_SECTIONS, EntrySection
from docform.manifest.messages import PATTERN_MESSAGES, describe, validation_problems
from docform.manifest.problems import Path, Problem
from docform.manifest.settings import Settings
from docform.manifest.sources import MergedTree
from docform.model.entry import BoundModel, Entry, ManifestModel
from docform.model.fields import escape_invisible
from docform.policies.check import rule_problems
from docform.policies.model import PolicyEntry

M = TypeVar("M", bound=ManifestModel)


@dataclass
class ValidatedEntries:
    """What passed validation, per section, in manifest order."""

    settings: Settings | None = None
    organization: OrganizationEntry | None = None
    sections: dict[str, dict[str, Entry]] = field(default_factory=dict)
    policies: dict[str, PolicyEntry] = field(default_factory=dict)


def validate_entries(tree: MergedTree) -> ValidatedEntries:
    """Validate settings, the organization and every entry; problems go on ``tree``."""
    result = ValidatedEntries()
    result.settings = _validate(tree, Settings, ("docform",), tree.sections.get("docform"))
    if result.settings is not None:
        result.settings.ignore_locations = [
            str(tree.sources.locate(("docform", "ignore", i)))
            for i in range(len(result.settings.ignore))
        ]
    if "organization" in tree.sections:
        raw = tree.sections["organization"]
        result.organization = _validate(tree, OrganizationEntry, ("organization",), raw)
    elif tree.complete and tree.files:
        message = "is required: the organization these files describe (organization: {id: ...})"
        tree.problems.append(Problem.at(tree.sources.locate(()), ("organization",), message))
    for name, section in ENTRY_SECTIONS.items():
        result.sections[name] = _validate_section(tree, section, tree.sections.get(name) or {})
    result.policies = _validate_policies(tree, tree.sections.get("policies") or {})
    return result


def _validate_policies(tree: MergedTree, raw: dict[str, Any]) -> dict[str, PolicyEntry]:
    """Each policy, its rule checked against the inputs rules read (no network)."""
    policies: dict[str, PolicyEntry] = {}
    for name, value in raw.items():
        path = ("policies", name)
        entry = _validate(tree, PolicyEntry, path, value)
        if entry is None:
            continue
        written = (*path, "rule") if entry.rule is not None else (*path, "builtin")
        at = tree.sources.locate(written)
        entry.set_rule_location(str(at))
        problems = rule_problems(entry)
        tree.problems += [Problem.at(at, written, problem) for problem in problems]
        if not problems:
            policies[name] = entry
    return policies


def _validate_section(
    tree: MergedTree, section: EntrySection, raw: dict[str, Any]
) -> dict[str, Entry]:
    pattern = re.compile(section.key_pattern)
    key = _key_adapter(section)
    entries: dict[str, Entry] = {}
    for name, value in raw.items():
        path = (section.name, name)
        if not pattern.match(name):
            what = PATTERN_MESSAGES[section.key_pattern]
            shown = escape_invisible(name)
            tree.problems.append(Problem.at(tree.sources.locate(path), path, f"'{shown}' {what}"))
            continue
        try:
            # The rest of what the key's type checks (an email that passes for another).
            key.validate_python(name)
        except ValidationError as error:
            item = error.errors(include_url=False)[0]
            message = describe(item, section.entry, (), path)
            tree.problems.append(Problem.at(tree.sources.locate(path), path, message))
            continue
        entry = _validate(tree, section.entry, path, value)
        if entry is not None:
            entries[name] = entry
    return entries


@cache
def _key_adapter(section: EntrySection) -> TypeAdapter[Any]:
    return TypeAdapter(section.key)


def _validate(tree: MergedTree, model: type[M], path: Path, raw: Any) -> M | None:
    if path in tree.reported:
        return None
    try:
        entry: M = model.model_validate({} if raw is None else raw)
    except ValidationError as error:
        tree.problems.extend(validation_problems(error, model, path, tree.sources, tree.reported))
        return None
    if isinstance(entry, BoundModel):
        _bind(tree, entry, path)
    return entry


def _bind(tree: MergedTree, entry: BoundModel, path: Path, scope: tuple[str, ...] = ()) -> None:
    """Bind ``entry`` and the entries nested in it (a site's sections, a section's site
    spaces), each scoped by the names of the entries that hold it."""
    within = {inner: tree.sources.locate((*path, *inner)) for inner in entry.located_paths()}
    entry.bind(tuple(map(str, path)), tree.sources.locate(path), scope, within)
    inner = (*scope, entry.name)
    for name, nested in entry.nested():
        for key, child in nested.items():
            if isinstance(child, BoundModel):
                _bind(tree, child, (*path, name, key), inner)
