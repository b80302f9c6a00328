"""textual-serve's server, run so that every dashboard process it started ends with it.

textual-serve starts one dashboard per browser tab (a child of this process) and ends it
when the tab closes. Its own ``serve()`` leaves the shutdown to aiohttp's defaults: with
a tab open, a SIGTERM left textual-serve 1.1.3's server and that tab's dashboard running
(for more than 15 s when tried), and nothing there ends a dashboard that ignores the quit
message or what a dashboard started. So here a stop signal
(:func:`envtui.vocabulary.stopping.stop_on_signals`) ends the server in this order: stop listening
and close the tabs' connections (aiohttp; textual-serve then sends each dashboard its
quit message), ask each dashboard to quit once more (SIGTERM, on which Textual's web
driver exits the app cleanly), wait for them and everything they started, then kill what
is left (:mod:`envtui.environments.processes`).

Only ``envtui serve`` imports this module, so textual-serve and aiohttp load only then.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import psutil
from aiohttp import web
from textual_serve.server import Server

from envtui.environments.processes import alive, descendants, end
from envtui.vocabulary.safe_text import for_terminal
from envtui.vocabulary.stopping import stop_on_signals

QUIT_GRACE = 10.0
"""Seconds a dashboard gets to quit (its source ends its own processes) before it is killed."""
HANDLER_GRACE = 2.0
"""Seconds aiohttp then gives the tabs' handlers; a killed dashboard's tab never answers."""
KILL_GRACE = 2.0
"""Seconds for the killed to be gone before the server exits."""
POLL = 0.05


class DashboardServer(Server):
    """textual-serve's server with a stop signal and a shutdown that ends the dashboards."""

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: textual-serve's banner would come before the address is known to work;
        :meth:`run_until_stopped` says where it serves once it listens."""

    async def on_shutdown(self, app: web.Application) -> None:
        await end_dashboards(os.getpid(), QUIT_GRACE)

    async def run_until_stopped(self) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP, then shut down (see the module's doc)."""
        runner = web.AppRunner(
            await self._make_app(), handle_signals=False, shutdown_timeout=HANDLER_GRACE
        )
        await runner.setup()
        try:
            stop = asyncio.Event()
            with stop_on_signals(stop):
                await web.TCPSite(runner, self.host, self.port).start()
                line = f"envtui serve: {self.title} on {self.public_url}, a dashboard per tab"
                print(for_terminal(line), "(Ctrl+C stops them all)", flush=True)
                await stop.wait()
        finally:
            await runner.cleanup()


async def end_dashboards(server: int, grace: float) -> None:
    """Ask the server's children to quit, wait ``grace`` seconds for them and for every
    process they started, then kill the rest.

    The processes below the dashboards are remembered before anything is signalled, so one
    whose dashboard died is still found. Waiting polls instead of reaping: asyncio's child
    watcher reaps the dashboards, and a zombie already counts as ended.
    """
    everyone = descendants(server)
    end({p for p in everyone if _parent(p) == server}, signal.SIGTERM)
    await _until_ended(everyone, grace)
    end(everyone, signal.SIGKILL)
    await _until_ended(everyone, KILL_GRACE)  # a signal is delivered, not obeyed at once


async def _until_ended(processes: set[psutil.Process], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in processes) and time.monotonic() < deadline:
        await asyncio.sleep(POLL)


def _parent(process: psutil.Process) -> int | None:
    try:
        return process.ppid()
    except psutil.Error:
        return None


def serve_dashboards(command: str, *, title: str, host: str, port: int, public_url: str) -> int:
    """Serve ``command`` to browsers until stopped; 0, or 1 when the address is unusable."""
    server = DashboardServer(command, host=host, port=port, title=title, public_url=public_url)
    server.initialize_logging()
    try:
        asyncio.run(server.run_until_stopped())
    except OSError as exc:  # aiohttp words it at length; the errno says it in short
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        message = f"envtui serve: error: cannot listen on {host}:{port}: {reason}"
        print(for_terminal(message), file=sys.stderr)
        return 1
    return 0
