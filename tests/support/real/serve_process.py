"""A real ``envtui serve`` process on a loopback port, and aiohttp asking it as a browser would:
its address (token included), its dashboards (its child processes), its screen bytes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import psutil

from tests.support.files import ROOT
from tests.support.liveness import alive
from tests.support.waiting import poll_until


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
    def tab_url(self) -> str:
        """A dashboard's websocket, as a browser's tab of 120x40 opens it."""
        return f"ws://127.0.0.1:{self.port}/ws?width=120&height=40"

    def dashboards(self) -> list[psutil.Process]:
        """The server's dashboards that still run (one per open websocket)."""
        return dashboard_children(self.process.pid)


def dashboard_children(server: int) -> list[psutil.Process]:
    """The children of the server ``server`` that are dashboards and still run: ``python -m
    envtui …``, or the shell textual-serve starts it with (``exec`` …). The server's own
    source has children too (the demo's local environment runs each step's command), and
    one of those, running at the moment of counting, is no dashboard."""
    running = []
    for child in psutil.Process(server).children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "-m envtui" in " ".join(child.cmdline()):
                running.append(child)
        except psutil.NoSuchProcess:
            pass
    return running


def start_serve(arguments: list[str], home: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    """``envtui serve ARGUMENTS`` in a process group of its own, and the address it printed."""
    log = home / "serve.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home)}
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "envtui", "serve", *arguments],
            cwd=home, env=env, stdout=output, stderr=output, start_new_session=True,
        )  # fmt: skip
    found: list[str] = []

    def printed() -> bool:
        text = log.read_text(errors="replace")
        found[:] = re.findall(r" on (http://\S+?), a dashboard", text)
        return bool(found) or process.poll() is not None

    poll_until(printed, timeout=60, what=lambda: log.read_text(errors="replace"))
    assert found, log.read_text(errors="replace")
    return process, found[0], log


def start_served(arguments: list[str], home: Path) -> Served:
    """``envtui serve --port PORT ARGUMENTS`` on a free loopback port (see start_serve)."""
    port = free_port()
    process, url, log = start_serve(["--port", str(port), *arguments], home)
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
    # aiohttp keeps no cookie set by an IP address unless told to; a browser does.
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def logged_in(client: aiohttp.ClientSession, served: Served) -> None:
    async with client.get(served.url) as page:
        assert page.status == 200


@contextlib.asynccontextmanager
async def open_tabs(
    client: aiohttp.ClientSession, served: Served, count: int
) -> AsyncIterator[list[aiohttp.ClientWebSocketResponse]]:
    """``count`` tabs of a logged-in ``client`` (their websockets), closed at the end."""
    headers = {"Origin": served.origin}
    tabs = [await client.ws_connect(served.tab_url, headers=headers) for _ in range(count)]
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
