"""The sandbox as docform's plug-in for ``sandbox:FILE`` API URLs (the entry point group
``docform.transports`` in pyproject.toml; `docform.api.schemes` says what a plug-in gives).

This module is what docform loads when a ``sandbox:`` URL is used: it imports no web server, so
it loads where docform was installed without the sandbox's dependencies, and then says what to
install instead of failing on an import.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

from docform.errors import DocformError

if TYPE_CHECKING:
    import httpx

SERVER_PACKAGES = ("starlette", "uvicorn")
INSTALL = "pip install 'docform[sandbox]'"


class SandboxUnavailable(DocformError):
    """The packages the sandbox runs on are not installed."""


def require(*packages: str) -> None:
    """Raise `SandboxUnavailable`, saying what to install, when any of ``packages`` is missing."""
    missing = [name for name in packages if find_spec(name) is None]
    if missing:
        raise SandboxUnavailable(
            f"the sandbox needs {' and '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed: install docform with its "
            f"sandbox ({INSTALL})."
        )


class SandboxScheme:
    """``sandbox:FILE``: the sandbox over a SQLite file made by ``docform sandbox seed``, called
    in-process. It trusts the client's token as an admin of every organization (like ``docform
    sandbox serve --token``) unless it is a user's token from the seed, with the faults of
    ``DOCFORM_SANDBOX_FAULTS`` (`docform_sandbox.faults`); each transport opens its own sandbox,
    so fault counts and draws start afresh with each client."""

    root_url = "https://api.sandbox.test"
    default_token = "docform-local-sandbox-token"

    def check(self, location: Path, source: str) -> None:
        from docform.api.errors import ApiConfigError

        if not location.is_file():
            raise ApiConfigError(
                f"the sandbox file {location} does not exist: create it with "
                f"'docform sandbox seed --data {location} SEED.yaml'."
            )

    def transport(self, location: Path, token: str) -> httpx.AsyncBaseTransport:
        require("starlette")
        from docform_sandbox.app import SandboxConfig
        from docform_sandbox.faults import settings_from_env
        from docform_sandbox.transport import SandboxTransport

        config = SandboxConfig(admin_tokens=(token,), faults=settings_from_env())
        return SandboxTransport(location, config)


SANDBOX = SandboxScheme()
