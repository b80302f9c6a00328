"""The dashboard's incidents, driven by Pilot: the banner goes when the host recovers, the
cursor stays on its incident while the list re-sorts, ``a`` acknowledges and enter shows
the whole history; resolved episodes of one host fold into one row, ``r`` hides them.
(The palette and the recording: tests/integration.)"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from tests.support.scenarios.incident_steps import feed, make_app, step
from tests.support.scenarios.scripted_stream import at
from tests.support.screens_shown import screen_shown
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.incidents_view import IncidentList
from envtui.tui.main_screen import MainScreen
from envtui.tui.screens import TextScreen
from envtui.vocabulary.events import Event

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def banner(app: EnvTuiApp) -> Static:
    return app.screen.query_one("#banner", Static)


def header(app: EnvTuiApp) -> str:
    return str(app.screen.query_one("#header", Static).render())


def listed(app: EnvTuiApp) -> list[str]:
    incidents = app.screen.query_one(IncidentList)
    return [str(incidents.get_option_at_index(i).prompt) for i in range(incidents.option_count)]


def states(app: EnvTuiApp) -> list[str]:
    """The state word of each listed incident, top to bottom."""
    return [line[2:].split()[0] for line in listed(app)]


async def test_the_banner_and_the_count_go_when_the_host_recovers() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await feed(app, pilot, step(1, ("stale-available", "flaky")))
        assert banner(app).has_class("-visible")
        assert "1 active incident(s): stale-available (flaky)" in str(banner(app).render())
        assert "⚠ 1" in header(app)
        await feed(app, pilot, step(2))
        assert not banner(app).has_class("-visible")
        assert "⚠" not in header(app)
        (line,) = listed(app)
        assert "resolved" in line
        assert "stale-available" in line
        assert "x1" in line


async def test_the_cursor_stays_on_its_incident_while_the_list_resorts() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await feed(app, pilot, step(1, ("stale-available", "flaky")))
        incidents = app.screen.query_one(IncidentList)
        incidents.focus()  # applied by a message of its own, as a click or tab would be
        await pilot_wait_until(pilot, lambda: incidents.has_focus, what="the list focused")
        flaky = incidents.selected_number()
        # a newer incident goes on top: the cursor moves down with flaky
        await feed(app, pilot, step(2, ("stale-available", "flaky"), ("primary-mismatch", "b")))
        assert (incidents.highlighted, incidents.selected_number()) == (1, flaky)
        await pilot.press("up")
        b = incidents.selected_number()
        assert b != flaky
        await feed(
            app, pilot, step(3, ("stale-available", "flaky"), ("primary-mismatch", "b"), ("x", "c"))
        )
        assert (incidents.highlighted, incidents.selected_number()) == (1, b)
        # b resolves and sinks below the active ones; the cursor goes with it
        await feed(app, pilot, step(4, ("stale-available", "flaky"), ("x", "c")))
        assert states(app) == ["ACTIVE", "ACTIVE", "resolved"]
        assert (incidents.highlighted, incidents.selected_number()) == (2, b)


async def test_left_alone_the_cursor_stays_on_the_first_row_so_the_newest_is_in_sight() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await feed(app, pilot, step(1, ("stale-available", "flaky")))
        incidents = app.screen.query_one(IncidentList)
        assert not incidents.has_focus
        await feed(app, pilot, step(2, ("stale-available", "flaky"), ("primary-mismatch", "b")))
        assert incidents.highlighted == 0
        assert "primary-mismatch" in listed(app)[0]  # the newer one, on top and in sight


async def test_a_acknowledges_the_incident_under_the_cursor_until_it_comes_back() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await feed(app, pilot, step(1, ("stale-available", "flaky")))
        app.screen.query_one(IncidentList).focus()
        await pilot.press("a")
        await pilot_wait_until(pilot, lambda: not banner(app).has_class("-visible"), what="ack")
        assert "⚠" not in header(app)
        assert "acked" in listed(app)[0]
        assert any("incident_acknowledged stale-available flaky" in e.line for e in app.store.log)
        await feed(app, pilot, step(2, ("stale-available", "flaky")))  # the same episode
        assert not banner(app).has_class("-visible")
        await feed(app, pilot, step(3))  # resolved; then it comes back: a new incident
        await feed(app, pilot, step(4, ("stale-available", "flaky")))
        assert banner(app).has_class("-visible")
        assert states(app) == ["ACTIVE", "resolved"]


async def test_enter_shows_the_incidents_history_with_each_steps_diff() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        for number in (1, 2):
            await feed(app, pilot, step(number, ("stale-available", "fl\x1b[31maky")))
        await feed(app, pilot, step(3))
        app.screen.query_one(IncidentList).focus()
        await pilot.press("enter")
        history = await screen_shown(app, pilot, TextScreen)
        assert history.title_text == "incident · stale-available · fl\x1b[31maky"
        body = history.body
        assert "state         resolved" in body
        assert "resolved      step 3" in body
        assert "--- step 1 at" in body
        assert "<cwd>/step-1</cwd>" in body
        assert "--- step 2 at" in body
        assert "<cwd>/step-2</cwd>" in body
        shown = str(history.query_one("#text-body", Static).render())
        assert "\x1b" not in shown  # the escape from outside is drawn inert
        await pilot.press("escape")
        await screen_shown(app, pilot, MainScreen)
        assert "\x1b" not in "".join(listed(app))


def many_episodes(count: int) -> list[Event]:
    """build's routing incident ``count`` times, each raised at one step and resolved at
    the next (steps 1 to ``2 * count``), then flaky's, still active."""
    events: list[Event] = []
    for episode in range(count):
        events += step(2 * episode + 1, ("execution-routed-elsewhere", "build"))
        events += step(2 * episode + 2)
    return events + step(2 * count + 1, ("stale-available", "flaky"))


def folding_app(**options: Any) -> EnvTuiApp:
    return EnvTuiApp(None, DashboardOptions(source_name="test", clock=lambda: at(700), **options))


async def ingest_all(app: EnvTuiApp, pilot: Pilot[Any], events: list[Event]) -> None:
    for event in events:
        app.ingest(event)
    await pilot_wait_until(pilot, lambda: not app.store.has_changes, what="the frame")


FOLDED = "  resolved execution-routed-elsewhere  build  \N{MULTIPLICATION SIGN}300 in 9 min 59 s, last 1 min ago"


async def test_300_resolved_episodes_of_one_host_are_one_row() -> None:
    app = folding_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await ingest_all(app, pilot, many_episodes(300))
        assert listed(app) == ["⚠ ACTIVE   stale-available  flaky  1 min 39 s  x1", FOLDED]
        incidents = app.screen.query_one(IncidentList)
        assert incidents.border_title == "incidents · 1 active · 300 resolved"
        assert incidents.border_subtitle == "R: hide resolved"
        await pilot.press("5", "R")  # R is the incidents' key: to them first
        await pilot_wait_until(pilot, lambda: len(listed(app)) == 1, what="resolved hidden")
        assert listed(app) == ["⚠ ACTIVE   stale-available  flaky  1 min 39 s  x1"]
        assert incidents.border_title == "▶ incidents · 1 active · 300 resolved"
        assert incidents.border_subtitle == "R: show resolved"
        await pilot.press("R")
        await pilot_wait_until(pilot, lambda: len(listed(app)) == 2, what="resolved shown")


async def test_enter_on_a_fold_shows_each_episode() -> None:
    app = folding_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await ingest_all(app, pilot, many_episodes(300))
        incidents = app.screen.query_one(IncidentList)
        incidents.focus()
        await pilot.press("down", "enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="enter")
        assert isinstance(app.screen, TextScreen)
        assert app.screen.title_text == "incidents · execution-routed-elsewhere · build"
        lines = app.screen.body.splitlines()
        assert lines[:7] == [
            "code          execution-routed-elsewhere",
            "environment   build",
            "tool          -",
            "episodes      300 resolved",
            "first began   12:00:01 UTC (11 min ago)",
            "last resolved 12:10:00 UTC (1 min ago)",
            "",
        ]
        assert lines[7:9] == [
            "--- #300: step 599 at 12:09:59 UTC (1 min ago), resolved step 600 at 12:10:00 UTC"
            " (1 min ago)",
            "    lasted 1 s, raised by 1 step(s): build bad",
        ]
        assert sum(line.startswith("--- #") for line in lines) == 300


async def test_the_count_stays_true_after_the_oldest_episodes_are_let_go() -> None:
    app = folding_app(max_steps=100)  # the store holds 100 incidents
    async with app.run_test(size=(140, 44)) as pilot:
        await ingest_all(app, pilot, many_episodes(300))
        assert len(app.store.incidents.resolved) == 100
        assert listed(app)[1] == FOLDED
        incidents = app.screen.query_one(IncidentList)
        assert incidents.border_title == "incidents · 1 active · 300 resolved"
        incidents.focus()
        await pilot.press("down", "enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="enter")
        assert isinstance(app.screen, TextScreen)
        body = app.screen.body
        assert "\n(the last 100 of 300 episodes are kept)\n" in body
        assert body.count("\n--- #") == 100
