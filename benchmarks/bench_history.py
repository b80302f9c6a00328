"""What the status strip costs the table: refreshes with and without it, side by side.

200 environments, each with a long history (``--transitions`` each, one every ``--every``
seconds: by default a change every second, the worst case), in a table of a wide
terminal. Each round moves the clock on by a second and does what a frame does:
``refresh_times`` (the relative times, and with the strip its cells, availability and
flaps, recomputed for every row), and every ``--sync-every`` rounds a whole ``sync`` (as
after a filter or a theme change). "Without" lays the table out without the strip,
availability and flap columns; everything else is the same. The ratio is printed;
timings are never a pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest.mock import patch

from textual.app import App, ComposeResult

from envtui.dashboard.store import EnvironmentRow
from envtui.tui.format import column_layout
from envtui.tui.widgets import EnvironmentTable

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
HISTORY_KEYS = {"strip", "avail", "flaps"}


def rows(count: int, transitions: int, every: float) -> list[EnvironmentRow]:
    """``count`` environments; each changes status every ``every`` seconds (ready,
    unavailable, starting in turn), its last change ``every`` s before the first frame."""
    out = []
    for index in range(count):
        row = EnvironmentRow(f"env-{index:03}", index, kind="ssh", cwd=f"/srv/{index}")
        for step in range(transitions):
            state = ("ready", "unavailable", "starting")[step % 3]
            row.history.record(state, T0 + timedelta(seconds=step * every))  # type: ignore[arg-type]
        row.status = "ready"
        row.changed_at = T0
        out.append(row)
    return out


class Table(App[None]):
    def compose(self) -> ComposeResult:
        yield EnvironmentTable(id="table")


async def measure(strip: bool, args: argparse.Namespace) -> float:
    """Seconds for ``args.rounds`` frames over the 200 rows, the strip shown or not."""

    def layout(width: int, longest: dict[str, int]) -> Any:
        laid = column_layout(width, longest)
        return laid if strip else tuple(c for c in laid if c[0] not in HISTORY_KEYS)

    with patch("envtui.tui.widgets.column_layout", layout):
        app = Table()
        async with app.run_test(size=(220, 60)) as pilot:
            table = app.query_one(EnvironmentTable)
            data = rows(args.environments, args.transitions, args.every)
            now = T0 + timedelta(seconds=args.transitions * args.every)
            table.sync(data, None, set(), now)
            await pilot.pause()
            shown = {key for key, _, _ in table._layout}
            assert (shown >= HISTORY_KEYS) == strip, shown
            start = time.perf_counter()
            for round_ in range(args.rounds):
                now += timedelta(seconds=1)
                if round_ % args.sync_every == 0:
                    table.sync(data, None, set(), now)
                else:
                    table.refresh_times(data, now)
                await pilot.pause()
            return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--environments", type=int, default=200)
    parser.add_argument("--transitions", type=int, default=500)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between changes")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--sync-every", type=int, default=10)
    args = parser.parse_args()
    without = asyncio.run(measure(False, args))
    with_strip = asyncio.run(measure(True, args))
    frames = args.rounds
    print(
        f"{args.environments} environments, {args.transitions} transitions each,"
        f" one every {args.every:g} s, {frames} frames"
    )
    print(f"without the strip: {without / frames * 1000:.1f} ms per frame")
    print(f"with the strip:    {with_strip / frames * 1000:.1f} ms per frame")
    print(f"ratio: {with_strip / without:.2f}x")


if __name__ == "__main__":
    main()
