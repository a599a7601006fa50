"""Which API a manifest set talks to (DOCFORM_API_URL, else the ``docform: api`` setting), and
the client that talks to it: over HTTP, or in-process to a plug-in for ``SCHEME:FILE`` URLs
(`docform.api.schemes`; the sandbox's ``sandbox:FILE``). A plug-in is loaded only when such a
URL is opened."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docform import kind_registry
from docform.api import ApiClient, ApiConfigError
from docform.api.schemes import split_plugged, url_forms, with_location
from docform.api.shapes import RouteShapes
from docform.manifest import ManifestSet
from docform.workflow.early import EarlyView

KIND_SHAPES = RouteShapes(*kind_registry.read_shapes())
"""The shapes of the answers every kind reads, which each client checks them against."""


class Client(ApiClient):
    """An `ApiClient` for every URL docform accepts, which checks the answers the kinds read
    against the shapes derived for them from the service's answer description
    (`docform.service.answer_description`), and counts calls by their routes."""

    def __init__(self, base_url: str, token: str | None = None, **options: Any) -> None:
        options.setdefault("shapes", KIND_SHAPES)
        options.setdefault("list_names", kind_registry.list_names())
        super().__init__(base_url, token, **options)


def api_url(manifests: ManifestSet | EarlyView, environ: Mapping[str, str] | None = None) -> str:
    """The API URL; a relative ``SCHEME:FILE`` in the settings is relative to the manifests."""
    env = os.environ if environ is None else environ
    url = env.get("DOCFORM_API_URL") or manifests.settings.api
    if not url:
        raise ApiConfigError(
            f"no API to talk to: set DOCFORM_API_URL to {url_forms()}, or `docform: "
            "{api: ...}` in the manifests"
        )
    plugged = split_plugged(url)
    if plugged is not None and url is manifests.settings.api:
        path = Path(plugged[1])
        if not path.is_absolute():
            url = with_location(url, Path(manifests.directory) / path)
    return url


def open_client(
    manifests: ManifestSet | EarlyView,
    *,
    read_only: bool,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> Client:
    """A client for the manifests' organization; planning uses ``read_only=True``."""
    env = os.environ if environ is None else environ
    if not env.get("DOCFORM_API_URL") and getattr(manifests, "api_location", None):
        options.setdefault("url_source", f"the `docform: api` URL at {manifests.api_location}")
    return Client.from_env(api_url(manifests, env), read_only=read_only, environ=env, **options)
