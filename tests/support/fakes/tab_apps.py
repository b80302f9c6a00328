"""Test apps for a tab host (what one tab does: echo, tick, hang, fail) and the host that
runs them, one tab at a time, each kept to look at: what the tab host's tests share."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.support.fakes.tab_server import WAIT, TabServer

from envtui.tui.app import DriverClass
from envtui.tui.web.tab_host import TabHost


class Echo(App[None]):
    """Says the last key and its size. ``x`` raises, ``s`` blocks its own loop until
    released, ``d`` offers a download."""

    def __init__(self, driver_class: DriverClass) -> None:
        super().__init__(driver_class=driver_class)
        self.stuck = threading.Event()
        self.release = threading.Event()
        self.delivered: list[events.DeliveryComplete] = []

    def compose(self) -> ComposeResult:
        yield Static("ready", id="out")

    def on_key(self, event: events.Key) -> None:
        if event.key == "x":
            raise RuntimeError("a bug in this tab")
        if event.key == "s":
            self.stuck.set()
            self.release.wait(WAIT)  # a hung call: this app's loop stops here
        if event.key == "d":
            self.deliver_text(io.StringIO("the export"), save_filename="step.json", name="step")
        out = self.query_one("#out", Static)
        out.update(f"key {event.key} at {self.size.width}x{self.size.height}")

    def on_delivery_complete(self, event: events.DeliveryComplete) -> None:
        self.delivered.append(event)


class Ticker(App[None]):
    """Draws a new count every 50 ms, for as long as its loop runs."""

    def __init__(self, driver_class: DriverClass) -> None:
        super().__init__(driver_class=driver_class)
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Static("tick 0", id="out")

    def on_mount(self) -> None:
        self.set_interval(0.05, self.tick)

    def tick(self) -> None:
        self.count += 1
        self.query_one("#out", Static).update(f"tick {self.count}")


class Tabs:
    """A tab host whose apps the test chooses, one tab at a time, and keeps to look at."""

    def __init__(self) -> None:
        self.apps: list[App[Any]] = []
        self.reports: list[str] = []
        self.host = TabHost(self._make, self.reports.append)
        self._next: Callable[[DriverClass], App[Any]] = Echo

    def _make(self, driver: DriverClass) -> App[Any]:
        app = self._next(driver)
        self.apps.append(app)
        return app

    def open(
        self, kind: Callable[[DriverClass], App[Any]] = Echo, width: int = 80, height: int = 24
    ) -> TabServer:
        """A new tab with an app of ``kind``, once that app is tabs."""
        self._next = kind
        made = len(self.apps)
        server, theirs = TabServer.pair()
        self.host.open(theirs)
        server.open(width, height)
        server.wait(lambda: len(self.apps) > made, "the tab's app")
        return server


@contextmanager
def tab_host() -> Iterator[Tabs]:
    """A tab host for the block; whatever a failing test left is released, quit and waited
    for after it."""
    made = Tabs()
    try:
        yield made
    finally:
        for app in made.apps:
            if isinstance(app, Echo):
                app.release.set()
        made.host.quit_all()
    assert made.host.wait(WAIT)
