"""Custom hostnames, the hostnames a site or an organization's public content is served on:
``GET|PATCH|DELETE /custom-hostnames/{hostname}``.

The definition has no operation that connects a hostname: the service's app does it. The
sandbox connects one from its seed (a site's ``hostname``, an organization's
``customHostname``: `connect`), as the app would.

Choices where the API documents are silent, as the UI behaves:
- A hostname serves one target at a time: connecting it to another site or to the organization
  takes it from the one it served. A site, and an organization, has one custom hostname at a
  time: connecting another to it leaves the former inactive. The target shows its active one
  (the site's ``hostname``, the organization's ``customHostname``).
- DELETE answers 205 and leaves the hostname inactive, still pointing at its target ("it will
  continue to point to the content unless it is used for another one"): GET answers it with
  ``isActive: false`` and no ``status``, and its target no longer shows it; 204 when no
  hostname of that name was ever connected, or it is inactive already.
- A connected hostname is ``live``. PATCH (revalidate its DNS records) answers 409 for an
  inactive hostname (the definition lists 400 for it, with a body whose code must be 409: the
  sandbox answers what the body says), and for one whose status is neither a DNS nor an error
  status (a live one has nothing to revalidate); 204 otherwise, the records found right: it is
  ``live``.
- Reading needs membership of the hostname's organization, changing its admin role; a hostname
  never connected answers 404.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from docform_sandbox.access import require_org
from docform_sandbox.http import API_BASE, ApiError, Ctx, endpoint, not_found
from docform_sandbox.routes.shared import removed
from docform_sandbox.store import Store

HOSTNAME = "custom-hostname"
ONE = "/custom-hostnames/{hostname}"
#: The statuses a revalidation can change: the DNS checks' and the errors'.
REVALIDATED = frozenset(
    {
        "dns_passed", "dns_wrong_cname", "dns_no_cname", "dns_cloudflare_proxied",
        "dns_wrong_caa", "invalid_domain", "internal_error",
    }
)  # fmt: skip


def connect(store: Store, org_id: str, hostname: str, site_id: str | None) -> None:
    """Serve ``hostname`` for the site ``site_id`` (None: the organization), as the app does:
    taken from the target it served, and the target's former hostname left inactive."""
    target = (
        {"type": "site", "site": site_id}
        if site_id
        else {"type": "organization", "organization": org_id}
    )
    former = store.get(HOSTNAME, hostname)
    if former is not None and former["active"]:
        _show_on(store, former["target"], None)
    holder = store.get("site", site_id) if site_id else store.get("organization", org_id)
    assert holder is not None, f"no target for {hostname}"
    shown = holder.get("hostname" if site_id else "customHostname")
    if shown and shown != hostname:
        _deactivate(store, shown)
    doc = {"id": hostname, "target": target, "active": True, "status": "live"}
    if former is None:
        store.insert(HOSTNAME, doc, org=org_id)
    else:
        store.update(HOSTNAME, doc)
    _show_on(store, target, hostname)


def _deactivate(store: Store, hostname: str) -> None:
    doc = store.get(HOSTNAME, hostname)
    if doc is not None:
        doc["active"] = False
        doc.pop("status", None)
        store.update(HOSTNAME, doc)


def _show_on(store: Store, target: dict[str, Any], hostname: str | None) -> None:
    """Show ``hostname`` as the target's custom hostname (None: show none)."""
    if target["type"] == "site":
        holder, field, kind = store.get("site", target["site"]), "hostname", "site"
    else:
        holder, field = store.get("organization", target["organization"]), "customHostname"
        kind = "organization"
    if holder is None:
        return
    if hostname is None:
        holder.pop(field, None)
    else:
        holder[field] = hostname
    store.update(kind, holder)


def render(doc: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "object": "custom-hostname",
        "hostname": doc["id"],
        "target": doc["target"],
        "isActive": doc["active"],
    }
    if doc.get("status"):
        body["status"] = doc["status"]
    body["urls"] = {"location": f"{API_BASE}/custom-hostnames/{doc['id']}"}
    return body


def _hostname_of(ctx: Ctx, *, write: bool = False) -> dict[str, Any] | None:
    """The hostname the path names, after checking access to its organization."""
    hostname = ctx.params["hostname"]
    located = ctx.store.locate(HOSTNAME, hostname)
    if located is None or located[0] is None:
        return None
    require_org(ctx, located[0], write=write)
    return ctx.store.get(HOSTNAME, hostname)


@endpoint("GET", ONE)
def get_hostname(ctx: Ctx) -> dict[str, Any]:
    """A custom hostname: the site or organization it serves, and whether it is active."""
    doc = _hostname_of(ctx)
    if doc is None:
        raise not_found("custom hostname", ctx.params["hostname"])
    return render(doc)


@endpoint("PATCH", ONE, 204)
def revalidate_hostname(ctx: Ctx) -> None:
    """Check the hostname's DNS records again."""
    doc = _hostname_of(ctx, write=True)
    if doc is None:
        raise not_found("custom hostname", ctx.params["hostname"])
    if not doc["active"]:
        raise ApiError(409, f"custom hostname '{doc['id']}' is inactive: it cannot be revalidated")
    if doc.get("status") not in REVALIDATED:
        raise ApiError(
            409, f"custom hostname '{doc['id']}' is {doc.get('status')}: nothing to revalidate"
        )
    doc["status"] = "live"
    ctx.store.update(HOSTNAME, doc)


@endpoint("DELETE", ONE, 205)
def remove_hostname(ctx: Ctx) -> Response | None:
    """205 when it removed the hostname from its target, 204 when there was none active."""
    doc = _hostname_of(ctx, write=True)
    if doc is None or not doc["active"]:
        return None
    _show_on(ctx.store, doc["target"], None)
    _deactivate(ctx.store, doc["id"])
    return removed()
