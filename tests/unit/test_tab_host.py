"""Browser tabs' dashboards in one process: each real Textual app in a thread and event loop
of its own, drawn over its socket (the server's end played by the test), and what one tab
does (hang, fail, end) left to that tab."""

from __future__ import annotations

import gc
import re
import sys
import weakref
from collections.abc import Iterator

import pytest
from textual._styles_cache import StylesCache

from tests.support.fakes.tab_apps import Echo, Tabs, Ticker, tab_host
from tests.support.fakes.tab_server import WAIT, TabServer
from tests.support.waiting import poll_until

pytestmark = pytest.mark.tui

TICK = re.compile(rb"tick (\d+)")


def wait_for_tick(tab: TabServer, at_least: int) -> None:
    """Read until the tab has drawn a count of ``at_least`` or more: its timer skips a tick
    it missed and its repaints are throttled, so one exact count may never be drawn."""

    def drawn() -> int:
        return max((int(count) for count in TICK.findall(tab.screen)), default=-1)

    tab.wait(lambda: drawn() >= at_least, f"a count of {at_least} or more drawn")


@pytest.fixture
def tabs() -> Iterator[Tabs]:
    with tab_host() as made:
        yield made


def test_a_tab_draws_at_its_size_answers_its_keys_and_ends_on_quit(
    tabs: Tabs,
) -> None:
    tab = tabs.open(Echo, 100, 30)
    tab.wait_for_text("ready")
    tab.type("a")
    tab.wait_for_text("key a at 100x30")
    tab.send_meta({"type": "resize", "width": 120, "height": 40})
    tab.type("b")
    tab.wait_for_text("key b at 120x40")
    tab.send_meta({"type": "quit"})
    tab.wait_closed()
    assert tab.meta_types()[-1] == "exit"
    assert tabs.host.wait(WAIT)
    assert tabs.host.running() == 0


def test_a_tab_whose_app_hangs_does_not_stop_another_tab_drawing(
    tabs: Tabs,
) -> None:
    stuck, ticking = tabs.open(Echo), tabs.open(Ticker)
    stuck.wait_for_text("ready")
    wait_for_tick(ticking, 1)
    stuck.type("s")
    echo, ticker = tabs.apps
    assert isinstance(echo, Echo)
    assert isinstance(ticker, Ticker)
    assert echo.stuck.wait(WAIT)
    hung_at = ticker.count
    wait_for_tick(ticking, hung_at + 20)  # a second more of frames, and counting
    stuck.read()
    assert b"key s" not in stuck.screen  # the hung tab drew nothing meanwhile
    echo.release.set()
    stuck.wait_for_text("key s")


def test_an_exception_in_one_tabs_app_ends_that_tab_only(tabs: Tabs) -> None:
    failing, other = tabs.open(), tabs.open()
    failing.wait_for_text("ready")
    other.wait_for_text("ready")
    failing.type("x")
    failing.wait_closed()
    assert "exit" in failing.meta_types()
    other.type("k")
    other.wait_for_text("key k")
    # the failed tab's connection closed before its thread had quite ended: wait for it
    poll_until(lambda: tabs.host.running() == 1, what="the failed tab's thread to end")


def test_a_download_goes_in_the_chunks_the_server_asks_for_then_the_app_is_told(
    tabs: Tabs,
) -> None:
    tab = tabs.open()
    tab.wait_for_text("ready")
    tab.type("d")
    tab.wait(lambda: "deliver_file_start" in tab.meta_types(), "the download's start")
    start = tab.metas[tab.meta_types().index("deliver_file_start")]
    assert str(start["path"]).endswith("step.json")
    key = str(start["key"])
    received = b""
    while True:
        tab.send_meta({"type": "deliver_chunk_request", "key": key, "size": 4})
        tab.wait(lambda: bool(tab.chunks), "a chunk")
        chunk_key, chunk = tab.chunks.pop(0)
        assert chunk_key == key
        if not chunk:
            break
        assert len(chunk) <= 4
        received += chunk
    assert received == b"the export"
    (echo,) = tabs.apps
    assert isinstance(echo, Echo)
    tab.wait(lambda: bool(echo.delivered), "the app told of the delivery")
    assert echo.delivered[0].name == "step"


def test_the_server_closing_a_tabs_socket_ends_its_app(tabs: Tabs) -> None:
    tab = tabs.open()
    tab.wait_for_text("ready")
    tab.connection.close()
    assert tabs.host.wait(WAIT)


def test_a_first_packet_that_is_not_the_size_ends_the_tab_and_starts_no_app(
    tabs: Tabs,
) -> None:
    server, theirs = TabServer.pair()
    tabs.host.open(theirs)
    server.type("not a size")
    server.wait_closed()
    assert tabs.apps == []
    assert tabs.reports == [
        "a tab's dashboard could not start: the tab's first packet is not its size"
    ]


def test_tabs_that_end_out_of_order_leave_the_streams_as_they_were_and_their_apps_go(
    tabs: Tabs,
) -> None:
    streams = sys.stdout, sys.stderr
    caches_before = sum(isinstance(o, StylesCache) for o in gc.get_objects())
    opened = [tabs.open() for _ in range(3)]
    for tab in opened:
        tab.wait_for_text("ready")
    apps = [weakref.ref(app) for app in tabs.apps]
    tabs.apps.clear()
    for index in (1, 0, 2):  # Textual's redirections undone in another order than done
        opened[index].send_meta({"type": "quit"})
        opened[index].wait_closed()
    assert tabs.host.wait(WAIT)
    assert (sys.stdout, sys.stderr) == streams
    gc.collect()
    assert [app() for app in apps] == [None, None, None]
    # the widgets' styles caches (with their drawn lines) went with them
    assert sum(isinstance(o, StylesCache) for o in gc.get_objects()) <= caches_before


def test_quit_all_ends_every_tab(tabs: Tabs) -> None:
    opened = [tabs.open(Echo), tabs.open(Ticker)]
    opened[0].wait_for_text("ready")
    wait_for_tick(opened[1], 1)
    tabs.host.quit_all()
    assert tabs.host.wait(WAIT)
    for tab in opened:
        tab.wait_closed()
        assert tab.meta_types()[-1] == "exit"
