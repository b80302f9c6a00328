"""The event log's folding, this checkout against an earlier one, side by side in one run.

The demo runs headless for ``--seconds`` (60) and its events are kept. Then the same events
are made into log lines and folded by this checkout's ``dashboard/log_fold.py`` and by the
log of ``--before`` (a git revision; its ``tui/log_fold.py`` and ``dashboard/log_lines.py``
are read with ``git show``), in frame-sized batches as the dashboard hands them over.

Printed: the lines a 160x45 dashboard's log shows at the end (its last 31) and how many of
them are step lines, for each; then the cost per appended line (making it and folding it),
the median of ``--rounds`` rounds taken in turn, and the ratio after / before.
Run: ``python benchmarks/bench_log_fold.py [--seconds 60] [--before REV] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envtui.dashboard import log_fold, log_lines  # noqa: E402
from envtui.sources.demo import run_demo  # noqa: E402
from envtui.vocabulary.events import EnvironmentStatus, Event  # noqa: E402

VISIBLE = 31
"""The lines the log panel shows at 160x45."""
BATCH = 8
"""Entries handed to the log per frame (the demo's pace: a step and what came with it)."""


def old_modules(revision: str) -> tuple[Any, Any]:
    """The log lines and the folding of ``revision``, as modules of their own."""

    def load(path: str, name: str, replace: tuple[str, str] | None = None) -> Any:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{revision}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        if replace is not None:
            source = source.replace(*replace)
        module = types.ModuleType(name)
        sys.modules[name] = module
        exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
        return module

    lines = load("envtui/dashboard/log_lines.py", "before_log_lines")
    fold = load(
        "envtui/tui/log_fold.py",
        "before_log_fold",
        ("from envtui.dashboard.log_lines import", "from before_log_lines import"),
    )
    return lines, fold


async def demo_events(seconds: float) -> list[Event]:
    events: list[Event] = []
    stop = asyncio.Event()
    task = asyncio.ensure_future(run_demo(events.append, stop))
    try:
        await asyncio.sleep(seconds)
    finally:
        stop.set()
        await asyncio.wait({task}, timeout=30)
    return events


def fold_all(lines_module: Any, folded: Any, events: list[Event]) -> list[str]:
    """Every event as a log line (a status with the status before it, as the store makes
    it), folded in batches; the lines shown."""
    previous: dict[str, Any] = {}
    pending = []
    for event in events:
        msg = event.msg
        if isinstance(msg, EnvironmentStatus):
            pending.append(lines_module.log_entry(event, None, previous.get(msg.environment_id)))
            previous[msg.environment_id] = msg.status
        else:
            pending.append(lines_module.log_entry(event))
        if len(pending) == BATCH:
            folded.add(pending)
            pending = []
    folded.add(pending)
    return [fold.line() for fold in folded.folds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--before", default="cf0e742", help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    before_lines, before_fold = old_modules(args.before)
    events = asyncio.run(demo_events(args.seconds))
    print(f"the demo for {args.seconds:.0f} s: {len(events)} events")
    makers: dict[str, Callable[[], list[str]]] = {
        "before": lambda: fold_all(before_lines, before_fold.FoldedLog(10_000), events),
        "after": lambda: fold_all(log_lines, log_fold.FoldedLog(10_000), events),
    }
    for name, make in makers.items():
        shown = make()[-VISIBLE:]
        steps = sum(" step #" in line or " steps #" in line for line in shown)
        print(f"{name:>6}: {len(make())} lines; of the last {len(shown)}, {steps} are steps")
        for line in shown:
            print(f"        {line[:150]}")
    many = events * max(1, 20_000 // max(1, len(events)))
    costs: dict[str, list[float]] = {name: [] for name in makers}
    for _ in range(args.rounds):
        for name, (lines_module, fold_module) in {
            "before": (before_lines, before_fold),
            "after": (log_lines, log_fold),
        }.items():
            started = time.perf_counter()
            fold_all(lines_module, fold_module.FoldedLog(10_000), many)
            costs[name].append((time.perf_counter() - started) / len(many) * 1e6)
    before, after = (statistics.median(costs[name]) for name in ("before", "after"))
    print(f"per appended line ({len(many)} lines, median of {args.rounds}):")
    print(f"  before {before:.2f} us, after {after:.2f} us, after / before {after / before:.2f}x")


if __name__ == "__main__":
    main()
