"""Waiting for a condition, with a bound so a broken test fails, not hangs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot


async def wait_until(
    condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition"
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
    timeout: float = 10.0,
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
    timeout: float = 10.0,
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
