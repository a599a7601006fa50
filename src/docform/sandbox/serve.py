"""``docform sandbox serve``: the sandbox app behind uvicorn on a loopback port."""

from __future__ import annotations

import logging
from pathlib import Path

import click
import uvicorn

from docform.sandbox.app import SandboxConfig, create_app
from docform.sandbox.faults import FaultSettings, HangupLogFilter
from docform.sandbox.seed import apply_seed, load_seed_file
from docform.sandbox.store import Store


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
) -> None:
    store = Store(data)
    if seed is not None:
        apply_seed(store, load_seed_file(seed))
    config = SandboxConfig(
        admin_tokens=admin_tokens,
        latency_ms=latency_ms,
        rate_limit=rate_limit,
        faults=faults or FaultSettings(),
    )
    app = create_app(store, config)
    click.echo(f"docform sandbox: serving {data} at http://{host}:{port}/v1", err=True)
    if config.faults.spec:
        click.echo(f"docform sandbox: injecting faults {config.faults.spec}", err=True)
    # An injected hangup is an exception to uvicorn, which would log its traceback as an error.
    logging.getLogger("uvicorn.error").addFilter(HangupLogFilter())
    # uvicorn's access log would print every request; the stats endpoint counts them instead.
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    store.close()
