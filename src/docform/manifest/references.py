"""Checks between entries: references by manifest name, collection cycles, site structure rules,
and entries that would match the same live object.

Names known to exist are taken from what was written (even an entry that failed validation
exists), so one mistake is never reported twice. Team members must be listed under
``members:``: docform can only add organization members to a team.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docform.kinds.base import Entry
from docform.kinds.redirect import redirect_problems
from docform.kinds.site import SiteEntry
from docform.manifest.document import ENTRY_SECTIONS
from docform.manifest.entries import ValidatedEntries
from docform.manifest.problems import Path, Problem, unknown_name
from docform.manifest.sources import MergedTree


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class ReferenceChecker:
    """Runs every check between entries, adding problems to the tree.

    References and structure are checked on the values as written, so that an entry with an
    unrelated mistake still has its references checked; uniqueness needs valid entries.
    """

    tree: MergedTree
    entries: ValidatedEntries

    def run(self) -> None:
        for name, space in self._known("spaces").items():
            self._refer(
                "collections", _mapping(space).get("collection"), ("spaces", name, "collection")
            )
        for name, collection in self._known("collections").items():
            self._refer(
                "collections", _mapping(collection).get("parent"), ("collections", name, "parent")
            )
        for name, team in self._known("teams").items():
            for email in _mapping(_mapping(team).get("members")):
                self._refer("members", email, ("teams", name, "members", email))
        for name, provider in self._known("saml").items():
            self._refer(
                "teams", _mapping(provider).get("defaultTeam"), ("saml", name, "defaultTeam")
            )
        self._check_merge_rules()
        self._check_access()
        organization = _mapping(self.tree.sections.get("organization"))
        site = _mapping(organization.get("defaultContent")).get("site")
        self._refer("sites", site, ("organization", "defaultContent", "site"))
        self._check_collection_cycles()
        for name, site in self._known("sites").items():
            self._check_site(name, _mapping(site))
        self._check_former_containers()
        self._check_same_keys()

    def _problem(self, path: Path, message: str) -> None:
        self.tree.problems.append(Problem.at(self.tree.sources.locate(path), path, message))

    def _known(self, section: str) -> dict[str, Any]:
        return _mapping(self.tree.sections.get(section))

    def _refer(self, section: str, name: Any, path: Path) -> None:
        known = self._known(section)
        if isinstance(name, str) and name not in known:
            self._problem(path, unknown_name(ENTRY_SECTIONS[section].noun, name, list(known)))

    def _former_keys(self, path: Path, entry: Any) -> list[tuple[Path, dict[str, Any]]]:
        """The mappings of an entry's ``formerly`` with their paths."""
        items = _mapping(entry).get("formerly")
        return [
            ((*path, "formerly", index), item)
            for index, item in enumerate(items if isinstance(items, list) else [])
            if isinstance(item, dict)
        ]

    def _check_former_containers(self) -> None:
        """A former key names its former container (collection, section) by manifest name."""
        for section, field in (("spaces", "collection"), ("collections", "parent")):
            for name, entry in self._known(section).items():
                for path, item in self._former_keys((section, name), entry):
                    self._refer("collections", item.get(field), (*path, field))
        for site_name, site in self._known("sites").items():
            sections = _mapping(_mapping(site).get("sections"))
            for section_name, section in sections.items():
                base = ("sites", site_name, "sections", section_name, "spaces")
                for name, entry in _mapping(_mapping(section).get("spaces")).items():
                    for path, item in self._former_keys((*base, name), entry):
                        former = item.get("section")
                        if isinstance(former, str) and former not in sections:
                            message = self._unknown_section(site_name, sections, former)
                            self._problem((*path, "section"), message)

    def _check_merge_rules(self) -> None:
        owners: list[Path] = [("spaces", name, "mergeRules") for name in self._known("spaces")]
        owners.append(("organization", "mergeRules"))
        for path in owners:
            rules = _mapping(self._raw(path)).get("rules")
            for index, rule in enumerate(rules if isinstance(rules, list) else []):
                users = _mapping(rule).get("users")
                for position, email in enumerate(users if isinstance(users, list) else []):
                    self._refer("members", email, (*path, "rules", index, "users", position))

    def _check_access(self) -> None:
        """Content access names teams and members (only members can be granted a role)."""
        for section in ("spaces", "collections", "sites"):
            for name, entry in self._known(section).items():
                access = _mapping(_mapping(entry).get("access"))
                base = (section, name, "access")
                for team in _mapping(access.get("teams")):
                    self._refer("teams", team, (*base, "teams", team))
                for email in _mapping(access.get("users")):
                    self._refer("members", email, (*base, "users", email))

    def _raw(self, path: Path) -> Any:
        value: Any = self.tree.sections
        for key in path:
            value = _mapping(value).get(key)  # type: ignore[call-overload]
        return value

    def _check_collection_cycles(self) -> None:
        parents = {
            name: _text(_mapping(entry).get("parent"))
            for name, entry in self._known("collections").items()
        }
        done: set[str] = set()
        for start in parents:
            trail: list[str] = []
            name: str | None = start
            while name is not None and name not in done and name not in trail:
                trail.append(name)
                name = parents.get(name)
            if name is not None and name in trail:
                cycle = [*trail[trail.index(name) :], name]
                self._problem(
                    ("collections", name, "parent"),
                    f"collection parents form a cycle: {' -> '.join(cycle)}",
                )
            done.update(trail)

    def _check_site(self, name: str, site: dict[str, Any]) -> None:
        base: Path = ("sites", name)
        sections, spaces = _mapping(site.get("sections")), _mapping(site.get("spaces"))
        if sections and spaces:
            self._problem(
                (*base, "spaces"),
                "a site with sections lists its site spaces under sections.<name>.spaces",
            )
        self._check_site_spaces((*base, "spaces"), spaces)
        for section_name, section in sections.items():
            section_path = (*base, "sections", section_name)
            self._check_site_spaces(
                (*section_path, "spaces"), _mapping(_mapping(section).get("spaces"))
            )
        self._one_default((*base, "sections"), sections, "section of a site")
        self._check_groups(name, site)
        for path, message in redirect_problems(site, unknown_name):
            self._problem((*base, *path), message)

    def _check_site_spaces(self, path: Path, spaces: dict[str, Any]) -> None:
        for name, site_space in spaces.items():
            self._refer("spaces", _mapping(site_space).get("space"), (*path, name, "space"))
        self._one_default(path, spaces, "site space of a section")

    def _one_default(self, path: Path, entries: dict[str, Any], what: str) -> None:
        first: str | None = None
        for name, entry in entries.items():
            if _mapping(entry).get("default") is not True:
                continue
            if first is not None:
                message = f"only one {what} can be the default (already '{first}')"
                self._problem((*path, name, "default"), message)
            first = first or name

    def _check_groups(self, site_name: str, site: dict[str, Any]) -> None:
        placed: dict[str, str] = {}
        sections = _mapping(site.get("sections"))
        for group_name, group in _mapping(site.get("sectionGroups")).items():
            listed = _mapping(group).get("sections")
            for index, section in enumerate(listed if isinstance(listed, list) else []):
                if not isinstance(section, str):
                    continue
                path = ("sites", site_name, "sectionGroups", group_name, "sections", index)
                if section in placed:
                    message = f"section '{section}' is already in section group '{placed[section]}'"
                    self._problem(path, message)
                elif section not in sections:
                    self._problem(path, self._unknown_section(site_name, sections, section))
                placed.setdefault(section, group_name)

    def _unknown_section(self, site_name: str, sections: dict[str, Any], section: str) -> str:
        for other_name, other in self._known("sites").items():
            if other_name != site_name and section in _mapping(_mapping(other).get("sections")):
                return f"section '{section}' belongs to site '{other_name}', not '{site_name}'"
        return unknown_name("section", section, list(sections))

    def _check_same_keys(self) -> None:
        for section in ENTRY_SECTIONS:
            entries = list(self.entries.sections[section].values())
            self._same_keys(entries)
        for site in self.entries.sections["sites"].values():
            assert isinstance(site, SiteEntry)
            self._same_keys(list(site.sectionGroups.values()))
            self._same_keys(list(site.sections.values()))
            self._same_keys(list(site.spaces.values()))
            for section in site.sections.values():
                self._same_keys(list(section.spaces.values()))

    def _same_keys(self, entries: list[Entry]) -> None:
        by_id: dict[str, Entry] = {}
        by_key: dict[Any, Entry] = {}
        for entry in entries:
            if entry.id is not None:
                first = by_id.setdefault(entry.id, entry)
                if first is not entry:
                    self._problem(
                        (*entry.source_path, "id"), f"same id as '{first.name}' ({first.location})"
                    )
            first = by_key.setdefault(entry.natural_key(), entry)
            if first is entry or (not entry.key_is_unique and entry.id and first.id):
                continue
            message = f"same {entry.key_label} as '{first.name}' ({first.location})"
            if not entry.key_is_unique:
                message += "; pin an id on both to tell them apart"
            self._problem(entry.source_path, message)


def check_references(tree: MergedTree, entries: ValidatedEntries) -> None:
    """Check references and uniqueness between validated entries; problems go on ``tree``."""
    ReferenceChecker(tree, entries).run()
