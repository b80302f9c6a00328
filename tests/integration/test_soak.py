"""Memory is bounded by the configuration, not by time: a soak at a step every 50 ms.

The demo (the real engine against in-process SSH hosts that drop and come back) and a
rollout that grows by a step every 50 ms while it is followed both feed one store whose
bounds are small. Once those bounds are full, what Python holds must stop growing: at this
pace a leak of a few hundred bytes per step would show in half a minute.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path

import pytest

from tests.support.data.handmade_rollouts import RolloutWriter, function_tool

from envtui.context import EnvironmentsState, EnvironmentState
from envtui.dashboard.store import Store
from envtui.sources import rollout_follow
from envtui.sources.demo import Demo
from envtui.sources.file_windows import LocalFile
from envtui.sources.rollout_follow import RolloutFollower, read_window
from envtui.vocabulary.stopping import wait_for_stop

STEP = 0.05
WARM_UP = 10.0  # seconds until every bound is full (20 steps, 100 lines) and caches settle
WINDOW_STEPS = 240  # demo steps per measured window: 12 s at pace, longer on a loaded machine
WINDOW_BOUND = 300.0  # seconds a window may take before the soak counts as stalled (a bound)
SLACK = 64 * 1024  # bytes: 0-16 KiB of noise measured here; 100 B leaked per event is ~70 KiB


async def grow_rollout(path: Path, stop: asyncio.Event) -> None:
    """A rollout that gains a step every STEP seconds, as a busy Codex thread would."""
    writer = RolloutWriter()
    number = 0
    while not await wait_for_stop(stop, STEP):
        if number % 10 == 0:
            writer.end_turn()
            writer.turn()
            writer.tools(function_tool("exec_command"))
        number += 1
        local = EnvironmentState(cwd=f"/repo/{number % 7}", shell="bash", is_primary=True)
        writer.step(EnvironmentsState(environments={"local": local}))
        writer.call("exec_command", {"cmd": "ls"})
        writer.output()
        writer.append_to(path, forget=True)


async def traced_window(store: Store) -> int:
    """The most memory Python held, sampled each second until the demo made
    :data:`WINDOW_STEPS` more steps: windows of equal work, however loaded the machine."""
    peak = 0
    until = store.counters["step"] + WINDOW_STEPS
    deadline = asyncio.get_running_loop().time() + WINDOW_BOUND
    while store.counters["step"] < until:
        assert asyncio.get_running_loop().time() < deadline, "the soak stalled"
        await asyncio.sleep(1)
        gc.collect()
        peak = max(peak, tracemalloc.get_traced_memory()[0])
    return peak


async def test_memory_stops_growing_once_the_bounds_are_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rollout_follow, "POLL", STEP)
    store = Store(max_log_lines=100, max_steps=20, environment_events=10)  # the demo's
    followed = Store(max_log_lines=100, max_steps=20, environment_events=10)  # the rollout's

    path = tmp_path / "rollout.jsonl"
    path.touch()
    stop = asyncio.Event()
    tracemalloc.start()
    tasks = [
        asyncio.ensure_future(Demo(store.apply, step_interval=STEP, turn_steps=8).run(stop)),
        asyncio.ensure_future(grow_rollout(path, stop)),
        asyncio.ensure_future(
            read_window(
                LocalFile(path), RolloutFollower(str(path), followed.apply), stop, follow=True
            )
        ),
    ]
    try:
        await asyncio.sleep(WARM_UP)
        steps_before = store.counters["step"]
        first = await traced_window(store)
        second = await traced_window(store)
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
        tracemalloc.stop()
    steps = store.counters["step"] - steps_before
    assert steps >= 2 * WINDOW_STEPS, f"only {steps} steps measured"
    assert followed.counters["step"] > WINDOW_STEPS / 2, "the rollout was not followed"
    for bounded in (store, followed):
        assert (len(bounded.log), len(bounded.steps)) == (100, 20)
    assert all(len(row.events) <= 10 for row in store.environments.values())
    assert second - first < SLACK, (
        f"memory grew {(second - first) / 1024:.0f} KiB over {steps} steps after the bounds were full"
    )
