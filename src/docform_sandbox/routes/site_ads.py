"""A site's advertising: ``POST /orgs/{organizationId}/sites/{siteId}/ads`` (answers 204), shown
as the site's ``ads``.

The ad network's own review of submitted sites (``GET /ads/sites``, ``PATCH
/ads/sites/{siteId}``, which put a site live or reject it) is not emulated: a site goes live
only when a test sets its stored ``ads`` itself.

Choices where the API documents are silent, as the UI behaves:
- A site never submitted shows ``{status: pending, submittable: true}``.
- Writing needs the organization's admin role. ``in-review`` submits the site and needs a topic,
  given or kept from before (400 otherwise); a live site sent its own topic again stays live, a
  new topic is reviewed again.
- ``disabled`` turns a live site's ads off (its topic and zone kept); a site that never went
  live is withdrawn instead, back to ``pending`` (its topic kept for the next submission).
- A body without ``status`` changes the topic only: a submitted or live site is reviewed again.
"""

from __future__ import annotations

from typing import Any, Literal

from docform_sandbox.http import Body, Ctx, bad_request, endpoint
from docform_sandbox.routes.site_tree import site_of


class AdsBody(Body):
    status: Literal["in-review", "disabled"] | None = None
    topic: Literal["webdev", "crypto"] | None = None


def _next(stored: dict[str, Any], status: str | None, topic: str | None) -> dict[str, Any]:
    current, before = stored.get("status", "pending"), stored.get("topic")
    topic = topic or before
    if status is None and current in ("in-review", "live"):
        status = "in-review"  # a new topic of a submitted site is reviewed again
    if status == "in-review":
        if topic is None:
            raise bad_request("topic: a site is submitted with a topic (webdev or crypto)")
        if current == "live" and topic == before:
            return stored
        return {"status": "in-review", "topic": topic}
    if status == "disabled":
        if current in ("live", "disabled"):
            return {**stored, "status": "disabled", "topic": topic}
        return {"status": "pending", **({"topic": topic} if topic else {})}
    return {**stored, **({"topic": topic} if topic else {})}


@endpoint("POST", "/orgs/{organizationId}/sites/{siteId}/ads", status=204)
def update_site_ads(ctx: Ctx) -> None:
    """Submit a site to the ad network, withdraw it, or change its topic."""
    site = site_of(ctx, write=True)
    body = ctx.body_as(AdsBody)
    site["ads"] = _next(site.get("ads") or {}, body.status, body.topic)
    ctx.store.update("site", site)
