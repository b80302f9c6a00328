"""The dashboard left open all day: the log follows, nothing resets, time reads one way, the
header says where you are and what stopped, and it quits like a monitor."""

from __future__ import annotations

import asyncio
import html
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from textual.widgets import Static, TabbedContent

from tests.support.scenarios.dashboard_pilot import Feed, settled
from tests.support.scenarios.scripted_stream import (
    at,
    clock,
    scripted_events,
    scripted_source,
    status,
)
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.log_widget import EventLog
from envtui.tui.main_screen import MainScreen
from envtui.tui.screens import TextScreen
from envtui.tui.widgets import ContextPanel, EnvironmentTable
from envtui.vocabulary.events import Event, EventSink, SourceStatus, thread_event

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def make_app(source: Any = scripted_source, **options: Any) -> EnvTuiApp:
    options.setdefault("clock", clock)
    return EnvTuiApp(source, DashboardOptions(source_name="test", **options))


def log_at_newest(app: EnvTuiApp) -> bool:
    """The log shows its newest line: scrolled to the end, and the end is the store's end."""
    log = app.screen.query_one(EventLog)
    # the store's newest entry is in the log's last line (its last fold, lines folded)
    fold = log.folded.folds[-1] if log.folded.folds else None
    newest = None
    if fold is not None and app.store.log and (fold.last or fold.first) is app.store.log[-1]:
        newest = fold.line()
    return (
        log.following
        and log.scroll_y >= log.max_scroll_y
        and (not log.lines or log.lines[-1] == newest)
    )


def header(app: EnvTuiApp) -> str:
    return str(app.screen.query_one("#header", Static).render())


def chatter(first: int, count: int) -> list[Event]:
    """``count`` events for one environment, each with a line of its own (``e<n>``)."""
    return [
        status("chatty", "unavailable", 100 + n, error=f"e{n}") for n in range(first, first + count)
    ]


# --- 1. the log follows -------------------------------------------------------------------


async def test_the_log_keeps_following_after_a_filter_opens_and_closes() -> None:
    feed = Feed()
    app = make_app(feed)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        feed.send(*chatter(0, 60))  # more lines than the log shows
        await pilot_wait_until(pilot, lambda: log_at_newest(app), what="the end before")
        await pilot.press("slash", "x")  # the filter box opens and shrinks the log
        feed.send(*chatter(60, 30))
        await pilot_wait_until(pilot, lambda: log_at_newest(app), what="the end, filter open")
        await pilot.press("escape")
        feed.send(*chatter(90, 30))
        await pilot_wait_until(pilot, lambda: log_at_newest(app), what="the end after a filter")
        assert not app.screen.query_one(EventLog).border_subtitle


async def test_the_log_follows_in_the_narrow_tabbed_layout_from_the_start() -> None:
    feed = Feed()
    app = make_app(feed)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        assert app.screen.query(TabbedContent)
        feed.send(*chatter(0, 80))
        log = app.screen.query_one(EventLog)
        await pilot_wait_until(
            pilot, lambda: log.max_scroll_y > 0 and log_at_newest(app), what="the newest line"
        )


async def test_the_log_follows_after_a_burst_larger_than_its_bound() -> None:
    feed = Feed()
    app = make_app(feed, max_log_lines=50)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=len(scripted_events()))
        feed.send(*chatter(0, 500))
        log = app.screen.query_one(EventLog)
        await pilot_wait_until(
            pilot,
            lambda: log.line_count == 50 and log_at_newest(app),
            what="the last of 500 lines shown, in a log of 50",
        )
        assert log.lines[-1].endswith("chatty unavailable: e499")
        assert app.store.counters["total"] == len(scripted_events()) + 500


async def test_scrolling_up_counts_what_arrives_below_and_end_follows_again() -> None:
    feed = Feed()
    app = make_app(feed)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        feed.send(*chatter(0, 60))
        log = app.screen.query_one(EventLog)
        await pilot_wait_until(pilot, lambda: log_at_newest(app), what="the end")
        log.focus()
        await pilot_wait_until(pilot, lambda: app.screen.focused is log, what="the log focused")
        await pilot.press("home")
        await pilot_wait_until(pilot, lambda: not log.following, what="the log left alone")
        top = log.scroll_y
        feed.send(*chatter(60, 7))
        await pilot_wait_until(pilot, lambda: log.unseen == 7, what="7 lines counted")
        assert log.scroll_y == top  # the lines being read stay where they are
        assert log.border_subtitle == "↓ 7 new below · end: follow"
        await pilot.press("end")
        await pilot_wait_until(pilot, lambda: log_at_newest(app), what="following again")
        assert not log.border_subtitle


# --- 2. nothing resets --------------------------------------------------------------------


async def test_crossing_the_wide_narrow_width_keeps_what_the_user_chose() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("s", "s")  # sort by id
        await pilot.press("S")  # reversed
        await pilot.press("slash", *"l", "enter")  # filter "l": local, legacy, build
        await pilot.press("3", "d")  # the context: diff
        await pilot.press("left_square_bracket")  # step 1
        table = app.screen.query_one(EnvironmentTable)
        table.move_cursor(row=table.get_row_index("legacy"))
        app.screen.query_one(ContextPanel).focus()
        for width, height in ((80, 24), (140, 44)):
            await pilot.resize_terminal(width, height)
            shown = "wide" if width >= 120 else "narrow"

            def laid_out(shown: str = shown) -> bool:
                return isinstance(app.screen, MainScreen) and app.screen.layout_shown == shown

            await pilot_wait_until(pilot, laid_out, what=f"the layout at {width}")
            await settled(app, pilot)
            table = app.screen.query_one(EnvironmentTable)
            assert (table.filter, table.sort_key, table.sort_reverse) == ("l", "id", True)
            assert [table.get_row_at(i)[2].plain for i in range(table.row_count)] == [
                "local",
                "legacy",
                "build",
            ]
            assert table.selected_id() == "legacy"
            context = app.screen.query_one(ContextPanel)
            assert context.border_title == "▶ context · step 1 · diff"
            assert app.screen.focused is context
            assert "step 1 of 2 · not live" in header(app)


# --- 3. time reads one way ----------------------------------------------------------------


async def test_every_time_is_in_one_labelled_zone() -> None:
    app = make_app(zone=ZoneInfo("Europe/Berlin"))
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        assert "13:00:30 CET" in header(app)  # T0 + 30 s is 12:00:30 UTC
        log = app.screen.query_one(EventLog)
        assert log.lines[0].startswith("13:00:00 ")
        await pilot.press("enter")
        assert isinstance(app.screen, TextScreen)
        assert "changed     13:00:06 CET (24 s ago)" in app.screen.body


async def test_the_changed_column_sorts_by_the_time_and_keeps_its_order_as_time_passes() -> None:
    now = [clock()]
    events = [
        status("a", "ready", 25),  # changed 5 s before the clock
        status("b", "ready", 21),  # 9 s before
        status("c", "ready", 0),  # 30 s before: "30 s ago" sorts before "9 s ago" as text
    ]
    app = make_app(Feed(events), clock=lambda: now[0])
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=3)
        for _ in range(8):
            await pilot.press("s")  # selection, status, id, avail, flaps, kind, cwd, shell, changed
        table = app.screen.query_one(EnvironmentTable)
        assert table.sort_key == "changed"

        def rows() -> list[tuple[str, str]]:
            cells = [table.get_row_at(i) for i in range(table.row_count)]
            changed = [key for key, _, _ in table._layout].index("changed")
            return [(row[2].plain, row[changed].plain) for row in cells]

        assert rows() == [("c", "30 s ago"), ("b", "9 s ago"), ("a", "5 s ago")]
        now[0] += timedelta(seconds=40)
        await pilot_wait_until(
            pilot,
            lambda: rows() == [("c", "1 min ago"), ("b", "49 s ago"), ("a", "45 s ago")],
            what="the times moved on, the order held",
        )


async def test_details_say_in_5_s_and_stay_live_while_open() -> None:
    now = [clock()]
    retry = clock() + timedelta(seconds=5)
    feed = Feed([status("box", "unavailable", 20, error="refused", next_retry_at=retry)])
    app = make_app(feed, clock=lambda: now[0])
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=1)
        await pilot.press("enter")
        details = app.screen
        assert isinstance(details, TextScreen)
        assert "next try    12:00:35 UTC (in 5 s)" in details.body
        assert "primary     no" in details.body
        now[0] += timedelta(seconds=2)
        feed.send(status("box", "ready", 32, primary=True, shell="sh"))
        await pilot_wait_until(
            pilot,
            lambda: "status      ready" in details.body and "primary     yes" in details.body,
            what="the open details to follow the environment",
        )
        assert "changed     12:00:32 UTC (now)" in details.body


# --- 4. you know where you are ------------------------------------------------------------


async def test_stepping_back_says_step_n_of_m_not_live_and_g_returns_to_live() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        assert "step 2  ·" in header(app)
        await pilot.press("left_square_bracket")
        assert "step 1 of 2 · not live · G: live" in header(app)
        assert app.screen.query_one(ContextPanel).border_title == "context · step 1 · full"
        await pilot.press("G")
        assert "not live" not in header(app)
        assert app.screen.query_one(ContextPanel).border_title == "context · step 2 · full"


async def test_at_80x24_every_environment_and_its_error_are_on_screen() -> None:
    events = [
        status(f"host{i}", "unavailable", i, error=f"cannot connect to host{i}: refused")
        for i in range(6)
    ]
    app = make_app(Feed(events))
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot, events=6)
        table = app.screen.query_one(EnvironmentTable)
        assert table.row_count == 6
        assert table.scrollable_content_region.height >= 7  # the header row and all six
        assert [key for key, _, _ in table._layout].count("error") == 1
        screen = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        for i in range(6):
            assert f"cannot connect to host{i}: refused" in screen


async def test_a_long_error_uses_a_wide_terminal() -> None:
    """Every column shows, and the error takes all the room they leave: at 250 columns
    a host key's fingerprint is whole."""
    error = "host key mismatch: the key [127.0.0.1]:2222 presented (SHA256:" + "x" * 43 + ")"
    for size in ((200, 50), (250, 50)):
        app = make_app(Feed([status("legacy", "unavailable", 1, error=error)]))
        async with app.run_test(size=size) as pilot:
            await settled(app, pilot, events=1)
            table = app.screen.query_one(EnvironmentTable)
            widths = {key: width for key, _, width in table._layout}
            assert len(widths) == 11
            others = sum(width for key, width in widths.items() if key != "error")
            room = table.size.width - 4  # less the border and room for a scrollbar
            assert widths["error"] == room - others - 2 * len(widths)
    assert widths["error"] >= len(error)


# --- 6. a source that stops is visible ---------------------------------------------------


async def test_a_stopped_source_shows_a_lasting_badge_with_reason_time_and_restarts() -> None:
    feed = Feed()
    app = make_app(feed)
    async with app.run_test(size=(200, 44)) as pilot:
        await settled(app, pilot)
        down = SourceStatus(
            source="app-server", state="down", reason="codex app-server exited: status 3"
        )
        feed.send(thread_event(down, at=at(20)))
        await pilot_wait_until(
            pilot,
            lambda: (
                "✕ app-server down since 12:00:20 UTC (codex app-server exited: status 3)"
                in header(app)
            ),
            what="the badge",
        )
        retry = SourceStatus(
            source="app-server",
            state="restarting",
            reason="codex app-server exited: status 3",
            restarts=0,
            next_retry_at=clock() + timedelta(seconds=4),
        )
        feed.send(thread_event(retry, at=at(21)))
        await pilot_wait_until(
            pilot,
            lambda: "down since 12:00:20 UTC" in header(app) and "restart in 4 s" in header(app),
        )
        up = SourceStatus(source="app-server", state="up", thread="thread-9", restarts=1)
        feed.send(thread_event(up, at=at(25)))
        await pilot_wait_until(
            pilot,
            lambda: (
                "app-server up · restarts 1" in header(app) and "thread thread-9" in header(app)
            ),
            what="up again, with the thread and the restart count",
        )
        assert "down" not in header(app)


async def ends(sink: EventSink, stop: asyncio.Event) -> None:
    sink(status("local", "ready", 1))


async def fails(sink: EventSink, stop: asyncio.Event) -> None:
    raise OSError("disk on fire")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (ends, "■ test ended 12:00:30 UTC"),
        (fails, "✕ test down since 12:00:30 UTC (stopped: disk on fire)"),
    ],
)
async def test_a_source_that_ends_or_fails_says_so_in_the_header(
    source: Any, expected: str
) -> None:
    app = make_app(source)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot_wait_until(pilot, lambda: expected in header(app), what=expected)


async def test_the_header_is_redrawn_only_when_its_text_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        updates: list[object] = []
        widget = app.screen.query_one("#header", Static)
        original = widget.update

        def counted(*args: Any, **kwargs: Any) -> None:
            updates.append(args)
            original(*args, **kwargs)

        monkeypatch.setattr(widget, "update", counted)
        await pilot.pause(1.2)  # a turn of the clock (once a second), with the clock pinned
        assert updates == []  # the clock is pinned and nothing arrived: no redraw
        await pilot.press("p")
        assert len(updates) == 1  # PAUSED: the text changed once


# --- 5. it quits like a monitor -----------------------------------------------------------


async def test_ctrl_c_quits_also_from_the_filter_box(tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(app, pilot)
        await pilot.press("slash", "x")
        await pilot.press("ctrl+c")
        await pilot_wait_until(pilot, lambda: app.return_code is not None, what="ctrl+c to quit")
    assert app.return_code == 0


async def test_sigterm_quits_the_way_q_does_and_the_source_is_stopped() -> None:
    import os
    import signal

    stopped = asyncio.Event()

    async def source(sink: EventSink, stop: asyncio.Event) -> None:
        for event in scripted_events():
            sink(event)
        await stop.wait()
        stopped.set()  # the source saw the stop: its clean-up runs

    app = make_app(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(app, pilot)
        os.kill(os.getpid(), signal.SIGTERM)
        await pilot_wait_until(pilot, lambda: app.return_code is not None, what="SIGTERM to quit")
    assert stopped.is_set()
    assert app.return_code == 0
