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
from envtui.tui.upstream.table_caches import cache_fill
from envtui.tui.widgets import CACHED_CELLS, CACHED_ROWS, EnvironmentTable
from envtui.vocabulary.events import Event, FindingReported, StepRecorded, thread_event

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


def refusing_ghost_with_steps() -> list[Event]:
    """ghost refused at every retry while the engine steps and raises its finding."""
    events = [status("ghost", "starting", 0, error=None)]
    long_error = "cannot connect to 127.0.0.1:34995: Connection refused by the host"
    for number in range(1, 21):
        second = 3 * number
        events.append(status("ghost", "unavailable", second, error=long_error))
        events.append(step(number, second + 1, sent=number % 3 == 0))
        events.append(
            thread_event(
                FindingReported(
                    code="stale-available",
                    severity="error",
                    step=number,
                    environment_id="ghost",
                    message="the context presents 'ghost' as available, but the connection"
                    " is known to be lost",
                ),
                at=at(second + 1),
            )
        )
        events.append(status("ghost", "starting", second + 2))
    return events


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
async def test_cut_lines_keep_their_count_and_subject(size: tuple[int, int]) -> None:
    """At 80 and 160 columns every line the log draws starts with its time, then the count
    of a fold and what it is about, before the panel's edge cuts it."""
    events = refusing_ghost_with_steps()
    feed = Feed(events)
    app = EnvTuiApp(feed, DashboardOptions(source_name="test", clock=clock, zone=UTC))
    async with app.run_test(size=size) as pilot:
        await settled(app, pilot, events=len(events))
        log = app.screen.query_one(EventLog)
        await pilot_wait_until(pilot, lambda: log.seen == len(events), what="all drawn")
        await pilot.pause()
        drawn = drawn_lines(log)
        times = "\N{MULTIPLICATION SIGN}"
        expected = [
            f"12:01:01 {times}20 steps #1\N{EN DASH}#20: 6 sent, 14 unchanged · over 57 s",
            f"12:01:01 {times}20 finding ghost · stale-available: the context presents"
            " 'ghost' as available, but the connection is known to be lost · over 57 s",
            f"12:01:02 {times}20+20 environment_status ghost starting → unavailable:"
            " cannot connect to 127.0.0.1:34995: Connection refused by the host"
            " · with unavailable → starting · over 59 s",
        ]
        assert len(drawn) == 4  # and ghost's first line
        for shown, whole in zip(drawn[-3:], expected, strict=True):
            assert whole.startswith(shown)  # cut at the edge, or whole
            assert len(shown) >= min(len(whole), log.size.width - 10)
        subjects = (f"{times}20 steps", f"{times}20 finding ghost", f"{times}20+20 env")
        assert [line[9:].startswith(s) for line, s in zip(drawn[-3:], subjects, strict=True)] == [
            True
        ] * 3
