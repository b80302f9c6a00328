"""Memory is bounded by the configuration, not by time: a soak at a step every 50 ms.

The demo (the real engine against in-process SSH hosts that drop and come back) and a
rollout that grows by a step every 50 ms while it is followed both feed one store whose
bounds are small. Once those bounds are full, what Python holds must stop growing: at this
pace a leak of a few hundred bytes per step would show in half a minute. What is measured
is the trend of what Python holds over many samples, per step made, so a loaded machine
(fewer steps a second, noisier samples) neither fails it nor hides a leak.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import statistics
import tracemalloc
from pathlib import Path

import pytest

from tests.support.data.handmade_rollouts import RolloutWriter, function_tool

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.dashboard import status_tally
from envtui.dashboard.store import Store
from envtui.sources import rollout_follow
from envtui.sources.demo import Demo
from envtui.sources.file_windows import LocalFile
from envtui.sources.rollout_follow import RolloutFollower, read_window
from envtui.vocabulary.stopping import wait_for_stop

STEP = 0.05
WARM_UP_STEPS = 400  # demo steps until every bound is full (20 steps, 100 lines) and caches settle
WARM_UP = 10.0  # and at least these seconds, for what is bounded by time (the status history)
SAMPLE_STEPS = 48  # demo steps between two samples: six turns, so each falls at one point of a turn
SAMPLES = 16  # samples in the measured stretch: 720 steps, 36 s at pace, longer when loaded
BOUND = 600.0  # seconds the whole soak may take before it counts as stalled (a bound)
MAX_SLOPE = 250.0  # bytes per step: a 100-byte object kept per event measured 481
"""The most the trend through the samples may rise per step. One sample is noisy: the demo's
SSH connections come and go by the clock (a login that takes 4 s, a host that drops every
15 s), so what Python holds swings by 50 KiB either way while the steps are counted. The
trend of sixteen samples is steadier, so a leak shows however the machine is loaded. The
trend is the median of the slopes between every two samples (Theil and Sen): one sample
taken while a cache was briefly full moves a least-squares line by 80 B per step under
load, the median hardly at all. Measured beside a CPU hog on both cores, runs without a
leak read 55 to 103 B per step (and up to 138 over 480 steps); the same runs with a
100-byte object kept for every event the store applied read 481."""


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


def median_slope(samples: list[tuple[int, int]]) -> float:
    """The median of the slopes between every two samples: a trend that outliers do not move."""
    return statistics.median(
        (held_b - held_a) / (at_b - at_a)
        for (at_a, held_a), (at_b, held_b) in itertools.combinations(samples, 2)
        if at_b != at_a
    )


async def held_at(store: Store, step: int, deadline: float) -> tuple[int, int]:
    """(steps made, bytes Python holds after a collection) once the demo made ``step``."""
    while store.counters["step"] < step:
        assert asyncio.get_running_loop().time() < deadline, "the soak stalled"
        await asyncio.sleep(STEP)
    gc.collect()
    return store.counters["step"], tracemalloc.get_traced_memory()[0]


async def test_memory_stops_growing_once_the_bounds_are_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rollout_follow, "POLL", STEP)
    # the status history's sums per few seconds fill 512 cells of 5 s (42 minutes) before
    # they merge: bounded by time, not by steps. Cells of a step, eight of them, fill at once.
    monkeypatch.setattr(status_tally, "BUCKET", STEP)
    monkeypatch.setattr(status_tally, "MAX_BUCKETS", 8)
    # every bound small enough to fill in the warm-up, those that fill by time included
    # (the status history, an incident's steps), on a loaded machine too
    store, followed = (  # the demo's, the rollout's
        Store(
            max_log_lines=100,
            max_steps=20,
            environment_events=10,
            status_history=20,
            incident_history=5,
        )
        for _ in range(2)
    )

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
    deadline = asyncio.get_running_loop().time() + BOUND
    try:
        await asyncio.sleep(WARM_UP)
        start, _ = await held_at(store, WARM_UP_STEPS, deadline)
        samples = [await held_at(store, start + n * SAMPLE_STEPS, deadline) for n in range(SAMPLES)]
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
        tracemalloc.stop()
    steps = samples[-1][0] - samples[0][0]
    assert steps >= (SAMPLES - 1) * SAMPLE_STEPS, f"only {steps} steps measured"
    assert followed.counters["step"] > steps / 4, "the rollout was not followed"
    for bounded in (store, followed):
        assert (len(bounded.log), len(bounded.steps)) == (100, 20)
    assert all(len(row.events) <= 10 for row in store.environments.values())
    slope = median_slope(samples)
    assert slope < MAX_SLOPE, (
        f"memory grew {slope:.0f} B per step over {steps} steps after the bounds were full: "
        f"{[held // 1024 for _, held in samples]} KiB"
    )
