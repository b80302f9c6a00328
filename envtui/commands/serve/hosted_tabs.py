"""The server's side of the tab host: the process that runs every tab's dashboard, and each
tab's connection to it.

:class:`TabHosts` starts the tab host (:mod:`envtui.commands.serve.tab_process`) when the server
starts, so the first tab finds it ready, and starts it again for a tab that comes when
there is none; once no tab has been open for :data:`IDLE_LINGER` seconds it ends it, and
what the tabs held is given back with the process. Each start has a listening socket of
its own, made here and handed over: a tab can connect at once (it waits in the backlog
until the host takes it), and a host that is ending never takes a new tab.

:class:`HostedTab` is one tab, for textual-serve's page and download manager: it is
textual-serve's :class:`AppService` with the dashboard process replaced by a connection to
the tab host, speaking the same packets (:mod:`envtui.tui.web.tab_packets`). Its public
methods are the ones textual-serve's own code calls (``send_bytes``, ``send_meta``,
``set_terminal_size``, ``blur``, ``focus``, ``start``, ``stop``, and its ``on_data`` and
``on_meta`` that turn the dashboard's packets into the page's messages).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from importlib.metadata import version
from pathlib import Path

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from envtui.tui.web.tab_packets import (
    DATA,
    META,
    PacketError,
    PacketReader,
    meta_packet,
    packet,
    split_chunk,
)
from envtui.vocabulary.stopping import cancel_and_wait

IDLE_LINGER = 10.0
"""Seconds the tab host stays without a tab (a reloaded page finds it still there)."""
QUIT_GRACE = 10.0
"""Seconds a tab's dashboard gets to quit before its connection is closed under it."""
OUTPUT_LIMIT = 64 << 20
"""Bytes of one packet from a dashboard: a whole screen of 500x200 cells, with room."""
READ_SIZE = 1 << 16
BACKLOG = 64
"""Tabs that may wait for the tab host to take them (each is one the server counted)."""


def host_environment() -> dict[str, str]:
    """The tab host's environment: as textual-serve gives a dashboard process (true
    colour, 60 frames a second, a ``TERM_PROGRAM`` that says it is served), the size
    excepted: each tab says its own."""
    return {
        **os.environ,
        "TEXTUAL_FPS": "60",
        "TEXTUAL_COLOR_SYSTEM": "truecolor",
        "TERM_PROGRAM": "textual",
        "TERM_PROGRAM_VERSION": version("textual-serve"),
    }


def host_command(listen_fd: int, arguments: Sequence[str]) -> list[str]:
    """The tab host's command line: this Python, the listening socket, the dashboard."""
    return [
        sys.executable,
        "-m",
        "envtui.commands.serve.tab_process",
        "--listen-fd",
        str(listen_fd),
        "--",
        *arguments,
    ]


class TabHost:
    """One start of the tab host: its process and the socket it takes tabs from."""

    def __init__(self, path: Path, process: asyncio.subprocess.Process) -> None:
        self.path = path
        self.process = process

    @classmethod
    async def start(cls, path: Path, arguments: Sequence[str]) -> TabHost:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(path))
            listener.listen(BACKLOG)
            process = await asyncio.create_subprocess_exec(
                *host_command(listener.fileno(), arguments),
                stdin=asyncio.subprocess.DEVNULL,
                pass_fds=(listener.fileno(),),
                env=host_environment(),
            )
        finally:
            listener.close()  # the host holds it now: when the host ends, so does the socket
        return cls(path, process)

    @property
    def running(self) -> bool:
        return self.process.returncode is None

    def end(self) -> None:
        """Ask the host to quit (its tabs are gone); no new tab reaches it any more."""
        with contextlib.suppress(OSError):
            self.path.unlink()
        if self.running:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()


class TabHosts:
    """The tab host of a server, started when wanted, ended when no tab wants it."""

    def __init__(self, folder: Path, arguments: Sequence[str]) -> None:
        self.folder = folder
        self.arguments = list(arguments)
        """The dashboard each tab gets (a command and its arguments)."""
        self.tabs = 0
        """Tabs connected (or connecting) to the host."""
        self._host: TabHost | None = None
        self._starts = 0
        self._idle: asyncio.TimerHandle | None = None

    async def ready(self) -> TabHost:
        """The running tab host, started if there is none."""
        if self._host is None or not self._host.running:
            self._starts += 1
            path = self.folder / f"tabs-{self._starts}.sock"
            self._host = await TabHost.start(path, self.arguments)
            self._when_idle()
        return self._host

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A new tab's connection to the tab host."""
        self.tabs += 1
        self._cancel_idle()
        try:
            try:
                return await self._connect()
            except (ConnectionRefusedError, FileNotFoundError):  # it ended before it was seen to
                self._replace()
                return await self._connect()
        except BaseException:
            self.disconnected()
            raise

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        host = await self.ready()
        return await asyncio.open_unix_connection(str(host.path), limit=READ_SIZE)

    def _replace(self) -> None:
        if self._host is not None:
            self._host.end()
            self._host = None

    def disconnected(self) -> None:
        self.tabs -= 1
        self._when_idle()

    def _when_idle(self) -> None:
        if self.tabs == 0 and self._idle is None:
            self._idle = asyncio.get_running_loop().call_later(IDLE_LINGER, self._retire)

    def _cancel_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def _retire(self) -> None:
        self._idle = None
        if self.tabs == 0:
            self._replace()

    def close(self) -> None:
        """The server stops: the host is asked to quit (the server then waits for it)."""
        self._cancel_idle()
        if self._host is not None:
            self._host.end()


class HostedTab(AppService):
    """One browser tab's dashboard in the tab host, driven as textual-serve drives a
    dashboard process (see the module's doc)."""

    def __init__(
        self,
        hosts: TabHosts,
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        download_manager: DownloadManager,
    ) -> None:
        super().__init__(
            " ".join(hosts.arguments),
            write_bytes=write_bytes,
            write_str=write_str,
            close=close,
            download_manager=download_manager,
        )
        self.hosts = hosts
        self.downloads = download_manager
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None

    async def start(self, width: int, height: int) -> None:
        """Connect to the tab host and open the tab at ``width`` x ``height``."""
        reader, self._writer = await self.hosts.connect()
        self._reading = asyncio.get_running_loop().create_task(self._read(reader))
        await self.send_meta({"type": "open", "width": width, "height": height})

    async def _read(self, reader: asyncio.StreamReader) -> None:
        """The dashboard's packets to the page until the tab ends; then the page's
        websocket is closed (also when the tab host went away without a word)."""
        packets = PacketReader(OUTPUT_LIMIT)
        try:
            while data := await reader.read(READ_SIZE):
                for kind, payload in packets.feed(data):
                    if kind == DATA:
                        await self.on_data(payload)
                    elif kind == META:
                        await self.on_meta(payload)
                    else:
                        await self.downloads.chunk_received(*split_chunk(payload))
        except (OSError, PacketError):
            pass  # the tab host went away, or said what it cannot: the tab ends
        finally:
            await self.remote_close()

    async def send_bytes(self, data: bytes) -> bool:
        return await self._send(packet(DATA, data))

    async def send_meta(self, data: dict[str, str | int | bool | None]) -> bool:
        return await self._send(meta_packet(data))

    async def _send(self, data: bytes) -> bool:
        writer = self._writer
        if writer is None or writer.is_closing():
            return False
        try:
            writer.write(data)
            await writer.drain()
        except (OSError, RuntimeError):
            return False
        return True

    async def stop(self) -> None:
        """Ask the dashboard to quit, give it :data:`QUIT_GRACE` seconds, then close its
        connection (which ends a tab that did not answer, unless it hangs: that one is
        left to the tab host's end)."""
        if self._writer is None:
            return
        await self.downloads.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        if self._reading is not None:
            await asyncio.wait({self._reading}, timeout=QUIT_GRACE)
            await cancel_and_wait(self._reading)
        self._writer.close()
        with contextlib.suppress(OSError):
            await self._writer.wait_closed()
        self._writer = None
        self.hosts.disconnected()
