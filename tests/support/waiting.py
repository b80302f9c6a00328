"""Waiting for a condition in async tests, with a bound so a broken test fails, not hangs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


async def wait_until(
    condition: Callable[[], bool], timeout: float = 10.0, what: str = "condition"
) -> float:
    """Poll ``condition`` until it holds; return the seconds it took; fail after ``timeout``."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)
    return time.monotonic() - start
