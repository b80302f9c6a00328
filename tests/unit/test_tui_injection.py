"""Untrusted text never reaches the screen as a control: the places that once leaked show the
visible escapes, and table cells are composed. The walk through every view, detail screen
and notice is ``tests/integration/test_tui_injection_walk.py``."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Static

from tests.support.data.hostile_text import VISIBLE, X, active_characters
from tests.support.scenarios.scripted_stream import at, clock
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.vocabulary.events import (
    EventSink,
    FindingReported,
    StepRecorded,
    WarningMessage,
    thread_event,
)

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


async def test_each_former_leak_shows_the_escaped_text() -> None:
    """The places that once wrote raw escapes (header, banner, toast) show the visible form."""
    short = "\x1b]2;TITLE\x07"  # the header is one line: a long value would be cut off
    events = [
        thread_event(
            StepRecorded(step=1, snapshot={"current_date": short, "timezone": "\x9b"}), at=at(1)
        ),
        thread_event(FindingReported(code=X, severity="error", message="m")),
        thread_event(WarningMessage(message=X, severity="error")),
    ]

    async def source(sink: EventSink, stop: asyncio.Event) -> None:
        for event in events:
            sink(event)

    app = EnvTuiApp(source, DashboardOptions(source_name="t", clock=clock))
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot_wait_until(pilot, lambda: app.store.counters["warning"] == 1, what="events")
        await pilot.pause(0.2)
        header = str(app.screen.query_one("#header", Static).render())
        banner = str(app.screen.query_one("#banner", Static).render())
        toast = "\n".join(n.message for n in app.notices)
        drawn = app.export_screenshot()
    assert active_characters(drawn) == []
    for shown in (header, banner, toast):
        assert VISIBLE in shown


def test_table_cells_are_composed_and_joiners_shown() -> None:
    from envtui.dashboard.store import EnvironmentRow
    from envtui.tui.format import row_values

    row = EnvironmentRow(id="cafe\u0301", order=0, cwd="/a\u200db", shell="z\u2060sh")
    values = row_values(row, clock())
    assert values["id"] == "caf\u00e9"  # one cell, as the terminal draws it
    assert values["cwd"] == "/a\\u200db"
    assert values["shell"] == "z\\u2060sh"
