"""Waiting for a condition, with a bound so a broken test fails, not hangs.

The bound is a guard against a hang, never a timing: a minute by default, so a loaded
machine (CI runs the whole suite on 2 cores) is slow, not failed. A wait that passes
returns as soon as its condition holds. A task run for the length of a block is waited for
at its end with the same kind of bound."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from textual.pilot import Pilot

DEFAULT_TIMEOUT = 60.0


async def wait_until(
    condition: Callable[[], bool], timeout: float = DEFAULT_TIMEOUT, what: str = "condition"
) -> float:
    """Poll ``condition`` until it holds; return the seconds it took; fail after ``timeout``."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)  # the poll interval of this bounded wait
    return time.monotonic() - start


async def pilot_wait_until(
    pilot: Pilot[Any],
    condition: Callable[[], bool],
    timeout: float = DEFAULT_TIMEOUT,
    what: str = "condition",
) -> float:
    """``wait_until`` for an app under Pilot: between polls the app handles its messages."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await pilot.pause(0.05)  # the poll interval: a frame is 1/15 s
    return time.monotonic() - start


def poll_until(
    condition: Callable[[], bool],
    timeout: float = DEFAULT_TIMEOUT,
    what: str | Callable[[], str] = "condition",
    interval: float = 0.1,
) -> float:
    """``wait_until`` without an event loop, for a test that watches another process.

    ``what`` may be a function, to describe at the time of failure what was seen.
    """
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            described = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout} s waiting for {described}")
        time.sleep(interval)  # the poll interval of this bounded wait
    return time.monotonic() - start


@contextlib.asynccontextmanager
async def running(
    run: Callable[[asyncio.Event], Awaitable[None]], timeout: float = 30.0
) -> AsyncIterator[asyncio.Task[None]]:
    """``run(stop)`` as a task for the length of the block; then ``stop`` is set and the task
    waited for (``timeout``: the hang guard). A task that ended by itself before (the test
    may wait for its end) raises its error, if it had one, here."""
    stop = asyncio.Event()
    task = asyncio.ensure_future(run(stop))
    try:
        yield task
    finally:
        stop.set()
        if not task.done():
            await asyncio.wait_for(task, timeout=timeout)
        elif not task.cancelled():
            task.result()
