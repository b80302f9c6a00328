"""The status strip tells the truth at a glance: a host ready 95 % of the time and one
never ready look different, in colour, without it and in ASCII; the history screen draws
its timelines the same way, also past the bound on the transitions it holds."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.support.scenarios.dashboard_pilot import Feed, settled
from tests.support.scenarios.scripted_stream import at, status
from tests.support.screen_text import screen_lines
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.history_screen import HistoryScreen
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import Event

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
NOW = 299.0
"""Seconds after T0: the strip's last cell is 270-299 s, the nine before it 0-270 s."""


def five_minutes() -> list[Event]:
    """flaky drops for 0.75 s every 15 s (ready 95 %); legacy is never ready; gpu never
    finishes starting; build is ready until 285 s, then down."""
    events = [
        status("flaky", "ready", 0),
        status("legacy", "unavailable", 0, error="host key mismatch"),
        status("gpu", "starting", 0),
        status("build", "ready", 0),
    ]
    for drop in range(20):
        events.append(status("flaky", "unavailable", 7 + 15 * drop, error="dropped"))
        events.append(status("flaky", "ready", 7.75 + 15 * drop))
    events.append(status("build", "unavailable", 285, error="connection lost"))
    return sorted(events, key=lambda event: event.at or at(0))


ROWS = [  # the table at 160 columns, as drawn
    "│    ● ready        flaky   ▚▚▚▚▚▚▚▚▚▚  95%    20     ssh                 -      6 s ago     "
    "                                                                  │",
    "│    ✕ unavailable  legacy  ✕✕✕✕✕✕✕✕✕✕  0%     0      ssh                 -      4 min ago   "
    "host key mismatch                                                 │",
    "│    ◐ starting     gpu     ◐◐◐◐◐◐◐◐◐◐  0%     0      ssh                 -      4 min ago   "
    "                                                                  │",
    "│    ✕ unavailable  build   █████████▄  95%    1      ssh                 -      14 s ago    "
    "connection lost                                                   │",
]


def make_app(**options: Any) -> EnvTuiApp:
    clock = options.pop("clock", lambda: at(NOW))
    return EnvTuiApp(
        Feed(five_minutes()), DashboardOptions(source_name="t", clock=clock, **options)
    )


def cells(app: EnvTuiApp, key: str) -> dict[str, Any]:
    table = app.screen.query_one(EnvironmentTable)
    return {env_id: table.get_cell(env_id, key) for env_id in ("flaky", "legacy", "gpu", "build")}


async def test_a_host_ready_95_percent_and_one_never_ready_have_different_strips() -> None:
    app = make_app()
    async with app.run_test(size=(160, 30)) as pilot:
        await settled(app, pilot, events=len(five_minutes()))
        strips = cells(app, "strip")
        assert {env_id: text.plain for env_id, text in strips.items()} == {
            "flaky": "▚▚▚▚▚▚▚▚▚▚",  # it dropped and came back in every cell
            "legacy": "✕✕✕✕✕✕✕✕✕✕",  # never ready: the status it was in
            "gpu": "◐◐◐◐◐◐◐◐◐◐",
            "build": "█████████▄",  # ready all along, then half of the last cell
        }
        avail = {env_id: text.plain for env_id, text in cells(app, "avail").items()}
        assert avail == {"flaky": "95%", "legacy": "0%", "gpu": "0%", "build": "95%"}
        colours = app.theme_variables

        def colour_of(env_id: str) -> list[str]:
            text = strips[env_id]
            by_cell = [""] * len(text.plain)
            for span in text.spans:
                for index in range(span.start, span.end):
                    by_cell[index] = str(span.style)
            return by_cell

        # coloured by the worst status in each cell
        assert colour_of("flaky") == [colours["status-unavailable"]] * 10
        assert colour_of("gpu") == [colours["status-starting"]] * 10
        assert colour_of("build") == [colours["status-ready"]] * 9 + [colours["status-unavailable"]]
        assert screen_lines(app)[3:7] == ROWS


async def test_without_colour_the_strips_still_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(160, 30)) as pilot:
        await settled(app, pilot, events=len(five_minutes()))
        assert app.no_color
        assert screen_lines(app)[3:7] == ROWS


async def test_in_ascii_the_strips_differ_too() -> None:
    app = make_app(ascii=True)
    async with app.run_test(size=(160, 30)) as pilot:
        await settled(app, pilot, events=len(five_minutes()))
        assert screen_lines(app)[3].startswith("│    + ready        flaky   %%%%%%%%%%  95%    20 ")
        assert {env_id: text.plain for env_id, text in cells(app, "strip").items()} == {
            "flaky": "%%%%%%%%%%",
            "legacy": "xxxxxxxxxx",
            "gpu": "~~~~~~~~~~",
            "build": "#########-",
        }


async def open_history(app: EnvTuiApp, pilot: Any) -> HistoryScreen:
    await pilot.press("h")
    await pilot_wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="h")
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    await pilot_wait_until(pilot, lambda: "flaky: available" in screen.text, what="drawn")
    return screen


def timelines(text: str) -> dict[str, str]:
    """Each environment's row of the history screen: its label, then its cells."""
    rows = {}
    for line in text.splitlines():
        label, _, cells = line.partition(" ")
        if label in ("flaky", "legacy", "gpu", "build") and ":" not in line:
            rows[label] = cells.strip(" ")
    return rows


async def test_the_history_screen_draws_its_timelines_as_the_strip_does() -> None:
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await settled(app, pilot, events=len(five_minutes()))
        screen = await open_history(app, pilot)
        assert timelines(screen.text) == {
            # a drop within one column is a flap; one across two columns is two bars
            "flaky": "█▇▆███▚███▚███▚███▚███▚███▇▇███▚███▚███▚███▚███▚███▇▇███▚███▚███▚███▚███▚███▇▇███▚█",
            "legacy": "✕" * 83,
            "gpu": "◐" * 83,
            "build": "█" * 79 + "▁✕✕✕",
        }
        assert "▚ went up and down" in screen.text


async def test_past_its_bound_the_history_still_draws_its_first_minutes() -> None:
    """20 transitions held of flaky's 41: the first minutes come from the sums of those
    let go, never drawn as "not known"."""
    app = make_app(status_history=20)
    async with app.run_test(size=(100, 40)) as pilot:
        await settled(app, pilot, events=len(five_minutes()))
        history = app.store.environments["flaky"].history
        assert history.dropped == 21
        screen = await open_history(app, pilot)
        # the first 2 min 30 s from 5 s sums: each drop smeared over the columns it touches
        assert timelines(screen.text)["flaky"] == (
            "█▇▚██▇▚██▇▚▇█▇▚▇██▚▇██▚▇██▇▚██▇▚██▇▚▇█▇▚▇██▚███▚███▇▇███▚███▚███▚███▚███▚███▇▇███▚█"
        )
        summary = next(line for line in screen.text.splitlines() if line.startswith("flaky:"))
        assert summary == (
            "flaky: available 95%, 20 flap(s), 41 transition(s), the first 21 kept as sums per 5 s"
        )
        end = history.window(at(NOW), 1, timedelta(seconds=NOW))
        assert end.availability == pytest.approx(1 - 20 * 0.75 / NOW)


async def test_the_header_says_the_date_and_zone_are_what_the_model_sees() -> None:
    from tests.support.scenarios.scripted_stream import clock, scripted_source

    app = EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock))
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(app, pilot)
        assert screen_lines(app)[0] == (
            " envtui · test  ·  thread thread-1  ·  step 2  ·  model sees 2026-11-30"
            " Europe/Berlin  ·  12:00:30 UTC  ·  ⚠ 2"
        )
