"""Where the API is: ``DOCFORM_API_URL`` resolved to a ``/v1`` base URL or a sandbox file.

The URL is the service's root (``https://api.example.com``); every API path is relative to
``{root}/v1``, so ``/v1`` is appended unless the URL already ends with it. Plain ``http://`` is
accepted only for loopback hosts, so the token never crosses a network unencrypted.
``sandbox:FILE.sqlite`` names an existing sandbox file, called in-process.
"""

from __future__ import annotations

import ipaddress
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from docform.api.errors import ApiConfigError
from docform.redact import redact_url

API_PREFIX = "/v1"
SANDBOX_SCHEME = "sandbox:"
SANDBOX_ROOT = "https://api.sandbox.test"


def resolve_api_url(url: str) -> tuple[str, Path | None]:
    """The base URL ending in ``/v1`` and, for ``sandbox:FILE``, the sandbox file."""
    url = url.strip()
    if url.startswith(SANDBOX_SCHEME):
        return SANDBOX_ROOT + API_PREFIX, _sandbox_file(url[len(SANDBOX_SCHEME) :])
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ApiConfigError(
            f"DOCFORM_API_URL {redact_url(url)!r} is not usable: give the service's root "
            "URL (https://api.example.com) or sandbox:FILE.sqlite."
        )
    if parts.scheme == "http" and not _is_loopback(parts.hostname):
        raise ApiConfigError(
            f"DOCFORM_API_URL {redact_url(url)!r} is plain http: docform sends the API token "
            "over https only (plain http is accepted for loopback addresses); use https://."
        )
    base = url.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    return (base if base.endswith(API_PREFIX) else base + API_PREFIX), None


def _sandbox_file(path: str) -> Path:
    if not path:
        raise ApiConfigError("DOCFORM_API_URL 'sandbox:' names no file: use sandbox:FILE.sqlite.")
    if not Path(path).is_file():
        raise ApiConfigError(
            f"the sandbox file {path} does not exist: create it with "
            f"'docform sandbox seed --data {path} SEED.yaml'."
        )
    return Path(path)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def environment_proxy(base_url: str) -> str | None:
    """The proxy that ``HTTPS_PROXY``/``HTTP_PROXY`` name, unless ``NO_PROXY`` excludes the host."""
    parts = urlsplit(base_url)
    proxies = urllib.request.getproxies_environment()
    if not parts.hostname or _is_loopback(parts.hostname):
        return None
    if urllib.request.proxy_bypass_environment(parts.hostname, proxies):
        return None
    return proxies.get(parts.scheme)
