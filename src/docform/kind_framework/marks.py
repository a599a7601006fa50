"""Docform's mark on a live object read under a site: which site it was read under.

A kind's ``read`` returns the service's answers as they came. An object the service lists
under a site (a section, a redirect, a share link) or keeps one per site (the customization,
the visitor authentication) does not always name its site, so docform marks it with the
site's id under ``_site``: no field of the service starts with ``_``. The mark is part of the
live state a saved plan keeps, so its spelling stays; kinds set and read it only here, where
it is typed, instead of spelling the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docform.export.model import LiveRef

SITE = "_site"


def under_site(answer: Mapping[str, Any], site: str) -> dict[str, Any]:
    """The answer as read under the site whose id is `site`."""
    return {**answer, SITE: site}


def site_setting(answer: Mapping[str, Any], site: str) -> dict[str, Any]:
    """A site's one object of a kind, which has no id of its own: the site's id stands for it."""
    return {**answer, "id": site, SITE: site}


def site_id(live: Mapping[str, Any]) -> str:
    """The id of the site a live object was read under."""
    site: str = live[SITE]
    return site


def site_of(live: Mapping[str, Any]) -> LiveRef:
    """The site a live object was read under, as an export names it."""
    return LiveRef("site", site_id(live))
