"""The embedded demo keeps every panel busy: statuses of all kinds, both findings in view."""

from __future__ import annotations

import asyncio
import contextlib

from envtui.sources.demo import run_demo
from envtui.store import Store


async def test_after_five_seconds_something_is_always_ready_starting_and_unavailable() -> None:
    store = Store()
    stop = asyncio.Event()
    task = asyncio.ensure_future(run_demo(store.apply, stop, step_interval=0.5, turn_steps=16))
    try:
        await asyncio.sleep(5.5)
        seen_codes: set[str] = set()
        for _ in range(16):  # eight seconds, checked twice a second
            statuses = {row.status for row in store.environments.values()}
            assert {"ready", "starting", "unavailable"} <= statuses, statuses
            assert store.primary in {"local", "build"}
            seen_codes |= {finding.code for finding, _ in store.finding_groups()}
            await asyncio.sleep(0.5)
        assert {"execution-routed-elsewhere", "stale-available"} <= seen_codes
        codes_in_view = {finding.code for finding, _ in store.finding_groups()}
        assert {"execution-routed-elsewhere", "stale-available"} <= codes_in_view
        assert store.steps
        assert store.steps[-1].text is not None
        assert store.steps[-1].text.startswith("<environment_context>")
        assert store.counters["environment_connected"] >= 3
        assert store.counters["environment_disconnected"] >= 1
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=20)
