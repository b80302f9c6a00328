"""A scripted event stream for dashboard tests: fixed times, every panel has something."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.context.render import render_full
from envtui.context.snapshot import snapshot
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    FindingReported,
    StepRecorded,
    StepTool,
    thread_event,
)

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def clock() -> datetime:
    return T0 + timedelta(seconds=30)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def status(env_id: str, state: str, seconds: float, **fields: Any) -> Event:
    kind = fields.pop("kind", "ssh")
    msg = EnvironmentStatus(environment_id=env_id, kind=kind, status=state, **fields)
    return thread_event(msg, at=at(seconds))


def local_ready(seconds: float, *, primary: bool) -> Event:
    """The local environment ready, in bash at /repo."""
    return status(
        "local",
        "ready",
        seconds,
        kind="local",
        primary=primary,
        shell="bash",
        shell_path="/bin/bash",
        cwd="/repo",
    )


def step_state(number: int) -> EnvironmentsState:
    envs = {
        "local": EnvironmentState(cwd="/repo", shell="bash", is_primary=number == 1),
        "build": EnvironmentState(cwd="/srv/build", shell="zsh", is_primary=number > 1)
        if number > 1
        else EnvironmentState(cwd="/srv/build", status="starting"),
    }
    return EnvironmentsState(environments=envs, current_date="2026-11-30", timezone="Europe/Berlin")


def step_event(number: int, seconds: float) -> Event:
    state = step_state(number)
    text = render_full(state)
    return thread_event(
        StepRecorded(
            step=number,
            thread="thread-1",
            text=text,
            diff=text
            if number == 1
            else text.replace("  <current_date>2026-11-30</current_date>\n", ""),
            snapshot=snapshot(state),
            patch={"environments": snapshot(state)},
            tools=[
                StepTool(name="exec_command", environment_id="optional"),
                StepTool(name="write_stdin"),
            ],
        ),
        at=at(seconds),
    )


def scripted_events() -> list[Event]:
    return [
        status("build", "starting", 0, cwd="/srv/build"),
        status("local", "starting", 0, kind="local", cwd="/repo"),
        local_ready(1, primary=True),
        status(
            "legacy",
            "unavailable",
            2,
            cwd="/",
            error="host key mismatch: the key [127.0.0.1]:2222 differs",
        ),
        step_event(1, 3),
        thread_event(EnvironmentConnected(environment_id="build"), at=at(4)),
        status(
            "build", "ready", 4, primary=True, shell="zsh", shell_path="/bin/zsh", cwd="/srv/build"
        ),
        local_ready(4, primary=False),
        step_event(2, 5),
        thread_event(EnvironmentDisconnected(environment_id="build"), at=at(6)),
        status(
            "build", "unavailable", 6, cwd="/srv/build", error="connection lost: Connection lost"
        ),
        local_ready(6, primary=True),
        thread_event(
            FindingReported(
                code="stale-available",
                severity="error",
                step=2,
                environment_id="build",
                message="the context presents 'build' as available, but the connection is known to be lost",
            ),
            at=at(7),
        ),
        thread_event(
            FindingReported(
                code="execution-routed-elsewhere",
                severity="error",
                step=1,
                tool="exec_command",
                environment_id="build",
                message="exec_command ran in 'build', but the step routed to the step's primary 'local'",
            ),
            at=at(7),
        ),
    ]


async def scripted_source(sink, stop) -> None:  # type: ignore[no-untyped-def]
    """The scripted events, then nothing until stopped, as a live source that stays up."""
    for event in scripted_events():
        sink(event)
    await stop.wait()
