"""The embedded demo keeps every panel busy: statuses of all kinds, both findings in view,
and incidents that open and resolve as its flaky host drops and comes back."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from pathlib import Path

from tests.support.waiting import wait_until

from envtui.dashboard.status_history import Transition
from envtui.dashboard.store import Store
from envtui.sources.demo import run_demo
from envtui.sources.replay import replay
from envtui.vocabulary.events import Event, encode_event


async def test_once_started_something_is_always_ready_starting_and_unavailable() -> None:
    """The demo's "after the first five seconds" is that time on an idle machine: how soon
    it gets there is the start-up of its SSH servers (host keys made, key exchanges), so
    the test waits for it with a hang guard; that it stays so is checked at every poll."""
    store = Store()
    stop = asyncio.Event()
    task = asyncio.ensure_future(run_demo(store.apply, stop, step_interval=0.5, turn_steps=16))
    seen_codes: set[str] = set()

    def busy() -> bool:
        statuses = {row.status for row in store.environments.values()}
        return {"ready", "starting", "unavailable"} <= statuses

    def stays_busy_until_both_findings_are_seen() -> bool:
        """Checked at every poll, 100 times a second; a finding once in view stays in view."""
        statuses = {row.status for row in store.environments.values()}
        assert {"ready", "starting", "unavailable"} <= statuses, statuses
        assert store.primary in {"local", "build"}
        codes_in_view = {incident.code for incident in store.incidents.incidents()}
        assert seen_codes <= codes_in_view, f"out of view: {seen_codes - codes_in_view}"
        seen_codes.update(codes_in_view)
        both_seen = {"execution-routed-elsewhere", "stale-available"} <= seen_codes
        return both_seen and store.counters["environment_disconnected"] >= 1

    try:
        await wait_until(busy, what="ready, starting and unavailable environments")
        # The ghost host leaves after eight seconds; stale-available follows at the next step.
        await wait_until(stays_busy_until_both_findings_are_seen, what="both findings")
        codes_in_view = {incident.code for incident in store.incidents.incidents()}
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


async def test_the_flaky_hosts_incident_resolves_when_it_comes_back() -> None:
    """flaky drops every 15 s and reconnects: while it is down the snapshot still calls it
    available (stale-available); once it is back, the incident resolves, and the banner's
    count (active, unacknowledged) goes back down."""
    store = Store()
    stop = asyncio.Event()
    task = asyncio.ensure_future(run_demo(store.apply, stop, step_interval=0.5, turn_steps=16))

    def flaky_incidents() -> list[str]:
        return [i.state for i in store.incidents.incidents() if i.environment_id == "flaky"]

    try:
        await wait_until(lambda: "resolved" in flaky_incidents(), timeout=90, what="recovery")
        (resolved,) = [
            i
            for i in store.incidents.incidents()
            if i.environment_id == "flaky" and i.state == "resolved"
        ]
        assert resolved.code == "stale-available"
        assert resolved.resolved_step is not None
        assert resolved.last_step is not None
        assert resolved.resolved_step > resolved.last_step >= (resolved.first_step or 0)
        assert store.environments["flaky"].status == "ready"
        assert all(i.environment_id != "flaky" for i in store.incidents.active())
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=20)


async def test_a_recording_of_the_demo_replays_into_the_same_status_history(tmp_path: Path) -> None:
    """The demo's real SSH hosts drop and come back; its recording, replayed at full speed
    long after, gives every environment the same transitions at the same times, and the
    flaky host's drop is a flap in both."""
    live = Store()
    recorded: list[Event] = []

    def sink(event: Event) -> None:
        live.apply(event)
        recorded.append(event)

    stop = asyncio.Event()
    task = asyncio.ensure_future(run_demo(sink, stop, step_interval=0.5))
    try:

        def flaky_came_back() -> bool:
            row = live.environments.get("flaky")
            states = [t.status for t in row.history.transitions] if row is not None else []
            return "unavailable" in states[1:] and states[-1] == "ready"

        await wait_until(flaky_came_back, timeout=90, what="flaky dropped and came back")
    finally:
        stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=20)
    path = tmp_path / "demo.jsonl"
    path.write_text("".join(encode_event(e) + "\n" for e in recorded), encoding="utf-8")
    replayed = Store()
    await replay(path, replayed.apply, asyncio.Event(), speed=0)

    def histories(store: Store) -> dict[str, list[Transition]]:
        return {i: list(row.history.transitions) for i, row in store.environments.items()}

    assert histories(replayed) == histories(live)
    flaky = replayed.environments["flaky"].history
    first, last = flaky.transitions[0].at, flaky.transitions[-1].at
    assert flaky.flaps(first - timedelta(seconds=1), last + timedelta(seconds=1)) >= 1
    ghost = replayed.environments["ghost"].history
    assert ghost.transitions[-1].status in ("unavailable", "starting")  # its host left
