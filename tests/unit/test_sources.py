"""The dashboard's sources without the dashboard: replay, rollout, watch, and recording."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.support.data.handmade_rollouts import RolloutWriter, function_tool
from tests.support.scenarios.dashboard_pilot import settled
from tests.support.scenarios.scripted_stream import clock, scripted_events, scripted_source
from tests.support.waiting import wait_until

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.dashboard.store import Store
from envtui.settings.config import parse_config
from envtui.sources import rollout_follow
from envtui.sources.engine import watch
from envtui.sources.pace import MAX_SLICE, SLICE, next_slice
from envtui.sources.recording import recorded
from envtui.sources.replay import replay
from envtui.sources.rollout_follow import follow_rollout
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.vocabulary.events import (
    Event,
    FindingReported,
    StepRecorded,
    WarningMessage,
    decode_lines,
    encode_event,
    thread_event,
)

LOCAL = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)
DEVBOX = EnvironmentState(cwd="/repo", shell="zsh")


async def test_replay_applies_every_event_and_reports_a_broken_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    lines = [encode_event(event) for event in scripted_events()]
    lines.insert(2, "{broken")
    path.write_text("\n".join(lines) + "\n")
    received: list[Event] = []
    await replay(path, received.append, asyncio.Event(), speed=0)
    assert len(received) == len(scripted_events()) + 1
    warnings = [e.msg for e in received if isinstance(e.msg, WarningMessage)]
    assert len(warnings) == 1
    assert "line 3" in warnings[0].message


async def test_replay_keeps_the_recorded_pace_times_the_speed(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(
        "\n".join(encode_event(e) for e in scripted_events()[:4]) + "\n"
    )  # 2 s recorded
    started = asyncio.get_running_loop().time()
    await replay(path, lambda event: None, asyncio.Event(), speed=10)
    assert asyncio.get_running_loop().time() - started >= 0.15


async def test_rollout_follow_emits_steps_and_findings_and_follows_growth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rollout_follow, "POLL", 0.05)  # the growth is read at the next poll
    writer = RolloutWriter()
    writer.turn()
    apply_patch = {
        "type": "custom",
        "name": "apply_patch",
        "format": {"type": "grammar", "definition": "start: patch"},
    }
    writer.tools(
        function_tool("exec_command"),
        function_tool("write_stdin"),
        function_tool("view_image"),
        apply_patch,
    )
    writer.step(EnvironmentsState(environments={"local": LOCAL}))
    writer.call("exec_command", {"cmd": "ls"})
    writer.output()
    path = tmp_path / "rollout.jsonl"
    writer.append_to(path)
    store = Store()
    stop = asyncio.Event()
    task = asyncio.ensure_future(follow_rollout(path, store.apply, stop, follow=True))
    # Shown as soon as its context is recorded, before the turn ends.
    await wait_until(lambda: [s.number for s in store.steps] == [1], what="step 1")
    writer.step(
        EnvironmentsState(environments={"local": LOCAL, "devbox": DEVBOX})
    )  # no environment_id: a finding
    writer.call("exec_command", {"cmd": "ls"})
    writer.end_turn()
    writer.append_to(path)
    await wait_until(lambda: len(store.steps) == 2, what="the rollout's growth to be followed")
    stop.set()
    await asyncio.wait_for(task, timeout=5)
    assert [s.number for s in store.steps] == [1, 2]
    assert store.thread == "01a22a73-bda3-7d50-96a2-a5269a5918d4"
    assert [(f.step, f.code, f.tool) for f in store.findings()] == [
        (2, "missing-environment-id", "exec_command, view_image")
    ]


async def test_watch_runs_the_configured_environments_with_steps(tmp_path: Path) -> None:
    config = parse_config(
        f'step_interval = 0.2\n[[environments]]\nid = "local"\nkind = "local"\ncwd = "{tmp_path}"\n'
    )
    received: list[Event] = []
    stop = asyncio.Event()
    task = asyncio.ensure_future(watch(config, received.append, stop))

    def steps() -> list[StepRecorded]:
        return [e.msg for e in received if isinstance(e.msg, StepRecorded)]

    await wait_until(lambda: len(steps()) >= 3, what="three steps")
    stop.set()
    await asyncio.wait_for(task, timeout=5)
    assert [step.step for step in steps()[:3]] == [1, 2, 3]
    first = steps()[0]
    assert first.text is not None
    assert f"<cwd>{tmp_path}</cwd>" in first.text
    assert not [e for e in received if isinstance(e.msg, FindingReported)]


@pytest.mark.tui
async def test_record_writes_every_event_the_dashboard_saw(tmp_path: Path) -> None:
    record = tmp_path / "session.jsonl"
    app = EnvTuiApp(
        recorded(scripted_source, record), DashboardOptions(source_name="test", clock=clock)
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(app, pilot)
        await pilot.press("q")
    written = [e for e in decode_lines(record.read_text().splitlines()) if isinstance(e, Event)]
    assert written == scripted_events()


def test_a_replay_reads_longer_between_turns_the_longer_a_turn_of_the_loop_takes() -> None:
    """Reading keeps two thirds of the time however slow a frame is, within bounds that
    keep the screen moving and keys answered."""
    assert next_slice(0.0) == SLICE
    assert next_slice(0.05) == pytest.approx(0.1)
    assert next_slice(0.1) == pytest.approx(0.2)
    assert next_slice(10.0) == MAX_SLICE


async def test_a_replay_as_fast_as_possible_lets_the_loop_run_while_it_reads(
    tmp_path: Path,
) -> None:
    """Another task (the screen) gets turns while a large file is read, not only at its end."""
    path = tmp_path / "events.jsonl"
    event = thread_event(WarningMessage(message="w"), at=datetime(2026, 11, 30, tzinfo=UTC))
    path.write_text((encode_event(event) + "\n") * 10_000)
    received: list[Event] = []
    turns_while_reading: list[int] = []
    done = asyncio.Event()

    async def screen() -> None:
        while not done.is_set():
            turns_while_reading.append(len(received))
            await asyncio.sleep(0)

    other = asyncio.ensure_future(screen())
    await replay(path, received.append, asyncio.Event(), speed=0)
    done.set()
    await other
    assert len(received) == 10_000
    assert any(0 < seen < 10_000 for seen in turns_while_reading)
