"""The dashboard on a replay, measured on the user's path, next to the same events headless.

A JSONL stream of N events (status changes of 1,000 environments, a step every 1,000
events) is written once. Then, side by side in one run:

* headless: the file decoded line by line and folded into a store, nothing drawn;
* the dashboard: ``envtui replay FILE --speed 0`` as a user runs it (the replay source reads
  and decodes the file and yields as it does), every frame rendered to terminal output,
  until the table shows the last event's row *and* the event log shows its line.

Printed: both times, their ratio, events per second, the time from the last event read
to the frame that shows it, and the process's peak RSS. Run: ``python
benchmarks/bench_tui.py [--events N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import resource
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from terminal import frame_after, run_in_process

from envtui.dashboard.store import Store
from envtui.sources.replay import replay
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.log_widget import EventLog
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import (
    EnvironmentStatus,
    Event,
    decode_lines,
    encode_event,
    thread_event,
)

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
STATES = ("starting", "ready", "unavailable")


def make_event(i: int, environments: int) -> Event:
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


def write_stream(path: Path, count: int, environments: int) -> Event:
    """The stream, written as ``envtui --record`` writes it; its last event."""
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            handle.write(encode_event(make_event(i, environments)) + "\n")
    return make_event(count - 1, environments)


def headless(path: Path) -> float:
    """Seconds to decode the file and fold every event into a store."""
    start = time.perf_counter()
    store = Store()
    with path.open(encoding="utf-8") as handle:
        for item in decode_lines(handle):
            if isinstance(item, Event):
                store.apply(item)
    return time.perf_counter() - start


async def dashboard(path: Path, last: Event) -> tuple[float, float]:
    """Seconds until the last event is on screen (table and log), and from its arrival."""
    msg = last.msg
    assert isinstance(msg, EnvironmentStatus)
    # the line as the store writes it (a status line names the status it left)
    folded = Store()
    with path.open(encoding="utf-8") as handle:
        folded.apply_all(item for item in decode_lines(handle) if isinstance(item, Event))
    line = next(e.line for e in reversed(folded.log) if e.at == last.at and e.kind == msg.type)
    app = EnvTuiApp(
        functools.partial(replay, path, speed=0),
        DashboardOptions(source_name="replay", clock=lambda: T0),
    )
    start = time.perf_counter()
    task = await run_in_process(app, (140, 44))
    arrived = 0.0
    while True:
        await asyncio.sleep(0.002)
        if not arrived and app.store.log and line in [e.line for e in list(app.store.log)[-2:]]:
            arrived = time.perf_counter()
        if arrived and shows(app, msg, line):
            shown = await frame_after(time.perf_counter())
            break
    app.exit()
    await task
    return shown - start, shown - arrived


def shows(app: EnvTuiApp, msg: EnvironmentStatus, line: str) -> bool:
    """The table has the event's row with its error, and the log ends with its line."""
    tables, logs = app.screen.query(EnvironmentTable), app.screen.query(EventLog)
    if not tables or not logs:
        return False
    table, log = tables.first(), logs.first()
    return (
        msg.environment_id in {str(key.value) for key in table.rows}
        and table.get_cell(msg.environment_id, "error").plain == msg.error
        and line in log.lines[-2:]  # the replay's own "ended" line may follow it
        and log.following
        and log.scroll_y >= log.max_scroll_y
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--environments", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stream.jsonl"
        last = write_stream(path, args.events, args.environments)
        alone = min(headless(path) for _ in range(2))
        drawn, latency = asyncio.run(dashboard(path, last))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{args.environments} environments, {args.events} events, JSONL read as a replay reads it"
    )
    print(f"headless decode + fold:                     {alone:6.2f} s")
    print(f"replay --speed 0 until table and log show:  {drawn:6.2f} s")
    print(f"ratio (budget 3x):                          {drawn / alone:6.2f}x")
    print(f"events per second, drawn:                   {args.events / drawn:8,.0f}")
    print(f"last event read to the frame showing it:    {latency * 1000:6.0f} ms")
    print(f"peak RSS:                                   {rss:6.0f} MB")


if __name__ == "__main__":
    main()
