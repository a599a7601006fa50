"""``--verbose``: the API client's retries, shown on stderr while a command runs.

The client logs each retry at INFO on ``docform.api`` (`docform.api.sender`), which Python
does not show unless asked: a command run against an unreachable service would otherwise print
a line per attempt of every call. ``--verbose`` asks.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import click

API_LOGGER = "docform.api"


class _EchoHandler(logging.Handler):
    """Writes each record's message to stderr through click, which tests' runners capture."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(record.getMessage(), err=True)


@contextmanager
def api_retries_shown() -> Iterator[None]:
    """While inside, every retry of the API client is one line on stderr."""
    log = logging.getLogger(API_LOGGER)
    handler = _EchoHandler(logging.INFO)
    level = log.level
    if not log.isEnabledFor(logging.INFO):
        log.setLevel(logging.INFO)
    log.addHandler(handler)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
