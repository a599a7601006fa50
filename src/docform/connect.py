"""Which API a manifest set talks to: DOCFORM_API_URL, else the ``docform: api`` setting."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docform.api import ApiClient, ApiConfigError

SANDBOX = "sandbox:"


def api_url(manifests: Any, environ: Mapping[str, str] | None = None) -> str:
    """The API URL; a relative ``sandbox:FILE`` in the settings is relative to the manifests."""
    env = os.environ if environ is None else environ
    url = env.get("DOCFORM_API_URL") or manifests.settings.api
    if not url:
        raise ApiConfigError(
            "no API to talk to: set DOCFORM_API_URL (https://api.example.com, or "
            "sandbox:FILE.sqlite for the built-in sandbox) or `docform: {api: ...}` in the "
            "manifests"
        )
    if url.startswith(SANDBOX) and url is manifests.settings.api:
        path = Path(url[len(SANDBOX) :])
        if not path.is_absolute():
            url = SANDBOX + str(Path(manifests.directory) / path)
    return url


def open_client(
    manifests: Any, *, read_only: bool, environ: Mapping[str, str] | None = None, **options: Any
) -> ApiClient:
    """A client for the manifests' organization; planning uses ``read_only=True``."""
    env = os.environ if environ is None else environ
    if not env.get("DOCFORM_API_URL") and getattr(manifests, "api_location", None):
        options.setdefault("url_source", f"the `docform: api` URL at {manifests.api_location}")
    return ApiClient.from_env(api_url(manifests, env), read_only=read_only, environ=env, **options)
