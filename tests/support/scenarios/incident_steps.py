"""A dashboard fed steps whose checks raise findings, for the incidents' Pilot tests."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.support.scenarios.scripted_stream import at, clock
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.main_screen import MainScreen
from envtui.vocabulary.events import Event, FindingReported, StepRecorded, thread_event


def step(number: int, *raised: tuple[str, str]) -> list[Event]:
    """Step ``number``, whose check raised ``(code, environment)`` for each of ``raised``."""
    record = StepRecorded(
        step=number,
        diff=f"<environment_context>\n  <cwd>/step-{number}</cwd>\n</environment_context>",
        unchecked=[],
        findings=len(raised),
    )
    findings = [
        FindingReported(
            code=code, severity="error", step=number, environment_id=env, message=f"{env} bad"
        )
        for code, env in raised
    ]
    return [thread_event(m, at=at(number)) for m in (record, *findings)]


def make_app() -> EnvTuiApp:
    return EnvTuiApp(None, DashboardOptions(source_name="test", clock=clock))


async def feed(app: EnvTuiApp, pilot: Pilot[Any], events: list[Event]) -> None:
    """Ingest ``events`` and wait until a frame has drawn them."""
    for event in events:
        app.ingest(event)
    assert isinstance(app.screen, MainScreen)
    await pilot_wait_until(pilot, lambda: not app.store.has_changes, what="the frame")
