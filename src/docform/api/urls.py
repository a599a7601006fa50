"""Where the API is: ``DOCFORM_API_URL`` resolved to a ``/v1`` base URL or a sandbox file.

The URL is the service's root (``https://api.example.com``); every API path is relative to
``{root}/v1``, so ``/v1`` is appended unless the URL already ends with it. Plain ``http://`` is
accepted only for loopback hosts, so the token never crosses a network unencrypted.
``SCHEME:FILE`` names a file that an installed plug-in serves in-process (`docform.api.schemes`).
"""

from __future__ import annotations

import functools
import ipaddress
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

import httpx

from docform.api.errors import ApiConfigError
from docform.api.schemes import PluggedUrl, plugged_url, split_plugged, url_forms
from docform.untrusted.redact import redact_url

PARSED_URLS = 512
"""How many request URLs stay parsed (`request_url`)."""

API_PREFIX = "/v1"


def resolve_api_url(url: str, source: str = "DOCFORM_API_URL") -> tuple[str, PluggedUrl | None]:
    """The base URL ending in ``/v1`` and, for ``SCHEME:FILE``, the plug-in serving the file.

    ``source`` names where the URL came from in messages (the variable, or a manifest setting).
    """
    url = url.strip()
    plugged = plugged_url(url, source)
    if plugged is not None:
        return plugged.plugin.root_url + API_PREFIX, plugged
    parts = _parsed(url, source)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ApiConfigError(f"{source} {redact_url(url)!r} is not usable: give {url_forms()}.")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise ApiConfigError(
            f"{source} {redact_url(url)!r} is plain http: docform sends the API token "
            "over https only (plain http is accepted for loopback addresses); use https://."
        )
    base = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    return (base if base.endswith(API_PREFIX) else base + API_PREFIX), None


def _parsed(url: str, source: str) -> SplitResult:
    """``url`` split into parts, or an error saying which part is malformed."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number only fails when read
        httpx.URL(url)
    except (ValueError, httpx.InvalidURL) as exc:
        raise ApiConfigError(
            f"{source} {redact_url(url)!r} is not a valid URL ({exc}): give the service's "
            "root URL, like https://api.example.com or https://api.example.com:8443."
        ) from None
    return parts


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` names this machine (``localhost`` or a loopback address)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def service_identity(url: str) -> str:
    """One name for every spelling of one service, for what is keyed on it (the apply lock):
    ``http://127.0.0.1:8080``, ``http://localhost:8080/`` and ``http://[::1]:8080/v1`` are one.

    The scheme and host without case or a trailing dot, a loopback host as ``loopback``, the
    port (the scheme's default when none is written), the path without ``/v1`` or a trailing
    slash; never credentials, query or fragment. A ``SCHEME:FILE`` URL counts by the file's full
    path.
    """
    url = url.strip()
    plugged = split_plugged(url)
    if plugged is not None:
        return f"{plugged[0]}:{Path(plugged[1]).resolve()}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return redact_url(url)
    host = (parts.hostname or "").lower().rstrip(".")
    if host and is_loopback_host(host):
        host = "loopback"
    scheme = parts.scheme.lower()
    port = port or {"http": 80, "https": 443}.get(scheme)
    path = parts.path.rstrip("/").removesuffix(API_PREFIX).rstrip("/")
    return f"{scheme}://{host}:{port}{path}"


def request_url(base: str, path: str, params: Mapping[str, Any] | None) -> httpx.URL:
    """The URL of a call to ``path`` under ``base`` (ending in ``/``) with query ``params``:
    the one httpx makes of a client's ``base_url``, a relative URL and ``params`` (given
    params replace a query written in ``path``; a fragment is dropped), parsed once instead
    of three times.
    """
    route = path.lstrip("/").partition("#")[0]
    if params is not None:
        query = str(httpx.QueryParams(params))
        route = route.partition("?")[0] + ("?" + query if query else "")
    return _parsed_url(base + route)


@functools.lru_cache(maxsize=PARSED_URLS)
def _parsed_url(url: str) -> httpx.URL:
    # An httpx.URL never changes once made, and a plan asks for the same lists again and
    # again (each page, each apply's read-back, the rehearsal's twin).
    return httpx.URL(url)


def environment_proxy(base_url: str) -> str | None:
    """The proxy that ``HTTPS_PROXY``/``HTTP_PROXY`` name, unless ``NO_PROXY`` excludes the host."""
    parts = urlsplit(base_url)
    proxies = urllib.request.getproxies_environment()
    if not parts.hostname or is_loopback_host(parts.hostname):
        return None
    # Public in urllib.request, though typeshed does not list it.
    if urllib.request.proxy_bypass_environment(parts.hostname, proxies):  # type: ignore[attr-defined]
        return None
    return proxies.get(parts.scheme)
