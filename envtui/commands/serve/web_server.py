"""textual-serve's page, with every tab's dashboard in one tab host, and a shutdown that
ends everything it started.

textual-serve gives the page, its scripts and the downloads; each tab's websocket gets a
:class:`~envtui.commands.serve.hosted_tabs.HostedTab`: a dashboard in the tab host process
(:mod:`envtui.commands.serve.tab_process`), which runs every tab's app, instead of a dashboard
process per tab (textual-serve's own way: ten tabs were ten interpreters, eight times the
memory of one dashboard in a terminal). Closing the tab ends its dashboard.

textual-serve's own ``serve()`` leaves the shutdown to aiohttp's defaults: with a tab open,
a SIGTERM left textual-serve 1.1.3's server and that tab's dashboard running (for more
than 15 s when tried). So here a stop signal (:func:`envtui.vocabulary.stopping.stop_on_signals`)
ends the server in this order: stop listening and close the tabs' connections (aiohttp;
each tab's dashboard is then asked to quit), stop the shared source, ask the tab host to
quit (SIGTERM, on which it asks every tab to quit), wait for it and everything it
started, then kill what is left (:mod:`envtui.environments.processes`).

Before any of that, every request passes :mod:`envtui.commands.serve.web_guard` (its own Host
and Origin, the token), and the dashboards are counted: at ``--max-sessions`` a new tab's
websocket is closed with the reason and starts nothing.

Only ``envtui serve`` imports this module, so textual-serve and aiohttp load only then.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import resource
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import aiohttp_jinja2
import jinja2
import psutil
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.server import Server

from envtui.commands.serve.hosted_tabs import HostedTab, TabHosts
from envtui.commands.serve.web_access import PAGE_PROTOCOL, Access, clamp_size
from envtui.commands.serve.web_door import (
    HEADER_TIMEOUT,
    MAX_CONNECTIONS,
    Door,
    connection_cap,
)
from envtui.commands.serve.web_guard import add_safety_headers, guard
from envtui.commands.serve.web_page import with_page_scripts
from envtui.environments.processes import alive, descendants, end
from envtui.vocabulary.safe_text import for_terminal
from envtui.vocabulary.stopping import CLEANUP_GRACE, stop_on_signals

if TYPE_CHECKING:
    from envtui.commands.serve.shared_source import SharedSource

QUIT_GRACE = 10.0
"""Seconds the tab host gets to quit (each tab's replay closes its file) before it is killed."""
HANDLER_GRACE = 2.0
"""Seconds aiohttp then gives the tabs' handlers; a killed tab host's tab never answers."""
KILL_GRACE = 2.0
"""Seconds for the killed to be gone before the server exits."""
POLL = 0.05
BACKLOG = 128
"""Connections the kernel holds before they are accepted (aiohttp's own default)."""
HEARTBEAT = 15.0
"""Seconds between websocket pings, as textual-serve has it: a tab that vanished is seen."""

log = logging.getLogger("envtui.serve")


class DashboardServer(Server):
    """textual-serve's server behind :mod:`envtui.commands.serve.web_guard`, with at most
    ``max_sessions`` dashboards, clamped sizes, a stop signal and a shutdown that ends the
    dashboards.

    What it takes from textual-serve is its public surface, which
    ``tests/unit/test_serve_upstream.py`` holds to the signatures used here:
    ``handle_index`` and ``handle_download`` (the page, through the routes named
    ``websocket`` and ``static``, and the browser's downloads), ``statics_path``,
    ``templates_path`` and ``download_manager``, and :class:`AppService` (which
    :class:`HostedTab` is). The websocket handler is this class's own, since textual-serve's
    starts a process per tab and takes any size a client asks for, at the start and in
    every resize message.
    """

    def __init__(
        self,
        hosts: TabHosts,
        *,
        host: str,
        port: int,
        title: str,
        public_url: str,
        access: Access,
        max_sessions: int,
        shared: SharedSource | None = None,
        connections: int = MAX_CONNECTIONS,
    ) -> None:
        command = " ".join(hosts.arguments)  # textual-serve's name for what each tab runs
        super().__init__(command, host=host, port=port, title=title, public_url=public_url)
        self.hosts = hosts
        self.access = access
        self.max_sessions = max_sessions
        self.shared = shared
        """The source every tab follows, run here (None: each tab runs its own)."""
        self.sessions = 0
        """Dashboards started and not yet ended (their handlers still run)."""
        self.door = Door(connections, log.warning)
        """The listening socket's connections: the cap, and what it says of them."""

    def full(self) -> bool:
        return self.sessions >= self.max_sessions

    def make_app(self) -> web.Application:
        """The routes textual-serve's own app has, behind the guard; no directory index."""
        app = web.Application(middlewares=[self.door.middleware(), guard(self.access, self.full)])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_dashboard_socket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        app.on_response_prepare.append(add_safety_headers)
        return app

    async def handle_index(self, request: web.Request) -> web.Response:
        """textual-serve's page, with the token's script and the terminal focused on load
        (:mod:`envtui.commands.serve.web_page`)."""
        page = await super().handle_index(request)
        assert isinstance(page, web.Response)  # aiohttp_jinja2's rendered template
        if page.text is not None:
            page.text = with_page_scripts(page.text)
        page.headers["Cache-Control"] = "no-store"
        return page

    def initialize_logging(self) -> None:
        """textual-serve's own log lines, plainly: its handler prints every local variable
        of a traceback, and aiohttp's access log (off here) would print each request's
        address, the token in the first page's included."""
        logging.basicConfig(level=logging.INFO, format="envtui serve: %(message)s")
        logging.getLogger("asyncssh").setLevel(logging.WARNING)  # the shared source's SSH

    async def handle_dashboard_socket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab's dashboard: refused with a reason at the cap (nothing started), else
        started in the tab host at the clamped size and driven until either side closes."""
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT, protocols=(PAGE_PROTOCOL,))
        await websocket.prepare(request)
        if self.full():
            await websocket.close(
                code=WSCloseCode.TRY_AGAIN_LATER,
                message=f"envtui serve: all {self.max_sessions} dashboards are taken "
                "(--max-sessions)".encode(),
            )
            return websocket
        width, height = clamp_size(request.query.get("width"), request.query.get("height"))
        self.sessions += 1

        async def close() -> None:  # the dashboard exited
            await websocket.close()

        try:
            service = HostedTab(
                self.hosts,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
            )
            await service.start(width, height)
            try:
                await relay(websocket, service)
            finally:
                await service.stop()
        except asyncio.CancelledError:  # the server shuts down: the tab's connection goes
            await websocket.close()
        except Exception:
            log.exception("a dashboard's connection failed")
        finally:
            self.sessions -= 1
        return websocket

    async def end_all(self, app: web.Application) -> None:
        """The shared source first (what it started ends with it), then the tab host."""
        if self.shared is not None:
            await self.shared.stop(CLEANUP_GRACE)
        self.hosts.close()
        await end_dashboards(os.getpid(), QUIT_GRACE)

    async def run_until_stopped(self, address_line: str) -> None:
        """Serve until SIGINT, SIGTERM or SIGHUP, then shut down (see the module's doc);
        ``address_line`` is printed once it listens."""
        app = self.make_app()
        app.on_shutdown.append(self.end_all)  # every child of this process: only when serving
        runner = web.AppRunner(
            app,
            handle_signals=False,
            shutdown_timeout=HANDLER_GRACE,
            access_log=None,
            keepalive_timeout=HEADER_TIMEOUT,  # also the time to send a request's headers
        )
        await runner.setup()
        listening: asyncio.Server | None = None
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(self.door.exception_handler)
        try:
            stop = asyncio.Event()
            with stop_on_signals(stop):
                listening = await self.listen(runner)
                if self.shared is not None and self.shared.start(stop):
                    return  # an unusable --metrics address, said (nothing started yet)
                await self.hosts.ready()  # so the first tab finds its dashboard quickly
                print(for_terminal(address_line), flush=True)
                await stop.wait()
        finally:
            if listening is not None:
                listening.close()
            await runner.cleanup()
            self.door.closed.flush()
            self.door.accept_failures.flush()

    async def listen(self, runner: web.AppRunner) -> asyncio.Server:
        """The listening socket, each connection behind the door (aiohttp's ``TCPSite``
        would hand them to aiohttp directly)."""
        server = runner.server
        assert server is not None  # set up
        return await asyncio.get_running_loop().create_server(
            lambda: self.door.protocol(server()),
            self.host,
            self.port,
            reuse_address=True,
            backlog=BACKLOG,
        )


class Driven(Protocol):
    """What :func:`relay` drives: a :class:`HostedTab`, one dashboard."""

    async def send_bytes(self, data: bytes) -> bool: ...
    async def set_terminal_size(self, width: int, height: int) -> None: ...
    async def blur(self) -> None: ...
    async def focus(self) -> None: ...


def raise_descriptor_limit() -> int:
    """The soft limit of open descriptors raised to the hard one, and returned: every
    connection holds one, and the usual soft 1,024 runs out long before the machine does."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


async def relay(websocket: web.WebSocketResponse, service: Driven) -> None:
    """The browser's messages to the dashboard, as textual.js sends them: keys, a resize
    (clamped), focus and blur, and a ping answered. What is not one of them is ignored."""
    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
        except ValueError:
            continue
        if not isinstance(envelope, list) or not envelope:
            continue
        kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8", errors="replace"))
        elif kind == "resize" and isinstance(data, dict):
            await service.set_terminal_size(*clamp_size(data.get("width"), data.get("height")))
        elif kind == "ping":
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()


async def end_dashboards(server: int, grace: float) -> None:
    """Ask the server's children (the tab host) to quit, wait ``grace`` seconds for them
    and for every process they started, then kill the rest.

    The processes below the children are remembered before anything is signalled, so one
    whose parent died is still found. Waiting polls instead of reaping: asyncio's child
    watcher reaps the tab host, and a zombie already counts as ended.
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


def serve_dashboards(
    arguments: Sequence[str],
    *,
    folder: Path,
    title: str,
    host: str,
    port: int,
    public_url: str,
    access: Access,
    max_sessions: int,
    address_line: str,
    shared: SharedSource | None = None,
) -> int:
    """Serve the dashboard command ``arguments`` to browsers until stopped, with the tab
    host's sockets (and the shared source's stream) in the private ``folder``, removed at
    the end; 0, or 1 when the address is unusable or the shared source failed."""
    descriptors = raise_descriptor_limit()
    server = DashboardServer(
        TabHosts(folder, arguments),
        host=host,
        port=port,
        title=title,
        public_url=public_url,
        access=access,
        max_sessions=max_sessions,
        shared=shared,
        connections=connection_cap(descriptors),
    )
    server.initialize_logging()
    try:
        asyncio.run(server.run_until_stopped(address_line))
    except OSError as exc:  # aiohttp words it at length; the errno says it in short
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        message = f"envtui serve: error: cannot listen on {host}:{port}: {reason}"
        print(for_terminal(message), file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return shared.report() if shared is not None else 0
