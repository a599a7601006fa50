"""Which API a manifest set talks to (DOCFORM_API_URL, else the ``docform: api`` setting), and
the client that talks to it: over HTTP, or in-process to a plug-in for ``SCHEME:FILE`` URLs
(`docform.api.schemes`; the sandbox's ``sandbox:FILE``). A plug-in is loaded only when such a
URL is opened.

Where the token goes is the environment's choice, not a pull request's: in CI (`running_in_ci`)
a host that only the manifests name gets no token unless ``DOCFORM_API_HOSTS`` lists it, since a
pull request may change the manifests and CI runs them with the job's token."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from docform import kind_registry
from docform.api import ApiClient, ApiConfigError
from docform.api.schemes import split_plugged, url_forms, with_location
from docform.api.shapes import RouteShapes
from docform.api.urls import resolve_api_url
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
    given = env.get("DOCFORM_API_URL")
    if given is not None and not given.strip():
        raise ApiConfigError(
            "DOCFORM_API_URL is set but empty (what a CI variable that is not defined gives): "
            f"set it to {url_forms()}, or unset it to use `docform: {{api: ...}}` in the "
            "manifests"
        )
    url = given or manifests.settings.api
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


OpenClient = Callable[[bool], Client]
"""Opens a client of the manifests' API, read-only when given True (an apply's calls and the
reads around them each take their own)."""


def open_client(
    manifests: ManifestSet | EarlyView,
    *,
    read_only: bool,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> Client:
    """A client for the manifests' organization; planning uses ``read_only=True``."""
    env = os.environ if environ is None else environ
    url = api_url(manifests, env)
    if not env.get("DOCFORM_API_URL"):
        where = getattr(manifests, "api_location", None) or "the manifests"
        source = f"the `docform: api` URL at {where}"
        options.setdefault("url_source", source)
        refuse_a_host_the_environment_does_not_name(url, source, env)
    return Client.from_env(url, read_only=read_only, environ=env, **options)


HOSTS_VARIABLE = "DOCFORM_API_HOSTS"
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI")


def running_in_ci(env: Mapping[str, str]) -> str | None:
    """The variable that says this runs in CI (GitHub Actions, GitLab CI and most others set
    ``CI``), or None."""
    for name in CI_VARIABLES:
        if env.get(name, "").strip().lower() not in ("", "0", "false", "no"):
            return name
    return None


def refuse_a_host_the_environment_does_not_name(
    url: str, source: str, env: Mapping[str, str]
) -> None:
    """In CI, an API URL only the manifests give must name a host ``DOCFORM_API_HOSTS`` lists
    (comma-separated host names); an in-process ``SCHEME:FILE`` sends nothing anywhere."""
    base, plugged = resolve_api_url(url, source)
    ci = running_in_ci(env)
    if plugged is not None or ci is None:
        return
    host = (urlsplit(base).hostname or "").lower()
    allowed = {h.strip().lower().strip("[]") for h in env.get(HOSTS_VARIABLE, "").split(",")}
    if host.strip("[]") in allowed - {""}:
        return
    raise ApiConfigError(
        f"{source} names the host {host!r}, and this runs in CI ({ci} is set): the API token "
        "goes only to a host the environment names, so that a pull request cannot choose where "
        f"it goes. Set DOCFORM_API_URL in the job, or list the host in {HOSTS_VARIABLE}."
    )
