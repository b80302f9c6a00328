"""A real ``envtui serve`` process on a loopback port, and aiohttp asking it as a browser would:
its address (token included), its tab host and the tabs' dashboards in it, its screen bytes."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import aiohttp
import psutil

from tests.support.files import ROOT
from tests.support.liveness import alive
from tests.support.waiting import poll_until

from envtui.commands.serve.web_access import PAGE_PROTOCOL, token_protocol


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    url: str
    """The address it printed, token included."""
    log: Path
    """Its standard output and error (files: a pipe nobody reads could fill and block it)."""

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        """The token, from the printed address's fragment."""
        return unquote(self.url.split("#token=", 1)[1])

    @property
    def protocols(self) -> tuple[str, str]:
        """What a tab's websocket offers, as the page's script makes it from the token."""
        return (PAGE_PROTOCOL, token_protocol(self.token))

    @property
    def tab_url(self) -> str:
        """A dashboard's websocket, as a browser's tab of 120x40 opens it."""
        return f"ws://127.0.0.1:{self.port}/ws?width=120&height=40"

    def dashboards(self) -> list[TabDashboard]:
        """The server's tab dashboards that still run (one per open websocket)."""
        return tab_dashboards(self.process.pid)


HOST_MODULE = "envtui.commands.serve.tab_process"


@dataclass(frozen=True)
class TabDashboard:
    """One tab's dashboard in the tab host: the socket the host holds for it until its
    app has ended (the host closes it then). A socket is named by its inode, which no
    later tab reuses (a file descriptor number may be)."""

    host: int
    """The tab host's process id."""
    socket: str
    """``socket:[INODE]``, as ``/proc/HOST/fd`` shows it."""

    def running(self) -> bool:
        return self.socket in _sockets(self.host).values()


def tab_hosts(server: int) -> list[psutil.Process]:
    """The server's tab host processes that still run (one, or none while idle)."""
    hosts = []
    for child in psutil.Process(server).children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and HOST_MODULE in child.cmdline():
                hosts.append(child)
        except psutil.NoSuchProcess:
            pass
    return hosts


def tab_dashboards(server: int) -> list[TabDashboard]:
    """The tabs' dashboards that run in the server's tab host: the host's connections to
    its tabs' socket (not its listening socket, whose descriptor it was given)."""
    dashboards = []
    for host in tab_hosts(server):
        try:
            command = host.cmdline()
            listening = int(command[command.index("--listen-fd") + 1])
            connections = host.net_connections(kind="unix")
        except psutil.Error:
            continue
        sockets = _sockets(host.pid)
        for connection in connections:
            if connection.fd != listening and "/tabs-" in connection.laddr:
                link = sockets.get(connection.fd)
                if link is not None:
                    dashboards.append(TabDashboard(host.pid, link))
    return dashboards


def _sockets(pid: int) -> dict[int, str]:
    """``fd -> socket:[INODE]`` of a process (empty once it is gone)."""
    found = {}
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:"):
                    found[int(fd)] = link
    except OSError:
        pass
    return found


def start_serve(
    arguments: list[str], home: Path, descriptors: int | None = None
) -> tuple[subprocess.Popen[bytes], str, Path]:
    """``envtui serve ARGUMENTS`` in a process group of its own, and the address it printed;
    with ``descriptors``, its soft and hard limits of open descriptors set to that."""
    log = home / "serve.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home)}
    limit = [] if descriptors is None else ["prlimit", f"--nofile={descriptors}:{descriptors}"]
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*limit, sys.executable, "-m", "envtui", "serve", *arguments],
            cwd=home, env=env, stdout=output, stderr=output, start_new_session=True,
        )  # fmt: skip
    found: list[str] = []

    def printed() -> bool:
        text = log.read_text(errors="replace")
        found[:] = re.findall(r"; open:\n(http://\S+)\n", text)
        return bool(found) or process.poll() is not None

    poll_until(printed, timeout=60, what=lambda: log.read_text(errors="replace"))
    assert found, log.read_text(errors="replace")
    return process, found[0], log


def start_served(arguments: list[str], home: Path, descriptors: int | None = None) -> Served:
    """``envtui serve --port PORT ARGUMENTS`` on a free loopback port (see start_serve)."""
    port = free_port()
    process, url, log = start_serve(["--port", str(port), *arguments], home, descriptors)
    return Served(process, port, url, log)


@contextlib.contextmanager
def serving(arguments: list[str], home: Path) -> Iterator[Served]:
    """:func:`start_served` for the length of the block; then Ctrl+C: it exits 0 (else its
    log is the message), and, when the block passed, nothing it started is left."""
    served = start_served(arguments, home)
    try:
        yield served
    finally:
        started = psutil.Process(served.process.pid).children(recursive=True)
        assert stop_serve(served.process) == 0, served.log.read_text(errors="replace")
    assert not any(alive(p.pid) for p in started)


def stop_serve(process: subprocess.Popen[bytes]) -> int:
    """Ctrl+C to its group (it ends its dashboards); killed if it does not exit."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGINT)
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def browser_client() -> aiohttp.ClientSession:
    # aiohttp keeps no cookie set by an IP address unless told to; a browser does (and
    # envtui serve sets none).
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def logged_in(client: aiohttp.ClientSession, served: Served) -> None:
    """The page loaded, as a browser opens the printed address (its fragment stays here)."""
    async with client.get(served.url.split("#", 1)[0]) as page:
        assert page.status == 200


@contextlib.asynccontextmanager
async def open_tabs(
    client: aiohttp.ClientSession, served: Served, count: int
) -> AsyncIterator[list[aiohttp.ClientWebSocketResponse]]:
    """``count`` tabs of a logged-in ``client`` (their websockets), closed at the end."""
    headers = {"Origin": served.origin}
    tabs = [
        await client.ws_connect(served.tab_url, headers=headers, protocols=served.protocols)
        for _ in range(count)
    ]
    try:
        yield tabs
    finally:
        for tab in tabs:
            await tab.close()


async def screen_bytes(websocket: aiohttp.ClientWebSocketResponse, enough: int) -> int:
    """Bytes of the dashboard's screen received, until ``enough`` (bounded)."""
    got = 0
    async with asyncio.timeout(60):
        while got < enough:
            message = await websocket.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                got += len(message.data)
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the dashboard's websocket ended: {message}")
    return got


CURSOR_TO = re.compile(r"\x1b\[(\d+);(\d+)H")
ESCAPES = re.compile(r"\x1b\[[0-9;?$]*[A-Za-z]|\x1b\][^\x07]*\x07")


def drawn_size(screen: bytes) -> tuple[int, int]:
    """The size a dashboard drew at, from its first whole frame (:func:`first_frame`): the
    cells of its first line, and the lowest row it moved the cursor to."""
    text = screen.decode(errors="replace")
    rows = [int(row) for row, _ in CURSOR_TO.findall(text)]
    first = text.split("\x1b[1;1H", 1)[1].split("\x1b[2;1H", 1)[0]
    return len(ESCAPES.sub("", first).rstrip("\r\n")), max(rows)


async def first_frame(websocket: aiohttp.ClientWebSocketResponse) -> bytes:
    """The screen bytes until the dashboard's first whole frame is in: Textual draws a
    whole frame from its first row to its last, so it is in once the cursor goes back up
    (the next frame, the clock's second at least). Bounded."""
    got = b""
    async with asyncio.timeout(60):
        while not _went_back_up(got):
            message = await websocket.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                got += message.data
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the dashboard's websocket ended: {message}")
    return got


def _went_back_up(screen: bytes) -> bool:
    rows = [int(row) for row, _ in CURSOR_TO.findall(screen.decode(errors="replace"))]
    return any(later < earlier for earlier, later in itertools.pairwise(rows))
