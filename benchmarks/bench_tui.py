"""Events per second through store and dashboard, and the time until the table shows the last.

The dashboard runs headless (Textual's test driver) on 1,000 environments; a source emits
the events in bursts as fast as the event loop lets it. Printed: events per second from
the first event to the table showing the last one, the time from the last event to the
table showing it, and the process's peak RSS. Run: ``python benchmarks/bench_tui.py
[--events N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from envtui.events import EnvironmentStatus, Event, thread_event
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.widgets import EnvironmentTable

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
STATES = ("starting", "ready", "unavailable")


def make_event(i: int, environments: int) -> Event:
    """Events are made as a source would make them: one at a time, not held in a list."""
    return thread_event(
        EnvironmentStatus(
            environment_id=f"env-{i % environments:04d}",
            kind="ssh",
            status=STATES[(i // environments) % 3],
            cwd=f"/srv/{i % environments}",
            error=f"event {i}",
        ),
        at=T0 + timedelta(microseconds=i),
    )


async def measure(count: int, environments: int) -> tuple[float, float]:
    last = make_event(count - 1, environments).msg
    assert isinstance(last, EnvironmentStatus)
    marks: dict[str, float] = {}

    async def source(sink: Any, stop: asyncio.Event) -> None:
        marks["start"] = time.perf_counter()
        for start in range(0, count, 2000):
            for i in range(start, min(count, start + 2000)):
                sink(make_event(i, environments))
            await asyncio.sleep(0)
        marks["last"] = time.perf_counter()

    app = EnvTuiApp(source, DashboardOptions(source_name="bench", clock=lambda: T0))
    async with app.run_test(size=(140, 44)) as pilot:
        while True:
            await pilot.pause(0.005)
            if "last" not in marks:
                continue
            table = app.screen.query_one(EnvironmentTable)
            if last.environment_id in {str(k.value) for k in table.rows}:
                cell = table.get_cell(last.environment_id, "error").plain
                if cell == last.error:
                    shown = time.perf_counter()
                    break
    return count / (shown - marks["start"]), shown - marks["last"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--environments", type=int, default=1_000)
    args = parser.parse_args()
    rate, latency = asyncio.run(measure(args.events, args.environments))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.environments} environments, {args.events} events")
    print(f"events per second (made, stored, drawn): {rate:,.0f}")
    print(f"last event to the table showing it:      {latency * 1000:.0f} ms")
    print(f"peak RSS:                                {rss:.0f} MB")


if __name__ == "__main__":
    main()
