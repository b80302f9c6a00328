"""A Codex rollout as an event source: each step's record and findings, optionally followed.

Steps are emitted as ``step`` and ``finding`` events, exactly what the engine emits, so the
dashboard shows a rollout like a live run. With ``follow`` the file is re-read as it grows
and only new steps are emitted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from envtui.context.render import render_full
from envtui.context.snapshot import restore_snapshot
from envtui.events import (
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    EventSink,
    StepRecorded,
    StepTool,
    WarningMessage,
    thread_event,
)
from envtui.profiles import Profile
from envtui.sources.rollout_parent import ParentRollouts
from envtui.steps.check import check_rollout
from envtui.steps.events import finding_event, recorded_statuses
from envtui.steps.rollout import Rollout, RolloutStep, read_rollout
from envtui.stopping import wait_for_stop

POLL = 1.0


RolloutLoader = Callable[[], Awaitable["Rollout | None"]]


async def follow_rollout(
    path: Path,
    sink: EventSink,
    stop: asyncio.Event,
    *,
    follow: bool = False,
    profile: Profile | None = None,
    connection_events: Callable[[], list[Event]] | None = None,
) -> None:
    """Emit a local rollout file's steps (see :func:`follow_steps`)."""

    async def load() -> Rollout | None:
        try:
            return read_rollout(path, baseline=ParentRollouts(path))
        except OSError as exc:
            sink(
                thread_event(WarningMessage(message=f"{path}: cannot read: {exc.strerror or exc}"))
            )
            return None

    await follow_steps(
        load,
        str(path),
        sink,
        stop,
        follow=follow,
        profile=profile,
        connection_events=connection_events,
    )


async def follow_steps(
    load: RolloutLoader,
    name: str,
    sink: EventSink,
    stop: asyncio.Event,
    *,
    follow: bool = False,
    profile: Profile | None = None,
    connection_events: Callable[[], list[Event]] | None = None,
) -> None:
    """Emit the steps of the rollout ``load`` returns, re-loading as it grows when following.

    ``connection_events`` (the notifications seen so far) lets the stale-available rule run.
    """
    emitted = 0
    shown: dict[str, EnvironmentStatus] = {}  # the table: what the last step recorded
    warned_lines: set[int] = set()
    while not stop.is_set():
        rollout = await load()
        if rollout is not None:
            emitted = _emit_new_steps(
                rollout,
                emitted,
                sink,
                follow=follow,
                profile=profile,
                connection_events=connection_events,
                shown=shown,
            )
            for line in rollout.bad_lines:
                # the last line may be half-written by a Codex still writing: not yet broken
                if line not in warned_lines and line != rollout.lines:
                    warned_lines.add(line)
                    sink(
                        thread_event(
                            WarningMessage(message=f"{name}: line {line} is not JSON; skipped")
                        )
                    )
        if not follow:
            return
        await wait_for_stop(stop, POLL)


def _emit_new_steps(
    rollout: Rollout,
    emitted: int,
    sink: EventSink,
    *,
    follow: bool,
    profile: Profile | None,
    connection_events: Callable[[], list[Event]] | None,
    shown: dict[str, EnvironmentStatus],
) -> int:
    chosen = profile or rollout.default_profile()[0]
    events = connection_events() if connection_events is not None else None
    report = check_rollout(rollout, chosen, events=events)
    for step, step_report in zip(rollout.steps, report.steps, strict=True):
        settled = step.complete or step.world_state_line is not None
        if step.number <= emitted or (follow and not settled):
            continue  # shown once its context is recorded (or it is complete)
        tools = None
        if step.tools is not None:
            tools = [StepTool(name=t.name, environment_id=t.environment_id) for t in step.tools]
        record = StepRecorded(
            step=step.number,
            thread=rollout.thread_id,
            text=_full_text(step),
            diff=step.context_text,
            snapshot=step.section,
            tools=tools,
            notes=step_report.notes,
        )
        sink(thread_event(record, at=step.at))
        _show_recorded(step, shown, sink)
        for finding in step_report.findings:
            sink(thread_event(finding_event(finding), at=step.at))
        emitted = step.number
    return emitted


def _full_text(step: RolloutStep) -> str | None:
    """Everything the model knows at the step: the full render of its recorded snapshot."""
    state = restore_snapshot(step.section) if step.section is not None else None
    return render_full(state) if state is not None else None


def _show_recorded(step: RolloutStep, shown: dict[str, EnvironmentStatus], sink: EventSink) -> None:
    """The environments table from the step's snapshot: only what changed is emitted."""
    current = recorded_statuses(step.section, step.number)
    for env_id in [e for e in shown if e not in current]:
        del shown[env_id]
        sink(thread_event(EnvironmentRemoved(environment_id=env_id), at=step.at))
    for env_id, status in current.items():
        before = shown.get(env_id)
        if before is None or before.model_copy(update={"recorded_step": step.number}) != status:
            sink(thread_event(status, at=step.at))
        shown[env_id] = status
