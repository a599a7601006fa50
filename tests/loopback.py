"""Servers of the standard library (`socketserver`, `http.server`) that tests stand up on a
loopback port: a listener recording what docform sends, a service misbehaving, a stand-in for
GitLab's API. `serving` runs one from a thread for the length of a ``with`` block."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SHUTDOWN_POLL = 0.01
"""How often the serving loop looks whether it was told to stop. `shutdown` waits for that
look: at the standard library's default interval every test that served something would wait
for it at its end, doing nothing."""


@contextmanager
def serving(server: socketserver.TCPServer) -> Iterator[str]:
    """``server`` answering from a daemon thread while the block runs, then shut down and
    closed; yields its root URL (``http://127.0.0.1:PORT``)."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.socket.getsockname()[1]}"
    finally:
        server.shutdown()
        server.server_close()
