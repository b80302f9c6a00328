"""Full render and one-change diff against ``json.dumps`` of the same snapshot.

For 1, 10, 100 and 1,000 environments it prints the best-of-repeats time per call of

* ``render_full(state)``,
* ``render_diff(changed, state)`` where one environment's cwd changed,
* ``json.dumps(snapshot(state))``, the yardstick, measured in the same run,

and each of the first two as a ratio to the third. Run: ``python benchmarks/bench_context.py``.
"""

from __future__ import annotations

import argparse
import json
import timeit
from collections.abc import Callable
from dataclasses import replace

from envtui.context.diff import render_diff
from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.context.render import render_full
from envtui.context.snapshot import snapshot

SIZES = (1, 10, 100, 1000)


def make_state(count: int) -> EnvironmentsState:
    """Environments as a busy thread has them: mostly ready, some starting, one primary."""
    envs = {
        f"env-{i:04d}": EnvironmentState(
            cwd=f"/home/dev/projects/service-{i}/src",
            status="starting" if i % 10 == 9 else "available",
            shell=None if i % 10 == 9 else ("bash" if i % 2 else "zsh"),
            is_primary=i == 0,
        )
        for i in range(count)
    }
    return EnvironmentsState(environments=envs, current_date="2026-11-30", timezone="Europe/Berlin")


def with_one_change(state: EnvironmentsState) -> EnvironmentsState:
    envs = dict(state.environments)
    last = sorted(envs)[-1]
    envs[last] = replace(envs[last], cwd=envs[last].cwd + "/moved")
    return replace(state, environments=envs)


def per_call(fn: Callable[[], object], repeat: int) -> float:
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--repeat", type=int, default=7, help="repeats per measurement (best is kept)"
    )
    args = parser.parse_args()
    header = (
        f"{'envs':>5}  {'json.dumps':>11}  {'full render':>11}  {'ratio':>6}"
        f"  {'1-change diff':>13}  {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for count in SIZES:
        state = make_state(count)
        changed = with_one_change(state)
        snap = snapshot(state)
        assert render_diff(changed, state) is not None
        dumps = per_call(lambda snap=snap: json.dumps(snap), args.repeat)  # type: ignore[misc]
        full = per_call(lambda state=state: render_full(state), args.repeat)  # type: ignore[misc]
        diff = per_call(lambda c=changed, s=state: render_diff(c, s), args.repeat)  # type: ignore[misc]
        print(
            f"{count:>5}  {dumps * 1e6:>9.1f}µs  {full * 1e6:>9.1f}µs  {full / dumps:>5.2f}x"
            f"  {diff * 1e6:>11.1f}µs  {diff / dumps:>5.2f}x"
        )


if __name__ == "__main__":
    main()
