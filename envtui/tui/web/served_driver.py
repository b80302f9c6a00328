"""A Textual driver that draws one browser tab's dashboard over a socket.

Under ``envtui serve`` the dashboards of all tabs run in one process
(:mod:`envtui.tui.web.tab_host`), each app in a thread and event loop of its own. Textual's web
driver cannot serve them: it writes to the process's standard output, reads its standard
input, and takes the process's signals. This driver speaks the same packets
(:mod:`envtui.tui.web.tab_packets`) over a socket of the tab's own instead:

- the screen goes out as ``D`` packets, written by the app's thread (as the web driver
  writes to its pipe: a tab whose browser reads slowly holds up that tab alone);
- a thread reads the tab's socket: keys through Textual's xterm parser
  (:mod:`envtui.tui.web.web_keys`), and the server's ``resize``, ``focus``, ``blur``, ``quit``
  and ``deliver_chunk_request``, each turned into the app's own message;
- downloads (a step export, a screenshot) are announced with ``deliver_file_start`` and
  sent in the chunks the server asks for, as the web driver sends them;
- the server gone (end of input, a failed write) quits the app, as ``quit`` does.

Everything it posts to the app goes through ``App.post_message``, which is safe from
another thread.
"""

from __future__ import annotations

import json
import select
import socket
import threading
from codecs import getincrementaldecoder
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, Literal, TextIO

from textual import events
from textual.app import App
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import ExitApp

from envtui.tui.web.tab_packets import (
    DATA,
    META,
    PacketReader,
    chunk_packet,
    meta_packet,
    packet,
)
from envtui.tui.web.web_keys import key_parser

INPUT_LIMIT = 8 << 20
"""Bytes of one packet from the server: a paste, at most (the websocket's own bound is 4 MiB)."""
TICK = 0.1
"""Seconds the input thread waits before a pause completes a key (a lone escape)."""
READ_SIZE = 1 << 16
START_SEQUENCES = (
    "\x1b[?1049h",  # the alternate screen
    "\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h",  # mouse reports, as the web driver asks
    "\x1b[?25l",  # no cursor
    "\x1b[?2026$p",  # does the terminal support synchronized output?
    "\x1b[?2004h",  # bracketed paste
)
"""What Textual's web driver writes when it starts, in its order."""


@dataclass(frozen=True)
class Delivery:
    """A download the browser has not fetched to its end yet."""

    file: BinaryIO | TextIO
    encoding: str
    """How text is sent as bytes (the browser is told the same)."""
    name: str | None
    """What the app called it (Textual confirms a ``screenshot`` by this name)."""


class ServedDriver(Driver):
    """The driver of one served tab; :meth:`over` makes the class for a connection."""

    connection: ClassVar[socket.socket]

    @classmethod
    def over(cls, connection: socket.socket) -> type[ServedDriver]:
        """The driver class of the tab on ``connection`` (Textual builds the driver itself,
        from a class, once the app runs)."""
        return type("ServedDriver", (cls,), {"connection": connection})

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.app = app
        self.size = Size(*(size or (80, 24)))
        self._sending = threading.Lock()
        self._lost = False
        self._ended = threading.Event()
        self._deliveries: dict[str, Delivery] = {}
        self._input = threading.Thread(target=self._read_input, name="envtui-tab-input")

    @property
    def is_web(self) -> bool:
        return True

    def write(self, data: str) -> None:
        self._send(packet(DATA, data.encode("utf-8")))

    def write_meta(self, message: dict[str, object]) -> None:
        self._send(meta_packet(message))

    def _send(self, data: bytes) -> None:
        """One packet to the server, whole; once the server is gone, nothing, and the app
        quits."""
        with self._sending:
            if self._lost:
                return
            try:
                self.connection.sendall(data)
            except OSError:
                self._lost = True
                self.app.post_message(ExitApp())

    def start_application_mode(self) -> None:
        for sequence in START_SEQUENCES:
            self.write(sequence)
        self.app.post_message(events.Resize(self.size, self.size))
        self.app.post_message(events.AppBlur())  # until the page says it has the focus
        self._input.start()

    def disable_input(self) -> None:
        """Input ends with the connection (see :meth:`stop_application_mode`)."""

    def stop_application_mode(self) -> None:
        self._ended.set()
        self.write_meta({"type": "exit"})

    def close(self) -> None:
        """The input thread ends within a tick once the app stopped."""
        self._ended.set()
        if self._input.is_alive() and self._input is not threading.current_thread():
            self._input.join(timeout=1)
        for delivery in self._deliveries.values():
            delivery.file.close()
        self._deliveries.clear()

    def open_url(self, url: str, new_tab: bool = True) -> None:
        self.write_meta({"type": "open_url", "url": url, "new_tab": new_tab})

    def deliver_binary(
        self,
        binary: BinaryIO | TextIO,
        *,
        delivery_key: str,
        save_path: Path,
        open_method: Literal["browser", "download"] = "download",
        encoding: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        """Announce a download; the server asks for its chunks when the browser fetches it."""
        binary.seek(0)
        self._deliveries[delivery_key] = Delivery(binary, encoding or "utf-8", name)
        self.write_meta(
            {
                "type": "deliver_file_start",
                "key": delivery_key,
                "path": str(save_path.resolve()),
                "open_method": open_method,
                "encoding": encoding or "",
                "mime_type": mime_type or "",
                "name": name,
            }
        )

    def _read_input(self) -> None:
        """The tab's input thread: packets from the server until it goes or the app ends."""
        parser = key_parser()
        decode = getincrementaldecoder("utf-8")(errors="replace").decode
        packets = PacketReader(INPUT_LIMIT)
        try:
            while not self._ended.is_set():
                readable, _, _ = select.select([self.connection], [], [], TICK)
                if readable:
                    data = self.connection.recv(READ_SIZE)
                    if not data:
                        break  # the server closed the tab
                    for kind, payload in packets.feed(data):
                        if kind == DATA:
                            for event in parser.feed(decode(payload)):
                                self.process_message(event)
                        elif kind == META:
                            self._on_meta(json.loads(payload))
                for event in parser.tick():
                    self.process_message(event)
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a connection that broke, or a packet that is none: the tab ends
        if not self._ended.is_set():
            self.app.post_message(ExitApp())

    def _on_meta(self, message: object) -> None:
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind == "resize":
            self.size = Size(int(message["width"]), int(message["height"]))
            self.app.post_message(events.Resize(self.size, self.size))
        elif kind == "focus":
            self.app.post_message(events.AppFocus())
        elif kind == "blur":
            self.app.post_message(events.AppBlur())
        elif kind == "quit":
            self.app.post_message(ExitApp())
        elif kind == "deliver_chunk_request":
            self._deliver_chunk(str(message.get("key")), int(message.get("size", 0)))

    def _deliver_chunk(self, key: str, size: int) -> None:
        """The next ``size`` bytes of a download; an empty chunk ends it, and the app is
        told it was delivered (or failed)."""
        delivery = self._deliveries.get(key)
        if delivery is None:
            self._send(chunk_packet(key, b""))  # an unknown key: the download ends
            return
        try:
            chunk = delivery.file.read(size)
            data = chunk.encode(delivery.encoding) if isinstance(chunk, str) else chunk
        except Exception as exc:  # the file, not the connection: the download fails
            self._finish(key)
            self._send(chunk_packet(key, b""))
            failed = events.DeliveryFailed(key=key, exception=exc, name=delivery.name)
            self.app.post_message(failed)
            return
        self._send(chunk_packet(key, data))
        if not data:
            self._finish(key)
            done = events.DeliveryComplete(key=key, path=None, name=delivery.name)
            self.app.post_message(done)

    def _finish(self, key: str) -> None:
        self._deliveries.pop(key).file.close()
