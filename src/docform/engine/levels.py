"""Default levels: what a space's, collection's or site's ``defaultLevel`` gives the members.

The service calls ``defaultLevel`` the "default level for content" and says no more about whom
it reaches. docform's model, which the sandbox's ``aggregate`` lists follow and which apply
holds to the service's own lists (`docform.workflow.audience`): the default level is a floor
for every member with an organization role (a guest has none, so it reaches no guest). Each of
them reaches the object with at least that level. ``inherit`` takes the default level of the
collection the object lies in, and so on up; at the top, and on a site, it adds nothing, as
does a guest (null) default level.
"""

from __future__ import annotations

from collections.abc import Mapping

INHERIT = "inherit"
NO_DEFAULT = "none"
"""How a line names the absence of a default level (``~ default level: none -> edit``)."""


def default_on(
    defaults: Mapping[str, str], parents: Mapping[str, str], on: str
) -> tuple[str, str] | None:
    """The default level in force on ``on`` and the address that sets it, or None when the
    members reach ``on`` by their role and grants only."""
    seen: set[str] = set()
    where: str | None = on
    while where is not None and where not in seen:
        seen.add(where)
        level = defaults.get(where)
        if level != INHERIT:
            return None if level in (None, "guest") else (level, where)
        where = parents.get(where)
    return None


def level_text(found: tuple[str, str] | None, on: str) -> str:
    """``edit``, ``edit, from collection.guides`` or ``none``."""
    if found is None:
        return NO_DEFAULT
    level, where = found
    return level if where == on else f"{level}, from {where}"
