"""Waiting that a stop request cuts short: the one way every loop in envtui pauses.

Sources, pollers and command loops all run until an ``asyncio.Event`` is set; between
rounds they wait a bounded time. Waiting on the event itself (rather than sleeping) means
a stop is seen at once, never after the rest of an interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


async def wait_for_stop(stop: asyncio.Event, timeout: float) -> bool:
    """Wait until ``stop`` is set or ``timeout`` seconds pass; True when it was set."""
    if not stop.is_set():
        await within(timeout, stop.wait())
    return stop.is_set()


async def within(seconds: float, awaitable: Awaitable[Any]) -> bool:
    """Await ``awaitable`` for at most ``seconds``; False when the time ran out (it is then
    cancelled, unless shielded).

    Unlike ``asyncio.wait_for`` in Python 3.11, a cancellation of the caller that arrives
    just as the awaitable completes is never swallowed: a task being shut down always
    learns that it was cancelled.
    """
    try:
        async with asyncio.timeout(seconds):
            await awaitable
    except TimeoutError:
        return False
    return True


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


async def cancel_and_wait(*tasks: asyncio.Future[Any]) -> None:
    """Cancel ``tasks`` and wait until each is done; their results and errors are dropped.

    ``with suppress(CancelledError): await task`` would also swallow a cancellation of the
    *caller* that arrives meanwhile, and the caller would go on as if never cancelled (a
    retry loop back to sleep, a shutdown that never ends). Here the caller's own
    cancellation still reaches it.
    """
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks)
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not report it


CLEANUP_GRACE = 5.0
"""Seconds the tasks still running after a command's main coroutine get to finish."""


def run_bounded(main: Coroutine[Any, Any, T], *, grace: float = CLEANUP_GRACE) -> T:
    """``asyncio.run(main)``, except that the clean-up afterwards is bounded.

    ``asyncio.run`` cancels every task left and then waits for all of them without a
    limit: a task whose clean-up is stuck (a write that blocks, a peer that never closes)
    would keep the process alive for ever, with the signal handlers already gone. Here
    the leftover tasks get ``grace`` seconds; tasks still running after that are dropped
    with the loop.
    """
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(main)
    finally:
        try:
            _cancel_leftovers(loop, grace)
            for shutdown in (loop.shutdown_asyncgens, loop.shutdown_default_executor):
                with contextlib.suppress(TimeoutError, RuntimeError):  # closed below anyway
                    loop.run_until_complete(asyncio.wait_for(shutdown(), grace))
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop, grace: float) -> None:
    leftovers = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in leftovers:
        task.cancel()
    if not leftovers:
        return
    done, pending = loop.run_until_complete(asyncio.wait(leftovers, timeout=grace))
    for task in done:
        if not task.cancelled():
            task.exception()  # retrieved: a failure while cancelling is not worth a traceback
    for task in pending:
        # dropped on purpose: without this asyncio reports each one when it is collected
        task._log_destroy_pending = False  # type: ignore[attr-defined]


def kill_group(leader: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to the process group that ``leader`` started (a child given a session
    of its own, so that what it starts goes with it); a group already gone is no error."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(leader, sig)


def kill_group_when_started(starting: asyncio.Future[asyncio.subprocess.Process]) -> None:
    """A done-callback for a shielded start whose waiter was cancelled: the process, once
    started, is killed with its group (cancelled half way, asyncio would kill the process
    alone, not what it started meanwhile)."""
    if not starting.cancelled() and starting.exception() is None:
        kill_group(starting.result().pid)
