"""The server's end of one tab's socket, driven by a test in place of ``envtui serve``: it
opens the tab, types, resizes and asks for download chunks as the server would, and reads
what the tab's dashboard sends back, packet by packet (the real server's side is in the
serve integration tests)."""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Callable

from envtui.tui.web.tab_packets import (
    CHUNK,
    DATA,
    META,
    PacketReader,
    meta_packet,
    packet,
    split_chunk,
)

WAIT = 60.0
"""Seconds a wait on the tab may take before the test fails (a hang guard, not a timing)."""


class TabServer:
    """One tab, as the server sees it: ``connection`` is the server's end of its socket."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.reader = PacketReader(64 << 20)
        self.screen = b""
        """Every ``D`` byte received so far."""
        self.metas: list[dict[str, object]] = []
        self.chunks: list[tuple[str, bytes]] = []
        self.closed = False
        """Whether the tab closed its end (its app ended)."""

    @classmethod
    def pair(cls) -> tuple[TabServer, socket.socket]:
        """A tab's server end, and the socket to give the tab host."""
        ours, theirs = socket.socketpair()
        return cls(ours), theirs

    def open(self, width: int = 80, height: int = 24) -> None:
        self.send_meta({"type": "open", "width": width, "height": height})

    def send_meta(self, message: dict[str, object]) -> None:
        self.connection.sendall(meta_packet(message))

    def type(self, keys: str) -> None:
        self.connection.sendall(packet(DATA, keys.encode()))

    def read(self, timeout: float = 0.05) -> None:
        """What has arrived within ``timeout`` seconds."""
        if self.closed:
            return
        readable, _, _ = select.select([self.connection], [], [], timeout)
        if not readable:
            return
        try:
            data = self.connection.recv(1 << 16)
        except ConnectionResetError:  # closed with what we sent unread
            data = b""
        if not data:
            self.closed = True
        for kind, payload in self.reader.feed(data):
            if kind == DATA:
                self.screen += payload
            elif kind == META:
                self.metas.append(json.loads(payload))
            elif kind == CHUNK:
                self.chunks.append(split_chunk(payload))

    def wait(self, condition: Callable[[], bool], what: str) -> None:
        """Read until ``condition`` holds; fail after :data:`WAIT` seconds."""
        deadline = time.monotonic() + WAIT
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            self.read()

    def wait_for_bytes(self, count: int) -> None:
        self.wait(lambda: len(self.screen) >= count, f"{count} bytes of the screen")

    def wait_for_text(self, text: str) -> None:
        self.wait(lambda: text.encode() in self.screen, repr(text))

    def wait_closed(self) -> None:
        self.wait(lambda: self.closed, "the tab to close its end")

    def meta_types(self) -> list[object]:
        return [meta.get("type") for meta in self.metas]
