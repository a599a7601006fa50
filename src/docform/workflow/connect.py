"""Which API a manifest set talks to (DOCFORM_API_URL, else the ``docform: api`` setting), and
the client that talks to it: over HTTP, or to the built-in sandbox in-process for ``sandbox:``
URLs. The sandbox (Starlette and all) is imported only when such a URL is opened."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from docform import kind_registry
from docform.api import LOCAL_SANDBOX_TOKEN, ApiClient, ApiConfigError
from docform.api.shapes import RouteShapes
from docform.api.urls import SANDBOX_SCHEME, resolve_api_url
from docform.manifest import ManifestSet
from docform.workflow.early import EarlyView

KIND_SHAPES = RouteShapes(*kind_registry.read_shapes())
"""The shapes of the answers every kind reads, which each client checks them against."""


class Client(ApiClient):
    """An `ApiClient` for every URL docform accepts: ``sandbox:FILE`` opens the sandbox over
    that file in-process, trusting the client's token as an admin of every organization (like
    ``docform sandbox serve --token``) unless it is a user's token from the seed, with the
    faults of ``DOCFORM_SANDBOX_FAULTS`` (`docform.sandbox.faults`); each client opens its own
    sandbox, so fault counts and draws start afresh with each client. It checks the answers
    the kinds read against the shapes derived for them from the service's answer description
    (`docform.service.answer_description`), and counts calls by their routes."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        url_source: str = "DOCFORM_API_URL",
        **options: Any,
    ) -> None:
        if transport is None:
            _, sandbox_file = resolve_api_url(base_url, url_source)
            if sandbox_file is not None:
                token = token or LOCAL_SANDBOX_TOKEN
                transport = sandbox_transport(sandbox_file, token)
        options.setdefault("shapes", KIND_SHAPES)
        options.setdefault("list_names", kind_registry.list_names())
        super().__init__(base_url, token, transport=transport, url_source=url_source, **options)


def sandbox_transport(path: Path, token: str) -> httpx.AsyncBaseTransport:
    """The sandbox over the file at ``path``, admitting ``token`` as its admin."""
    from docform.sandbox.app import SandboxConfig
    from docform.sandbox.faults import settings_from_env
    from docform.sandbox.transport import SandboxTransport

    return SandboxTransport(path, SandboxConfig(admin_tokens=(token,), faults=settings_from_env()))


def api_url(manifests: ManifestSet | EarlyView, environ: Mapping[str, str] | None = None) -> str:
    """The API URL; a relative ``sandbox:FILE`` in the settings is relative to the manifests."""
    env = os.environ if environ is None else environ
    url = env.get("DOCFORM_API_URL") or manifests.settings.api
    if not url:
        raise ApiConfigError(
            "no API to talk to: set DOCFORM_API_URL (https://api.example.com, or "
            "sandbox:FILE.sqlite for the built-in sandbox) or `docform: {api: ...}` in the "
            "manifests"
        )
    if url.startswith(SANDBOX_SCHEME) and url is manifests.settings.api:
        path = Path(url[len(SANDBOX_SCHEME) :])
        if not path.is_absolute():
            url = SANDBOX_SCHEME + str(Path(manifests.directory) / path)
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
