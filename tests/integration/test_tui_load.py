"""Correctness under load: 1,000 environments and a burst of 20,000 events."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.support.peak_memory import PeakGrowth
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.main_screen import MainScreen
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import EnvironmentStatus, Event, thread_event

ENVIRONMENTS = 1_000
EVENTS = 20_000
MEMORY_BOUND = 200 * 1024 * 1024  # bytes of peak resident growth for the app, store and widgets
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
STATES = ("starting", "ready", "unavailable")


def burst() -> list[Event]:
    events = []
    for index in range(EVENTS):
        env = index % ENVIRONMENTS
        state = STATES[(index // ENVIRONMENTS) % 3]
        events.append(
            thread_event(
                EnvironmentStatus(
                    environment_id=f"env-{env:04d}",
                    kind="ssh",
                    status=state,
                    cwd=f"/srv/{env}",
                    error=None if state != "unavailable" else f"lost {index}",
                ),
                at=T0 + timedelta(milliseconds=index),
            )
        )
    return events


async def test_burst_keeps_the_app_responsive_and_the_table_equal_to_the_store() -> None:
    events = burst()
    halfway = asyncio.Event()
    key_handled = asyncio.Event()

    async def source(sink: Any, stop: asyncio.Event) -> None:
        for start in range(0, len(events), 200):  # bursts, with gaps as a socket would give
            if start == len(events) // 2:
                # Half the burst is in: the test presses a key now, so "during the burst"
                # holds however slow the machine is; the rest follows once it was handled.
                halfway.set()
                await key_handled.wait()
            for event in events[start : start + 200]:
                sink(event)
            await asyncio.sleep(0.005)
        await stop.wait()  # a live source stays up (one that ends adds its own status)

    app = EnvTuiApp(
        source, DashboardOptions(source_name="load", clock=lambda: T0 + timedelta(seconds=30))
    )
    with PeakGrowth() as growth:
        await _run_burst(app, halfway, key_handled)
    assert growth.bytes < MEMORY_BOUND, f"peak grew {growth.bytes / 1e6:.0f} MB"


async def _run_burst(app: EnvTuiApp, halfway: asyncio.Event, key_handled: asyncio.Event) -> None:
    async with app.run_test(size=(140, 44)) as pilot:
        await halfway.wait()
        await pilot.press("p")  # a key pressed during the burst is handled
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.paused
        assert app.store.counters["total"] == EVENTS // 2  # still arriving
        key_handled.set()
        await pilot.press("p")
        table = app.screen.query_one(EnvironmentTable)

        def shown() -> dict[str, tuple[str, str]]:
            rows = (table.get_row_at(i) for i in range(table.row_count))
            error = [key for key, _, _ in table._layout].index("error")
            return {row[2].plain: (row[1].plain.split(" ")[-1], row[error].plain) for row in rows}

        def stored() -> dict[str, tuple[str, str]]:
            return {
                env_id: (row.status, row.error or "")
                for env_id, row in app.store.environments.items()
            }

        await pilot_wait_until(  # the view catches up within a few frames
            pilot,
            lambda: app.store.counters["total"] == EVENTS and shown() == stored(),
            timeout=600,  # a hang guard, not a timing: beside other tests it took minutes
            what="every event in the store and the table equal to it",
        )
        assert app.store.counters["total"] == EVENTS
        assert table.row_count == ENVIRONMENTS
        assert shown() == stored()  # the table equals the store
