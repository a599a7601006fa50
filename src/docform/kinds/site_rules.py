"""The rules of a site's structure as written, which no single entry's validation sees.

A site with sections lists its site spaces in them; one section and one site space per
section may be the default; a section is in at most one of its site's groups, and every name a
group, a redirect or a site space's former key gives is a section of the same site; a group's
``group`` is another group of the same site, and no group sits inside itself. They are
checked on the values as written (`Entry.section_problems`), so that a site with an unrelated
mistake still has its structure checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docform.kinds.adaptive_content import conditions_checked
from docform.kinds.external_link import link_problems
from docform.kinds.navigation import navigation_problems
from docform.kinds.redirect import redirect_problems
from docform.kinds.visitor_auth import visitor_auth_problems
from docform.model.entry import Unknown, WrittenProblems


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def site_problems(sites: Mapping[str, Any], unknown: Unknown) -> WrittenProblems:
    """``(path within sites:, message)`` for every site's structure."""
    for name, written in sites.items():
        site = _mapping(written)
        sections, spaces = _mapping(site.get("sections")), _mapping(site.get("spaces"))
        if sections and spaces:
            message = "a site with sections lists its site spaces under sections.<name>.spaces"
            yield (name, "spaces"), message
        yield from _one_default((name, "spaces"), spaces, "site space of a section")
        for section_name, section in sections.items():
            section_spaces = _mapping(_mapping(section).get("spaces"))
            path = (name, "sections", section_name, "spaces")
            yield from _one_default(path, section_spaces, "site space of a section")
        yield from _one_default((name, "sections"), sections, "section of a site")
        yield from _group_problems(name, site, sites, unknown)
        yield from link_problems(name, site, unknown)
        yield from navigation_problems(name, site, unknown)
        yield from conditions_checked(name, site)
        for within_site, message in redirect_problems(site, unknown):
            yield (name, *within_site), message
        for within_site, message in visitor_auth_problems(site):
            yield (name, *within_site), message
        yield from _former_section_problems(name, sections, sites, unknown)


def _one_default(path: tuple[str, ...], entries: dict[str, Any], what: str) -> WrittenProblems:
    first: str | None = None
    for name, entry in entries.items():
        if _mapping(entry).get("default") is not True:
            continue
        if first is not None:
            yield (
                (*path, name, "default"),
                f"only one {what} can be the default (already '{first}')",
            )
        first = first or name


def _group_problems(
    site_name: str, site: dict[str, Any], sites: Mapping[str, Any], unknown: Unknown
) -> WrittenProblems:
    placed: dict[str, str] = {}
    sections = _mapping(site.get("sections"))
    for group_name, group in _mapping(site.get("sectionGroups")).items():
        listed = _mapping(group).get("sections")
        for index, section in enumerate(listed if isinstance(listed, list) else []):
            if not isinstance(section, str):
                continue
            path = (site_name, "sectionGroups", group_name, "sections", index)
            if section in placed:
                yield path, f"section '{section}' is already in section group '{placed[section]}'"
            elif section not in sections:
                yield path, _unknown_section(site_name, sections, section, sites, unknown)
            placed.setdefault(section, group_name)
        yield from _order_problems(site_name, group_name, listed, sections)
    yield from _nesting_problems(site_name, _mapping(site.get("sectionGroups")), sites, unknown)


def _order_problems(
    site_name: str, group_name: str, listed: Any, sections: dict[str, Any]
) -> WrittenProblems:
    """A group's ``sections:`` list is the order of its sections on the site: the same
    sections written under the site's ``sections:`` in another order say two orders."""
    named = [name for name in (listed if isinstance(listed, list) else []) if name in sections]
    written = [name for name in sections if name in named]
    if named != written and len(set(named)) == len(named):
        path = (site_name, "sectionGroups", group_name, "sections")
        yield (
            path,
            (
                f"section group '{group_name}' lists its sections as {', '.join(named)}, but "
                f"sites.{site_name}.sections writes them as {', '.join(written)}: write them in "
                "one order (the group's list is their order on the site)"
            ),
        )


def _nesting_problems(
    site_name: str, groups: dict[str, Any], sites: Mapping[str, Any], unknown: Unknown
) -> WrittenProblems:
    """A group's ``group`` names another group of the same site, and following them from any
    group reaches the site's top level (a loop is told once, at its first group written)."""
    parents = {
        name: parent
        for name, group in groups.items()
        if isinstance(parent := _mapping(group).get("group"), str)
    }
    told: set[frozenset[str]] = set()
    for name, parent in parents.items():
        path = (site_name, "sectionGroups", name, "group")
        if parent not in groups:
            yield path, _unknown_group(site_name, groups, name, parent, sites, unknown)
            continue
        chain = [name]
        while (step := parents.get(chain[-1])) in groups and step not in chain:
            chain.append(step)
        if step == name and frozenset(chain) not in told:
            told.add(frozenset(chain))
            loop = " -> ".join([*chain, name])
            message = (
                f"section groups cannot sit inside themselves ({loop}); place one of them at "
                "the site's top level (leave out its group)"
            )
            yield path, message


def _unknown_group(
    site_name: str,
    groups: dict[str, Any],
    name: str,
    parent: str,
    sites: Mapping[str, Any],
    unknown: Unknown,
) -> str:
    for other_name, other in sites.items():
        if other_name != site_name and parent in _mapping(_mapping(other).get("sectionGroups")):
            return f"section group '{parent}' belongs to site '{other_name}', not '{site_name}'"
    return unknown("section group", parent, [g for g in groups if g != name])


def _former_section_problems(
    site_name: str, sections: dict[str, Any], sites: Mapping[str, Any], unknown: Unknown
) -> WrittenProblems:
    """A site space's former key names its former section by manifest name."""
    for section_name, section in sections.items():
        for name, entry in _mapping(_mapping(section).get("spaces")).items():
            formerly = _mapping(entry).get("formerly")
            for index, item in enumerate(formerly if isinstance(formerly, list) else []):
                former = _mapping(item).get("section")
                if isinstance(former, str) and former not in sections:
                    path = (site_name, "sections", section_name, "spaces", name, "formerly")
                    message = _unknown_section(site_name, sections, former, sites, unknown)
                    yield (*path, index, "section"), message


def _unknown_section(
    site_name: str,
    sections: dict[str, Any],
    section: str,
    sites: Mapping[str, Any],
    unknown: Unknown,
) -> str:
    for other_name, other in sites.items():
        if other_name != site_name and section in _mapping(_mapping(other).get("sections")):
            return f"section '{section}' belongs to site '{other_name}', not '{site_name}'"
    return unknown("section", section, list(sections))
