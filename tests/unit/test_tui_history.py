"""History you can look at, and a log that stays readable: the strip, ``h``, folds, ``/``, ``f``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.widgets import Input, Log

from tests.support.scenarios.dashboard_pilot import Feed, settled
from tests.support.scenarios.incident_steps import step
from tests.support.scenarios.scripted_stream import at, scripted_events, status
from tests.support.screens_shown import focused_in
from tests.support.waiting import pilot_wait_until

from envtui.dashboard.store import Store
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.history_screen import HistoryScreen
from envtui.tui.log_widget import OWN_GLYPHS, EventLog, QueryScreen, line_cells
from envtui.tui.main_screen import MainScreen
from envtui.tui.timeline import Mark, incident_marks
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import Event

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
TIMES = "\N{MULTIPLICATION SIGN}"


def make_app(feed: Feed, **options: Any) -> EnvTuiApp:
    options.setdefault("clock", lambda: at(120))
    return EnvTuiApp(feed, DashboardOptions(source_name="test", **options))


def flaky_events() -> list[Event]:
    """flaky drops three times in two minutes; ghost refuses every retry."""
    events = [status("flaky", "ready", 0), status("ghost", "starting", 0)]
    for drop in range(3):
        events.append(status("flaky", "unavailable", 30 * drop + 10, error="dropped"))
        events.append(status("flaky", "ready", 30 * drop + 20))
    for retry in range(10):
        events.append(status("ghost", "unavailable", 10 * retry + 1, error="refused"))
        events.append(status("ghost", "starting", 10 * retry + 6))
    return sorted(events, key=lambda event: event.at or at(0))


def cell(app: EnvTuiApp, env_id: str, key: str) -> Any:
    return app.screen.query_one(EnvironmentTable).get_cell(env_id, key)


async def test_the_table_shows_a_strip_availability_and_flaps_in_the_status_colours() -> None:
    app = make_app(Feed(flaky_events()))
    async with app.run_test(size=(200, 50)) as pilot:
        await settled(app, pilot, events=len(flaky_events()))
        strip = cell(app, "flaky", "strip")
        # five minutes in 30 s cells ending at the clock (2 min): 5 not known, then a drop
        # and its return in each of the cells that held one (10-20, 40-50, 70-80), ready after
        assert strip.plain == "·····▚▚▚██"
        assert (cell(app, "flaky", "avail").plain, cell(app, "flaky", "flaps").plain) == (
            "75%",
            "3",
        )
        colours = app.theme_variables
        spans = {strip.plain[span.start]: str(span.style) for span in strip.spans}
        assert spans["▚"] == colours["status-unavailable"]
        assert spans["█"] == colours["status-ready"]


async def test_the_strip_reads_without_colour_in_ascii() -> None:
    app = make_app(Feed(flaky_events()), ascii=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await settled(app, pilot, events=len(flaky_events()))
        assert cell(app, "flaky", "strip").plain == ".....%%%##"


async def test_h_shows_every_timeline_with_the_steps_and_each_transition() -> None:
    events = [*scripted_events(), *flaky_events()]
    app = make_app(Feed(events))
    async with app.run_test(size=(160, 50)) as pilot:
        await settled(app, pilot, events=len(events))
        await pilot.press("h")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="h")
        screen = app.screen
        assert isinstance(screen, HistoryScreen)

        def body() -> str:
            return screen.text

        await pilot_wait_until(pilot, lambda: "flaky: available" in body(), what="drawn")
        text = body()
        rows = {line.split(" ", 1)[0]: line for line in text.splitlines() if line}
        assert {"steps", "incidents", "flaky", "ghost", "build", "local", "legacy"} <= set(rows)
        assert rows["steps"].count("│") == 2  # the scripted steps at 3 s and 5 s
        assert rows["incidents"].count("⚠") == 1  # both of step 2's incidents, one column
        assert len(re.findall("✕+", rows["flaky"])) == 3  # three drops on the axis
        assert "flaky: available 75%, 3 flap(s), 7 transition(s)" in text
        assert "12:01:10  flaky  ready → unavailable  (step 2)" in text
        await pilot.press("z")  # the last 30 minutes: the same drops
        await pilot_wait_until(
            pilot,
            lambda: "last 30 min" in str(screen.query_one("#history-scroll").border_title),
            what="z",
        )
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, MainScreen), what="closed")


async def test_the_log_folds_a_refusing_host_and_keeps_following() -> None:
    feed = Feed(flaky_events())
    app = make_app(feed)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=len(flaky_events()))
        log = app.screen.query_one(EventLog)
        ghost = [line for line in log.lines if "ghost starting → unavailable" in line]
        assert len(ghost) == 1
        assert ghost[0].startswith(f"12:01:36 {TIMES}10+10 environment_status ghost starting")
        assert ghost[0].endswith("refused · with unavailable → starting · over 1 min 35 s")
        assert log.line_count < len(app.store.log)
        feed.send(status("ghost", "unavailable", 101, error="refused"))
        await pilot_wait_until(
            pilot, lambda: log.lines[-1].startswith(f"12:01:41 {TIMES}11+10 "), what="rewritten"
        )
        assert log.following
        assert log.scroll_y >= log.max_scroll_y


@given(
    st.text(alphabet=st.sampled_from(["a", " ", "~", "\t", "\x1b", "日", "\u0301", *OWN_GLYPHS]))
    | st.text()
)
def test_a_line_takes_the_cells_textuals_log_measures_for_it(line: str) -> None:
    assert line_cells(line) == cell_len(Log._process_line(line))


async def test_the_log_is_as_wide_as_its_widest_line_also_one_of_wide_characters() -> None:
    wide = status("ホスト", "unavailable", 2, error="日本語のエラー" * 8)  # two cells each
    feed = Feed([*flaky_events(), wide])
    app = make_app(feed)
    async with app.run_test(size=(60, 30)) as pilot:
        await settled(app, pilot, events=len(flaky_events()) + 1)
        log = app.screen.query_one(EventLog)
        (line,) = [line for line in log.lines if "ホスト" in line]
        assert log.virtual_size.width == cell_len(line) > max(len(line) for line in log.lines)
        feed.send(status("ghost", "unavailable", 101, error="x" * 200))  # and a longer one
        await pilot_wait_until(
            pilot,
            lambda: log.virtual_size.width == max(cell_len(line) for line in log.lines) > 200,
            what="the longer line's width",
        )


async def test_search_and_filter_the_focused_log_and_it_still_follows() -> None:
    feed = Feed([*scripted_events(), *flaky_events()])
    app = make_app(feed)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=len(scripted_events()) + len(flaky_events()))
        log = app.screen.query_one(EventLog)
        log.focus()
        await pilot.press("slash")
        await focused_in(app, pilot, QueryScreen, Input)
        await pilot.press(*"mismatch", "enter")  # typed, as a person would
        await pilot_wait_until(
            pilot, lambda: "search mismatch: 1/1" in str(log.border_subtitle), what="found"
        )
        marked = log._marked
        assert marked is not None
        assert "mismatch" in log.lines[marked]
        row = log.render_line(marked - int(log.scroll_y))  # the match as the screen shows it
        strip = row.crop(0, min(cell_len(log.lines[marked]), row.cell_length))  # no padding
        assert "mismatch" in strip.text
        assert log.lines[marked].startswith(strip.text)
        assert all(segment.style and segment.style.reverse for segment in strip if segment.text)
        await pilot.press("f")
        box = await focused_in(app, pilot, QueryScreen, Input)
        box.value = "env:flaky type:status"  # pasted
        await pilot.press("enter")
        await pilot_wait_until(
            pilot, lambda: "filter: env:flaky" in str(log.border_title), what="filtered"
        )
        # ready, then its drops and returns taking turns: one line with both counts
        assert log.lines[-1].endswith(
            f"{TIMES}3+3 environment_status flaky ready → unavailable: dropped"
            " · with unavailable → ready · over 1 min 10 s"
        )
        assert log.line_count == 2
        await pilot.press("end")
        feed.send(
            status("flaky", "unavailable", 110, error="dropped"), status("local", "ready", 111)
        )
        await pilot_wait_until(
            pilot,
            lambda: f"{TIMES}4+3 environment_status flaky" in log.lines[-1],
            what="the new drop",
        )
        assert log.line_count == 2
        assert log.following
        assert log.scroll_y >= log.max_scroll_y
        await pilot.press("escape")  # no filter, no search
        await pilot_wait_until(pilot, lambda: log.line_count > 10, what="everything again")
        assert str(log.border_title) == "▶ events"  # focused: marked


async def test_the_palette_opens_the_history_and_help_and_the_keymap_know_its_keys() -> None:
    from envtui.tui.app import EnvtuiCommands, known_binding_ids
    from envtui.tui.screens import TextScreen

    ids = set(known_binding_ids())
    assert {"history", "history_span", "log_search", "log_filter", "log_clear"} <= ids
    app = make_app(Feed(flaky_events()), keymap={"history": "H"})
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=len(flaky_events()))
        await pilot.press("question_mark")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="help")
        help_screen = app.screen
        assert isinstance(help_screen, TextScreen)
        assert "  H               Open: every timeline on one axis" in help_screen.body
        assert "  /               Search the log" in help_screen.body
        assert "  f               Filter the log" in help_screen.body
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, MainScreen), what="back")
        await pilot.press("H")  # the keymap moved it
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="H")
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, MainScreen), what="back")
        # the palette's entry runs the screen's action (the palette itself: test_tui.py)
        assert ("Status history of every environment", "history") in EnvtuiCommands.ACTIONS
        await app.run_action("screen.history")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="opened")


async def test_the_log_filter_survives_crossing_the_wide_narrow_width() -> None:
    app = make_app(Feed(flaky_events()))
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=len(flaky_events()))
        app.screen.query_one(EventLog).set_filter("env:flaky")
        await pilot.resize_terminal(80, 24)
        await pilot_wait_until(
            pilot,
            lambda: isinstance(app.screen, MainScreen) and app.screen.layout_shown == "narrow",
            what="the narrow layout",
        )
        log = app.screen.query_one(EventLog)
        await pilot_wait_until(pilot, lambda: log.line_count > 0, what="the log drawn")
        assert log.folded.filter.text == "env:flaky"
        assert all(" flaky " in line for line in log.lines)


def test_each_incident_is_marked_where_it_opened_and_where_it_resolved() -> None:
    store = Store()
    for event in [
        *step(1, ("stale-available", "flaky")),
        *step(2),  # flaky is back: resolved
        *step(3, ("stale-available", "flaky")),  # a new episode, still active
    ]:
        store.apply(event)
    styles = {"ready": "green", "unavailable": "red"}
    marks = sorted(incident_marks(store.incidents.incidents(), styles), key=lambda m: m.at)
    assert marks == [
        Mark(at(1), "incidents", "⚠", "red"),
        Mark(at(2), "incidents", "●", "green"),
        Mark(at(3), "incidents", "⚠", "red"),
    ]
