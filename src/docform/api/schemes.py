"""API URLs that no network serves: ``SCHEME:FILE``, answered in-process by a plug-in.

docform calls ``https://`` (and loopback ``http://``) URLs itself. Any other scheme comes from an
installed package that registers it in the entry point group ``docform.transports``: the entry
point is named after the scheme and loads an object with the `SchemeTransport` protocol, which
opens an httpx transport over the file the URL names. The API layer knows no plug-in by name;
it looks one up only when a URL with its scheme is used, so a plan against an https URL loads
no plug-in at all.

The part after the scheme is a file path: a relative one in the manifests' ``docform: api``
setting is relative to the manifests (`docform.workflow.connect`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol

import httpx

from docform.api.errors import ApiConfigError
from docform.untrusted.redact import redact_url

TRANSPORT_GROUP = "docform.transports"
NETWORK_SCHEMES = ("http", "https")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):(?!//)(.*)$", re.IGNORECASE)


class SchemeTransport(Protocol):
    """What a plug-in gives for the URLs of its scheme."""

    @property
    def root_url(self) -> str:
        """The service root its transport answers under (``https://api.NAME.test``)."""

    @property
    def default_token(self) -> str:
        """The token sent when ``DOCFORM_API_TOKEN`` is not set."""

    def check(self, location: Path, source: str) -> None:
        """Raise `ApiConfigError` saying what to do when ``location`` cannot be served."""

    def transport(self, location: Path, token: str) -> httpx.AsyncBaseTransport:
        """A transport answering the API over ``location``, admitting ``token`` as an admin."""


@dataclass(frozen=True)
class PluggedUrl:
    """A ``SCHEME:FILE`` URL and the plug-in that serves it."""

    scheme: str
    location: Path
    plugin: SchemeTransport

    @property
    def budget_key(self) -> str:
        """What clients of one file share their rate limit under."""
        return f"{self.scheme}:{self.location.resolve()}"

    def transport(self, token: str) -> httpx.AsyncBaseTransport:
        return self.plugin.transport(self.location, token)


def split_plugged(url: str) -> tuple[str, str] | None:
    """``(scheme, location)`` of a ``SCHEME:FILE`` URL; None for a network URL or none at all
    (``https://...``, ``ftp://...``, ``api.example.com``)."""
    match = _SCHEME.match(url.strip())
    if match is None or match.group(1).lower() in NETWORK_SCHEMES:
        return None
    return match.group(1).lower(), match.group(2)


def with_location(url: str, location: str | Path) -> str:
    """``url``'s scheme with another location (``sandbox:a.sqlite`` -> ``sandbox:/x/a.sqlite``)."""
    parts = split_plugged(url)
    assert parts is not None, f"{url!r} is not a SCHEME:FILE URL"
    return f"{parts[0]}:{Path(location).as_posix()}"


def plugged_url(url: str, source: str = "DOCFORM_API_URL") -> PluggedUrl | None:
    """The plug-in serving ``url`` and the file it names; None for a network URL. A scheme that
    no installed package serves, or a file its plug-in cannot serve, is an `ApiConfigError`
    naming ``source`` (the variable or manifest setting the URL came from)."""
    parts = split_plugged(url)
    if parts is None:
        return None
    scheme, location = parts
    plugin = _plugin(scheme, url, source)
    if not location:
        raise ApiConfigError(f"{source} '{scheme}:' names no file: use {scheme}:FILE.")
    plugged = PluggedUrl(scheme, Path(location), plugin)
    plugin.check(plugged.location, source)
    return plugged


def _plugin(scheme: str, url: str, source: str) -> SchemeTransport:
    plugin = _installed_plugin(scheme)
    if plugin is None:
        raise ApiConfigError(
            f"{source} {redact_url(url)!r} names the scheme '{scheme}:', which no installed "
            f"package serves (a package serves one by registering it in the entry point group "
            f"'{TRANSPORT_GROUP}'): install the package that serves '{scheme}:' URLs into "
            "docform's environment, or give the service's root URL (https://api.example.com)."
        )
    return plugin


@cache
def _installed_plugin(scheme: str) -> SchemeTransport | None:
    """The plug-in an installed package registers for ``scheme``, looked up once per process:
    the lookup reads the metadata of every installed package, and a command opens several
    clients (the plan's, the apply's, the read-back's), each resolving its URL."""
    found = entry_points(group=TRANSPORT_GROUP, name=scheme)
    if not found:
        return None
    plugin: SchemeTransport = next(iter(found)).load()
    return plugin


def url_forms() -> str:
    """The URLs docform takes, for messages: the service's root, and ``SCHEME:FILE`` for each
    installed plug-in."""
    schemes = sorted({point.name for point in entry_points(group=TRANSPORT_GROUP)})
    served = "".join(f" or {scheme}:FILE" for scheme in schemes)
    return f"the service's root URL (https://api.example.com){served}"
