"""The dashboards of every browser tab of ``envtui serve``, in one process.

A dashboard process per tab costs a whole interpreter, Textual and envtui each time (about
60 MB a tab); here each tab is an app of its own (its own store, screens and view) in this
one process, drawn through :class:`~envtui.tui.web.served_driver.ServedDriver` over the tab's
socket, and a tab adds only what its app holds.

Each app runs in a thread and event loop of its own, so one tab cannot stop the others:
a handler that blocks (a hung call) stalls its own tab's loop only; an exception ends its
own app only (Textual ends that app and says why); a browser that stops reading holds up
its own tab's writes only. What a thread cannot do is be killed: a tab that never quits
is left to the process's end (:meth:`TabHost.wait` says so, and the host process then
exits anyway).

Some of Textual's state is the process's, not the app's; this module keeps it right for
many apps:

- Textual redirects ``sys.stdout`` and ``sys.stderr`` to the running app and puts back what
  was there when the app started, so apps that end in another order than they started
  leave them on an app that ended (and keep it alive): after each tab they are put back
  to what they were before the first;
- Textual's cache of background styles keeps ended apps' widgets alive
  (:func:`~envtui.tui.upstream.render_caches.forget_ended_widgets`), emptied after each tab.
- Signals belong to the process: an app in a thread installs no handler (Textual's and
  envtui's own ask only the main thread), and the host ends the tabs itself
  (:meth:`TabHost.quit_all`).
"""

from __future__ import annotations

import gc
import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.driver import Driver
from textual.messages import ExitApp

from envtui.tui.upstream.render_caches import forget_ended_widgets
from envtui.tui.web.served_driver import ServedDriver
from envtui.tui.web.tab_packets import HEADER, META

TAB_THREAD = "envtui-tab"
OPENING_TIMEOUT = 10.0
"""Seconds the server has to say a new tab's size (it says it at once)."""
OPENING_LIMIT = 4096
"""Bytes of the opening packet: a size, not a document."""
MakeApp = Callable[[type[Driver]], App[Any]]
"""A new tab's dashboard, drawn by the given driver class."""


class TabHost:
    """The tabs' apps: :meth:`open` one per connection, :meth:`quit_all` at the end."""

    def __init__(self, make_app: MakeApp, report: Callable[[str], None]) -> None:
        self.make_app = make_app
        self.report = report
        """Where a tab that failed to start is said (the server's standard error)."""
        self._apps: dict[threading.Thread, App[Any] | None] = {}
        self._lock = threading.Lock()
        self._quitting = False
        self._streams = sys.stdout, sys.stderr
        """The standard streams before any tab (Textual redirects them while an app runs)."""

    def open(self, connection: socket.socket) -> threading.Thread:
        """Start the tab on ``connection`` in a thread of its own."""
        thread = threading.Thread(
            target=self._run, args=(connection,), name=TAB_THREAD, daemon=True
        )
        with self._lock:
            self._apps[thread] = None
        thread.start()
        return thread

    def running(self) -> int:
        """How many tabs have a thread (starting, running or ending)."""
        with self._lock:
            return len(self._apps)

    def quit_all(self) -> None:
        """Ask every tab's app to quit, as the browser's ``quit`` does; tabs that open
        from now on quit at once."""
        with self._lock:
            self._quitting = True
            apps = [app for app in self._apps.values() if app is not None]
        for app in apps:
            app.post_message(ExitApp())

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every tab's thread to end; whether they did."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                threads = list(self._apps)
            if not threads:
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            threads[0].join(remaining)

    def _run(self, connection: socket.socket) -> None:
        """One tab, from its opening packet to its app's end; then what it held goes."""
        try:
            self._run_app(connection)
        except Exception as exc:  # this tab only: the others go on
            self.report(f"a tab's dashboard could not start: {exc}")
        finally:
            connection.close()
            with self._lock:
                self._apps[threading.current_thread()] = None  # the app goes with what follows
            sys.stdout, sys.stderr = self._streams
            release_ended_app()
            with self._lock:
                del self._apps[threading.current_thread()]

    def _run_app(self, connection: socket.socket) -> None:
        size = read_opening(connection)
        app = self.make_app(ServedDriver.over(connection))
        with self._lock:
            if self._quitting:
                return
            self._apps[threading.current_thread()] = app
        app.run(size=size)


def read_opening(connection: socket.socket) -> tuple[int, int]:
    """The tab's size, from the server's first packet: ``M {"type": "open", "width": W,
    "height": H}`` (the server has clamped it)."""
    connection.settimeout(OPENING_TIMEOUT)
    header = _receive(connection, HEADER)
    size = int.from_bytes(header[1:], "big")
    if header[:1] != META or size > OPENING_LIMIT:
        raise ValueError("the tab's first packet is not its size")
    opening = json.loads(_receive(connection, size))
    connection.settimeout(None)  # the driver's writes block, as a pipe's do
    if not isinstance(opening, dict) or opening.get("type") != "open":
        raise ValueError("the tab's first packet is not its size")
    return int(opening["width"]), int(opening["height"])


def _receive(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = connection.recv(size - len(data))
        if not more:
            raise ConnectionError("the server closed the tab before it opened")
        data += more
    return data


def release_ended_app() -> None:
    """After a tab's app ended: Textual's caches let go of its widgets, and its objects
    (cycles of widgets, messages and loops) are collected now, not at some later tab."""
    forget_ended_widgets()
    gc.collect()
