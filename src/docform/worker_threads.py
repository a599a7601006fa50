"""CPU work in a worker thread beside the event loop that reads the API: loading the manifests
and matching each kind run there while the event loop sends reads and takes their answers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def beside_the_loop(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``function(*args, **kwargs)`` in a worker thread (`asyncio.to_thread`)."""
    return await asyncio.to_thread(function, *args, **kwargs)
