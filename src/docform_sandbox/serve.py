"""``docform sandbox serve``: the sandbox app behind uvicorn on a loopback port."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path

import click
import uvicorn
from starlette.types import ASGIApp

from docform_sandbox.app import SandboxConfig, create_app
from docform_sandbox.faults import FaultSettings, HangupLogFilter
from docform_sandbox.seed import apply_seed, load_seed_file
from docform_sandbox.serving_guards import (
    HEADER_SECONDS,
    HeaderDeadlineProtocol,
    is_loopback,
    loopback_hosts_only,
)
from docform_sandbox.store import Store

HEADER_SECONDS_VARIABLE = "DOCFORM_SANDBOX_HEADER_SECONDS"


def serve(
    *,
    host: str,
    port: int,
    data: Path,
    admin_tokens: tuple[str, ...] = (),
    seed: Path | None = None,
    latency_ms: float = 0.0,
    rate_limit: float | None = None,
    faults: FaultSettings | None = None,
    ready_file: Path | None = None,
    access_log: bool = False,
    announce: bool = True,
) -> None:
    """Serve until interrupted. ``ready_file`` receives the root URL once the server accepts
    connections (scripts wait for it, then call), and is removed when it stops. ``access_log``
    prints a line per request; ``announce`` says where it serves, on stderr."""
    if ready_file is not None:
        ready_file.unlink(missing_ok=True)
    store = Store(data)
    if seed is not None:
        apply_seed(store, load_seed_file(seed))
    config = SandboxConfig(
        admin_tokens=admin_tokens,
        latency_ms=latency_ms,
        rate_limit=rate_limit,
        faults=faults or FaultSettings(),
    )
    app: ASGIApp = create_app(store, config)
    if is_loopback(host):
        app = loopback_hosts_only(app)
    if config.faults.spec and announce:
        click.echo(f"docform sandbox: injecting faults {config.faults.spec}", err=True)
    # An injected hangup is an exception to uvicorn, which would log its traceback as an error.
    logging.getLogger("uvicorn.error").addFilter(HangupLogFilter())
    # uvicorn's access log prints every request (at info): only when asked; the stats
    # endpoint counts them anyway.
    log_level = "info" if access_log else "warning"
    server = _Server(
        uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level=log_level,
            access_log=access_log,
            http=_header_deadline_protocol(),
        ),
        on_ready=lambda root: _announce(root, data, ready_file, announce),
        on_stop=lambda: ready_file.unlink(missing_ok=True) if ready_file else None,
    )
    try:
        server.run()
    finally:
        store.close()


class _Server(uvicorn.Server):
    """uvicorn's server, calling ``on_ready`` with its root URL once it accepts connections
    (the port is the one really bound, also when 0 asked for any free port), and ``on_stop``
    as it begins to shut down: after that uvicorn raises the signal that stopped it again, so
    no code after `run` is sure to run."""

    def __init__(
        self,
        config: uvicorn.Config,
        *,
        on_ready: Callable[[str], None],
        on_stop: Callable[[], None],
    ) -> None:
        super().__init__(config)
        self.on_ready = on_ready
        self.on_stop = on_stop

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.servers:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            self.on_ready(f"http://{_url_host(host)}:{port}")

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_stop()
        await super().shutdown(sockets)


def _header_deadline_protocol() -> type[HeaderDeadlineProtocol]:
    """The protocol with the header deadline ``DOCFORM_SANDBOX_HEADER_SECONDS`` sets."""
    value = os.environ.get(HEADER_SECONDS_VARIABLE, "").strip()
    try:
        seconds = float(value) if value else HEADER_SECONDS
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise click.BadParameter(f"{HEADER_SECONDS_VARIABLE} must be a positive number of seconds")
    return type("Protocol", (HeaderDeadlineProtocol,), {"header_seconds": seconds})


def _announce(root: str, data: Path, ready_file: Path | None, announce: bool) -> None:
    if announce:
        click.echo(f"docform sandbox: serving {data} at {root}/v1", err=True)
    if ready_file is not None:
        # Written whole under another name, then renamed: a script waiting for the file never
        # reads half a URL.
        partial = ready_file.with_name(ready_file.name + ".partial")
        partial.write_text(root + "\n", encoding="utf-8")
        partial.replace(ready_file)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
