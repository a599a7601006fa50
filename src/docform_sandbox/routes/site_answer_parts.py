"""Parts of every site answer that routes of their own change: a site's ``ads`` (the API's
SiteAds; `docform_sandbox.routes.site_ads`) and its style guide space
(`docform_sandbox.routes.site_styleguide`). The site answers need them, and those routes need
the site tree, so they live apart from both."""

from __future__ import annotations

from typing import Any

from docform_sandbox.http import Ctx

PENDING = {"status": "pending", "submittable": True}


def site_ads(site: dict[str, Any]) -> dict[str, Any]:
    """The site's ``ads`` as the API's SiteAds shows it."""
    stored = site.get("ads") or {}
    status = stored.get("status", "pending")
    if status == "pending":
        return dict(PENDING)
    if status == "in-review":
        return {"status": status, "topic": stored["topic"]}
    if status == "rejected":
        return {"status": status, **({"reason": stored["reason"]} if "reason" in stored else {})}
    return {"status": status, "topic": stored["topic"], "zoneId": stored["zoneId"]}


def live_styleguide(ctx: Ctx, site: dict[str, Any]) -> dict[str, Any] | None:
    """The space the site's style guide is, while it exists and is not deleted."""
    space_id = site.get("styleguide")
    space = ctx.store.get("space", space_id) if space_id else None
    if space is None or space.get("deletedAt") or space["organization"] != site["organization"]:
        return None
    return space
