"""Servers that tests stand up on a loopback port. Of the standard library (`socketserver`,
`http.server`): a listener recording what docform sends, a service misbehaving, a stand-in for
GitLab's API; `serving` runs one from a thread for the length of a ``with`` block. And
`PromptServer`, uvicorn serving an ASGI app (the sandbox) from a thread until told to stop
(`planning.served_app`)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

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


CLOSING_POLL = 0.005
"""How often a stopping `PromptServer` looks whether its connections and requests are done."""


class PromptServer(uvicorn.Server):
    """uvicorn's server, whose `serving` event is set once it listens, stopped as soon as
    `stop` is called. uvicorn itself looks whether it was told to stop once per tick of its
    main loop, and pauses a tick before it waits for its connections to close: every test that
    served an app would wait for both at its end, doing nothing. Stopping still closes the
    listening sockets, lets each connection finish its request, waits for the requests still
    running (an answer a fault holds back) and ends the app's lifespan, as uvicorn does."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.serving = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self.loop = asyncio.get_running_loop()
        self.stop_requested = asyncio.Event()
        await super().startup(sockets)
        if self.started:
            self.serving.set()

    def stop(self) -> None:
        """Tells the server to stop, from any thread."""
        self.should_exit = True
        self.loop.call_soon_threadsafe(self.stop_requested.set)

    async def main_loop(self) -> None:
        # uvicorn's ticks keep its Date header current: they go on until it is told to stop.
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop_requested.wait(), 0.1)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        while self.server_state.connections or self.server_state.tasks:
            await asyncio.sleep(CLOSING_POLL)
        for server in self.servers:
            await server.wait_closed()
        await self.lifespan.shutdown()
