"""Waiting that a stop request cuts short: the one way every loop in envtui pauses.

Sources, pollers and command loops all run until an ``asyncio.Event`` is set; between
rounds they wait a bounded time. Waiting on the event itself (rather than sleeping) means
a stop is seen at once, never after the rest of an interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable, Iterator


async def wait_for_stop(stop: asyncio.Event, timeout: float) -> bool:
    """Wait until ``stop`` is set or ``timeout`` seconds pass; True when it was set."""
    if not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=timeout)
    return stop.is_set()


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Ctrl+C, a polite kill, and a closed terminal: each ends a command the same clean way."""


@contextlib.contextmanager
def on_signals(
    handler: Callable[[], object], signals: Iterable[signal.Signals] = STOP_SIGNALS
) -> Iterator[None]:
    """While inside, ``signals`` call ``handler`` (on the running loop) instead of killing
    the process.

    The handlers are removed on the way out, so a second signal after the clean-up has
    begun gets the default action: a stuck shutdown can still be interrupted.
    """
    loop = asyncio.get_running_loop()
    installed = []
    for signum in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, handler)
            installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


@contextlib.contextmanager
def stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """While inside, :data:`STOP_SIGNALS` set ``stop`` (see :func:`on_signals`)."""
    with on_signals(stop.set):
        yield
