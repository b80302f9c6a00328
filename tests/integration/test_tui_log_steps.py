"""The dashboard's event log says what happened: the steps of a minute are one line with
their range and what they sent, drawn as such (G4, H6); and what the table keeps of its drawing stays
bounded however long it runs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC

import pytest

from tests.support.scenarios.dashboard_pilot import Feed, settled
from tests.support.scenarios.scripted_stream import at, clock, status
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.log_widget import EventLog
from envtui.tui.table_caches import cache_fill
from envtui.tui.widgets import CACHED_CELLS, CACHED_ROWS, EnvironmentTable
from envtui.vocabulary.events import Event, StepRecorded, thread_event

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def step(number: int, second: int, *, sent: bool = False) -> Event:
    diff = "<environment_context>\n</environment_context>" if sent else None
    return thread_event(StepRecorded(step=number, diff=diff), at=at(second))


def drawn_lines(log: EventLog) -> list[str]:
    """The log's lines as its strips draw them, top to bottom, without the padding."""
    return [log.render_line(y).text.rstrip() for y in range(min(log.line_count, log.size.height))]


async def test_a_minute_of_steps_is_drawn_as_one_line_below_the_others() -> None:
    feed = Feed([])
    app = EnvTuiApp(feed, DashboardOptions(source_name="test", clock=clock, zone=UTC))
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=0)
        feed.send(*(step(n, 2 * n) for n in range(980, 990)))
        feed.send(status("local", "ready", 1981, kind="local"))
        feed.send(*(step(n, 2 * n) for n in range(990, 995)))
        feed.send(step(995, 1990, sent=True), step(996, 1992))
        expected = [
            "12:33:01 environment_status local ready",
            "12:33:12 \N{MULTIPLICATION SIGN}17 steps #980\N{EN DASH}#996: 1 sent, 16 unchanged"
            " · over 32 s",
        ]
        log = app.screen.query_one(EventLog)
        await pilot_wait_until(pilot, lambda: log.seen == 18, what="18 entries in the log")
        await pilot.pause()
        assert log.lines == expected
        assert drawn_lines(log) == expected
        feed.send(step(997, 1994))
        await pilot_wait_until(pilot, lambda: log.seen == 19, what="one step more")
        await pilot.pause()
        assert drawn_lines(log)[-1] == (
            "12:33:14 \N{MULTIPLICATION SIGN}18 steps #980\N{EN DASH}#997: 1 sent, 17 unchanged"
            " · over 34 s"
        )


async def test_the_table_keeps_only_a_few_screens_of_what_it_drew() -> None:
    """A changed row is drawn once and never again: what the table keeps of its drawing
    is bounded by a few screens, not by how long the dashboard has run."""
    feed = Feed([])
    app = EnvTuiApp(feed, DashboardOptions(source_name="test", clock=clock, zone=UTC))
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=0)
        log = app.screen.query_one(EventLog)
        table = app.screen.query_one(EnvironmentTable)
        for batch in range(25):
            feed.send(
                *(status(f"e{n % 30}", "ready", batch, error=f"{batch}.{n}") for n in range(30))
            )
            await pilot_wait_until(pilot, seen(log, 30 * (batch + 1)), what=f"batch {batch} drawn")
            await pilot.pause()
        assert log.line_count == 750
        fill = cache_fill(table)
        assert 0 < fill["_cell_render_cache"] <= CACHED_CELLS
        assert 0 < fill["_row_renderable_cache"] <= CACHED_ROWS


def seen(log: EventLog, lines: int) -> Callable[[], bool]:
    """Whether the log has drawn ``lines`` lines."""
    return lambda: log.seen == lines
