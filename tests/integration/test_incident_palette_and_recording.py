"""The incidents from the command palette and into a recording, driven by Pilot: slower
than the unit tests of the dashboard's incidents (the palette's fuzzy search, a file
writer's thread), so they run with the integration tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.scenarios.dashboard_pilot import run_from_palette
from tests.support.scenarios.incident_steps import feed, make_app, step
from tests.support.scenarios.scripted_stream import clock
from tests.support.waiting import pilot_wait_until

from envtui.dashboard.store import Store
from envtui.sources.recording import recorded
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.vocabulary.events import Event, EventSink, decode_lines

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def test_the_palette_acknowledges_too() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await feed(app, pilot, step(1, ("stale-available", "flaky")))
        await run_from_palette(
            app, pilot, "acknowledge", "envtui: Acknowledge the incident under the cursor · key a"
        )
        await pilot_wait_until(
            pilot,
            lambda: app.store.incidents.incidents()[0].state == "acknowledged",
            what="the acknowledgement",
        )


async def test_an_acknowledgement_is_recorded_and_a_replay_shows_it(tmp_path: Path) -> None:
    events = [*step(1, ("stale-available", "flaky")), *step(2, ("stale-available", "flaky"))]

    async def source(sink: EventSink, stop: asyncio.Event) -> None:
        for event in events:
            sink(event)
        await stop.wait()

    path = tmp_path / "run.jsonl"
    app = EnvTuiApp(recorded(source, path), DashboardOptions(source_name="test", clock=clock))
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot_wait_until(pilot, lambda: bool(app.store.incidents.active()), what="it")
        await pilot.pause()
        await pilot.press("5", "a")  # the incidents, then acknowledge
        await pilot_wait_until(pilot, lambda: not app.store.incidents.active(), what="the ack")
    replayed = Store()
    replayed.apply_all(
        e for e in decode_lines(path.read_text().splitlines()) if isinstance(e, Event)
    )
    assert replayed.counters["incident_acknowledged"] == 1
    (incident,) = replayed.incidents.incidents()
    assert (incident.state, incident.steps) == ("acknowledged", 2)
