"""Steps per second: capture, full render, diff, patch, tool plan and findings, per step.

For 10 and 1,000 environments it captures steps from snapshots that alternate between two
variants (one environment's shell changes), so every step has a diff and a patch, and
prints steps per second next to the time of the full render alone, measured in the same
run. Run: ``python benchmarks/bench_steps.py``.
"""

from __future__ import annotations

import argparse
import itertools
import timeit
from collections.abc import Iterator
from datetime import UTC, datetime

from envtui.context.render import render_full
from envtui.steps.capture import StepCapture
from envtui.steps.section import SectionSettings, section_for
from envtui.steps.selection import Readiness, Selection, SelectionSnapshot, SnapshotEntry
from envtui.vocabulary.profiles import Profile

SIZES = (10, 1000)
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def make_snapshot(count: int, variant: int) -> SelectionSnapshot:
    entries = []
    for index in range(count):
        selection = Selection(f"env-{index:04d}", f"/home/dev/projects/service-{index}")
        if index % 10 == 9:
            entries.append(SnapshotEntry(selection, "ssh", True, "starting"))
            continue
        shell = "zsh" if index == count - 1 and variant else "bash"
        readiness = Readiness(shell, f"/bin/{shell}", selection.cwd)
        entries.append(SnapshotEntry(selection, "ssh", index != 0, "ready", readiness=readiness))
    return SelectionSnapshot(tuple(entries))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=5, help="repeats per measurement (best is kept)"
    )
    args = parser.parse_args()
    print(
        f"{'envs':>5}  {'steps/s':>9}  {'per step':>10}  {'full render':>11}  {'step/render':>11}"
    )
    print("-" * 54)
    for count in SIZES:
        snapshots = [make_snapshot(count, 0), make_snapshot(count, 1)]
        settings = SectionSettings(Profile.CODEX_0171, "Europe/Berlin")
        capture = StepCapture(settings, clock=lambda: NOW)
        cycle = itertools.cycle(snapshots)

        def one_step(
            capture: StepCapture = capture, cycle: Iterator[SelectionSnapshot] = cycle
        ) -> None:
            capture.capture(next(cycle), connection={})

        state = section_for(snapshots[0], settings, NOW)
        assert state is not None
        step_timer = timeit.Timer(one_step)
        number, _ = step_timer.autorange()
        per_step = min(step_timer.repeat(args.repeat, number)) / number
        render_timer = timeit.Timer(lambda state=state: render_full(state))  # type: ignore[misc]
        render_number, _ = render_timer.autorange()
        per_render = min(render_timer.repeat(args.repeat, render_number)) / render_number
        print(
            f"{count:>5}  {1 / per_step:>9.0f}  {per_step * 1e3:>8.3f}ms"
            f"  {per_render * 1e3:>9.3f}ms  {per_step / per_render:>10.1f}x"
        )


if __name__ == "__main__":
    main()
