"""The shape of the answers docform reads, so that a malformed answer stops a plan, not skews it.

Kinds read live objects as plain dicts (``raw["title"]``). An answer without a field docform
relies on, or with a value of the wrong type, would otherwise end in a traceback or, worse, in a
plan built on a guess (a missing ``parent`` read as "no parent" moves a collection). So the
client checks each answer of a read route against its shape here, before anyone uses it, and
names the call and the first bad value when it does not fit.

A shape lists only what docform uses, as docs/service.md describes it: a field is required
(``need``) only where the service promises it in every answer; anything else may be left out,
meaning "not set" (``may``), and docform must cope (a user without an email). Fields not listed
are never looked at, so the service may add fields freely. Routes are matched by their path
template: ``*`` stands for one path segment (an id).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

NULL = type(None)
_NAMES = {str: "a string", bool: "true or false", int: "a number", float: "a number",
          list: "a list", dict: "an object", NULL: "null"}  # fmt: skip


@dataclass(frozen=True)
class Field:
    """What one field may hold: values of ``types``; a list's ``items`` or an object's ``shape``."""

    types: tuple[type, ...]
    required: bool = True
    shape: Mapping[str, Field] | None = None
    items: Field | None = None

    def expected(self) -> str:
        names = dict.fromkeys(_NAMES[t] for t in self.types)
        return " or ".join(names)


def need(
    *types: type, shape: Mapping[str, Field] | None = None, items: Field | None = None
) -> Field:
    """A field every answer holds."""
    return Field(types, True, shape, items)


def may(
    *types: type, shape: Mapping[str, Field] | None = None, items: Field | None = None
) -> Field:
    """A field an answer may leave out (the API omits a value that is not set)."""
    return Field(types, False, shape, items)


ID = need(str)
DESTINATION = {  # a redirect's: kind says which of the others it holds
    "kind": need(str),
    "siteSectionId": may(str),
    "siteSpaceId": may(str),
    "pageId": may(str),
    "url": may(str),
}
ROLE = need(str, NULL)  # a role, or null for a guest
OPTIONAL_TEXT = may(str, NULL)
USER = {"email": may(str)}  # the service does not promise one: such a member matches by id
MEMBER = {"id": ID, "role": ROLE, "user": need(dict, shape=USER), "sso": need(bool)}
MERGE_RULES = {"type": need(str), "rules": may(list, NULL, items=need(dict))}
SPACE = {
    "id": ID,
    "title": need(str),
    "emoji": may(str, NULL),
    "parent": may(str, NULL),
    "organization": may(str),
    "deletedAt": may(str, NULL),
    "language": OPTIONAL_TEXT,
    "editMode": OPTIONAL_TEXT,
    "defaultLevel": may(str, NULL),
    "mergeRules": may(dict, NULL, shape=MERGE_RULES),
}
# A grant of a role on a space, collection or site (docs/service.md, "Content access").
TEAM_GRANT = {"permission": ROLE, "team": need(dict, shape={"id": ID, "title": may(str)})}
USER_GRANT = {"permission": ROLE, "user": need(dict, shape={"id": ID, **USER})}
SECTION_REF = need(dict, shape={"id": ID})
# A group's children are sections, nested groups and external links: `object` says which.
CHILD = need(dict, shape={"object": need(str), "id": ID})
SITE_SPACE_REF = need(dict, shape={"space": need(dict, shape={"id": ID})})

#: Routes (GET path templates) that answer one object, and its shape.
OBJECT_SHAPES: dict[str, Mapping[str, Field]] = {
    "/orgs/*": {
        "id": ID,
        "title": may(str),  # the API documents do not promise one
        "emailDomains": may(list, NULL, items=need(str)),
        "hostname": OPTIONAL_TEXT,
        "defaultRole": may(str, NULL),
        "defaultContent": may(dict, NULL, shape={"type": need(str)}),
        "sso": may(bool),
        "ai": may(bool),
        "inviteLinks": may(bool),
        "mergeRules": may(dict, NULL, shape=MERGE_RULES),
        "urls": may(dict, shape={"logo": may(str, NULL)}),
    },
    "/spaces/*": SPACE,
}

#: Routes that answer an object no id in their path names: the token's own user.
CALLER_SHAPES: dict[str, Mapping[str, Field]] = {"/user": {"id": ID}}

#: Routes (GET path templates) that answer a list, and the shape of each of its items.
ITEM_SHAPES: dict[str, Mapping[str, Field]] = {
    "/orgs/*/members": MEMBER,
    "/orgs/*/teams": {"id": ID, "title": need(str)},
    "/orgs/*/teams/*/members": {
        "organization": need(dict, shape=MEMBER),
        "team": need(dict, shape={"role": need(str)}),
    },
    "/orgs/*/collections": {
        "id": ID,
        "title": need(str),
        "parent": may(str, NULL),
        "description": OPTIONAL_TEXT,
        "defaultLevel": may(str, NULL),
    },
    "/orgs/*/spaces": SPACE,
    "/orgs/*/sites": {
        "id": ID,
        "title": need(str),
        "type": OPTIONAL_TEXT,
        "visibility": OPTIONAL_TEXT,
        "basename": OPTIONAL_TEXT,
        "defaultLevel": may(str, NULL),
        "published": may(bool),
        "proxy": may(dict, shape={"origin": need(str)}),
    },
    "/orgs/*/sites/*/section-groups": {
        "id": ID,
        "title": need(str),
        "icon": OPTIONAL_TEXT,
        "children": may(list, items=CHILD),
        "sections": may(list, NULL, items=SECTION_REF),  # deprecated: read when no children
    },
    "/orgs/*/sites/*/sections": {
        "id": ID,
        "path": need(str),
        "title": need(str),
        "description": OPTIONAL_TEXT,
        "condition": OPTIONAL_TEXT,
        "icon": OPTIONAL_TEXT,
        "default": may(bool, NULL),
        "sectionGroup": may(str, NULL),
        "siteSpaces": may(list, NULL, items=SITE_SPACE_REF),
    },
    "/orgs/*/sites/*/site-spaces": {
        "id": ID,
        "path": need(str),
        "title": may(str),
        "section": may(str, NULL),
        "space": need(dict, shape={"id": ID}),
        "condition": OPTIONAL_TEXT,
        "hidden": may(bool, NULL),
        "default": may(bool, NULL),
    },
    "/orgs/*/sites/*/redirects": {
        "id": ID,
        "source": need(str),
        "destination": need(dict, shape=DESTINATION),
        "captureWildcard": need(bool),
        "permanent": need(bool),
        "draft": need(bool),
    },
    **{
        f"{on}/permissions/{principal}": grant
        for on in ("/spaces/*", "/collections/*", "/orgs/*/sites/*")
        for principal, grant in (("teams", TEAM_GRANT), ("users", USER_GRANT))
    },
    "/orgs/*/openapi": {
        "id": ID,
        "slug": need(str),
        "sourceURL": OPTIONAL_TEXT,
        "visibility": OPTIONAL_TEXT,
    },
    "/orgs/*/saml": {
        "id": ID,
        "label": need(str),
        "entityID": OPTIONAL_TEXT,
        "ssoURL": OPTIONAL_TEXT,
        "certificate": OPTIONAL_TEXT,
        "defaultTeam": may(dict, NULL, shape={"id": ID}),
        "defaultRole": may(str, NULL),
    },
}


def _patterns(shapes: Mapping[str, Mapping[str, Field]]) -> list[tuple[re.Pattern[str], Any]]:
    return [
        (re.compile("^" + re.escape(template).replace(r"\*", "[^/]+") + "$"), shape)
        for template, shape in shapes.items()
    ]


_OBJECT_ROUTES = _patterns(OBJECT_SHAPES)
_LIST_ROUTES = _patterns(ITEM_SHAPES)


def object_shape(path: str) -> Mapping[str, Field] | None:
    """The shape of the object ``GET path`` answers; None when docform reads no such route."""
    if path in CALLER_SHAPES:
        return CALLER_SHAPES[path]
    return next((shape for pattern, shape in _OBJECT_ROUTES if pattern.match(path)), None)


def object_misfit(path: str, answer: Any) -> str | None:
    """What is wrong with the answer of ``GET path`` for an object route, or None: its shape,
    then its ``id``, which must be the one asked for (a proxy's cached or rewritten answer)."""
    shape = object_shape(path)
    if shape is None:
        return None
    problem = misfit(answer, shape)
    if problem is None and path not in CALLER_SHAPES and answer["id"] != path.rsplit("/", 1)[-1]:
        problem = f"id is {describe(answer['id'])}, not the id asked for"
    return problem


def item_shape(path: str) -> Mapping[str, Field] | None:
    """The shape of each item of the list ``GET path`` answers; None when not known."""
    return next((shape for pattern, shape in _LIST_ROUTES if pattern.match(path)), None)


def misfit(value: Any, shape: Mapping[str, Field], where: str = "") -> str | None:
    """What is wrong with ``value`` for ``shape`` (``items[3].user.email is missing``), or None.

    ``where`` names ``value`` in the message; it is empty for the answer itself.
    """
    if not isinstance(value, dict):
        return f"{where or 'the answer'} is {describe(value)}, not an object"
    for name, field in shape.items():
        if name not in value:
            if field.required:
                return f"{_joined(where, name)} is missing ({field.expected()} expected)"
            continue
        item = value[name]
        # Most values are plain ones of an exact type listed: they fit, with no path to name.
        if type(item) in field.types and field.shape is None and field.items is None:
            continue
        problem = _field_misfit(item, field, _joined(where, name))
        if problem:
            return problem
    return None


def _joined(where: str, name: str) -> str:
    return f"{where}.{name}" if where else name


def _field_misfit(value: Any, field: Field, path: str) -> str | None:
    # bool is an int in Python; the API never sends a boolean where a number is meant.
    fits = isinstance(value, field.types) and not (
        isinstance(value, bool) and bool not in field.types
    )
    if not fits:
        return f"{path} is {describe(value)}, not {field.expected()}"
    if isinstance(value, dict) and field.shape is not None:
        return misfit(value, field.shape, path)
    if isinstance(value, list) and field.items is not None:
        for index, item in enumerate(value):
            problem = _field_misfit(item, field.items, f"{path}[{index}]")
            if problem:
                return problem
    return None


def describe(value: Any) -> str:
    """``a number (5)``: the type of a value, and a short glimpse of it."""
    kind = _NAMES.get(type(value), type(value).__name__)
    if value is None:
        return kind
    glimpse = repr(value) if not isinstance(value, dict | list) else ""
    if len(glimpse) > 40:
        glimpse = glimpse[:37] + "..."
    return f"{kind} ({glimpse})" if glimpse else kind
