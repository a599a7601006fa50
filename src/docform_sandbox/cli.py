"""`docform sandbox`: serve or seed the emulator of the API. docform adds this group to its
commands through the entry point group ``docform.commands`` (pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

import click

from docform.cli.output import output, output_options
from docform_sandbox.plugin import require


@click.group()
def sandbox() -> None:
    """The built-in emulator of the documentation service API."""


@sandbox.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--data",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite file holding the sandbox state; created when missing, kept across restarts.",
)
@click.option(
    "--token",
    "tokens",
    multiple=True,
    help="A bearer token with admin rights on every organization (repeatable).",
)
@click.option(
    "--seed",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML file of organizations, users, sites and tokens to create (see README).",
)
@click.option("--latency-ms", default=0.0, type=click.FloatRange(0), help="Delay every answer.")
@click.option(
    "--rate-limit",
    type=click.FloatRange(min=1),
    help="Requests per second to allow; beyond it the sandbox answers 429 with Retry-After.",
)
@click.option(
    "--faults",
    "fault_spec",
    default="",
    metavar="SPEC",
    help="Fail some requests on purpose: KIND:PROBABILITY[@METHOD:PATH][#N],... with KIND one "
    "of 500 502 503 504 429 drop lost slow (e.g. 500:0.05,lost:1@POST:/orgs/*/teams#2).",
)
@click.option("--fault-seed", type=int, help="Seed of the fault draws (default: random).")
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a --host beyond loopback (other machines can then reach the sandbox).",
)
@click.option(
    "--slow-seconds",
    default=35.0,
    show_default=True,
    type=click.FloatRange(0),
    help="How long a 'slow' fault holds an answer back.",
)
@click.option(
    "--ready-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the root URL (http://HOST:PORT) to this file once the server answers, and "
    "remove it when it stops: a script that starts it in the background waits for the file.",
)
@output_options("Also print a line for every request (method, path, status).")
def sandbox_serve(
    host: str,
    port: int,
    data: Path,
    tokens: tuple[str, ...],
    seed: Path | None,
    latency_ms: float,
    rate_limit: float | None,
    fault_spec: str,
    fault_seed: int | None,
    slow_seconds: float,
    allow_remote: bool,
    ready_file: Path | None,
) -> int:
    """Serve the sandbox API over HTTP at http://HOST:PORT/v1 until interrupted.

    --port 0 takes any free port (see --ready-file for which). GET|PUT /_sandbox/faults reads
    or replaces the faults while it runs.
    """
    require("starlette", "uvicorn")
    from docform_sandbox.faults import FaultSettings, FaultSpecError
    from docform_sandbox.serve import serve

    _check_host(host, allow_remote)
    try:
        faults = FaultSettings(fault_spec, fault_seed, slow_seconds)
    except FaultSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="'--faults'") from None
    serve(
        host=host,
        port=port,
        data=data,
        admin_tokens=tokens,
        seed=seed,
        latency_ms=latency_ms,
        rate_limit=rate_limit,
        faults=faults,
        ready_file=ready_file,
        access_log=output().verbose,
        announce=not output().quiet,
    )
    return 0


def _check_host(host: str, allow_remote: bool) -> None:
    """The sandbox has no TLS, and its seeded tokens and control routes are for tests: it
    listens beyond loopback only when asked to, and says what that exposes."""
    from docform.api.urls import is_loopback_host

    if is_loopback_host(host):
        return
    if not allow_remote:
        raise click.BadParameter(
            f"{host} is not a loopback address: other machines could reach the sandbox, its "
            "seeded tokens and data, over plain http. Use 127.0.0.1, or add --allow-remote "
            "if that is what you want.",
            param_hint="'--host'",
        )
    click.echo(
        f"Warning: the sandbox listens on {host}, beyond loopback: anyone who can reach this "
        "port can call it with a seeded token, over plain http. Stop it when done.",
        err=True,
    )


@sandbox.command("seed")
@click.option(
    "--data",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite file holding the sandbox state; created when missing.",
)
@click.argument("seed_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@output_options("No more detail: seeding says what it loaded, or nothing with --quiet.")
def sandbox_seed(data: Path, seed_file: Path) -> int:
    """Load SEED_FILE into the sandbox at --data (objects that already exist are kept)."""
    require("starlette")
    from docform_sandbox.seed import apply_seed, load_seed_file
    from docform_sandbox.store import Store

    store = Store(data)
    try:
        apply_seed(store, load_seed_file(seed_file))
    finally:
        store.close()
    if not output().quiet:
        click.echo(f"Seeded {data} from {seed_file}.")
    return 0
