"""Untrusted text in every field of every event, and in every notice, never reaches the
screen as a control: each view, detail screen and toast is drawn, and what it draws holds
no ESC, C1, bidi or zero-width character, only their visible escapes.

A Pilot walk, here rather than in ``tests/unit`` for its time: it draws the whole dashboard
some ten times, every widget full of long escaped text.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from tests.support.data.hostile_text import VISIBLE, X, active_characters
from tests.support.scenarios.scripted_stream import at, clock
from tests.support.screens_shown import screen_shown
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.incidents_view import IncidentList
from envtui.tui.main_screen import MainScreen
from envtui.tui.screens import TextScreen
from envtui.tui.widgets import ContextPanel, EnvironmentTable
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    EventSink,
    FindingReported,
    StepRecorded,
    StepTool,
    UnknownMessage,
    WarningMessage,
    thread_event,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def hostile_events() -> list[Event]:
    snapshot = {
        "environments": {X: {"cwd": X, "status": "available", "shell": X}},
        "current_date": X,
        "timezone": X,
    }
    return [
        thread_event(
            EnvironmentStatus(
                environment_id=X,
                kind=X,
                status="ready",
                primary=True,
                shell=X,
                shell_path=X,
                cwd=X,
                error=None,
            ),
            at=at(1),
        ),
        thread_event(
            EnvironmentStatus(environment_id="b" + X, kind=X, status="unavailable", error=X),
            at=at(2),
        ),
        thread_event(EnvironmentConnected(environment_id=X), at=at(3)),
        thread_event(EnvironmentDisconnected(environment_id="b" + X), at=at(4)),
        thread_event(EnvironmentRemoved(environment_id="c" + X), at=at(5)),
        thread_event(WarningMessage(message=X, environment_id=X), at=at(6)),
        thread_event(WarningMessage(message="info " + X, severity="info"), at=at(6)),
        thread_event(WarningMessage(message="codex app-server exited: " + X, severity="error")),
        thread_event(
            StepRecorded(
                step=1,
                thread=X,
                text=X,
                diff=X,
                snapshot=snapshot,
                patch=snapshot,
                tools=[StepTool(name=X, environment_id="required")],
                notes=[X],
            ),
            at=at(7),
        ),
        thread_event(
            FindingReported(code=X, severity="error", step=1, tool=X, environment_id=X, message=X),
            at=at(8),
        ),
        thread_event(FindingReported(code="thread-" + X, severity="warning", message=X)),
        thread_event(UnknownMessage(type=X, raw={"type": X, "method": X})),
    ]


def hostile_source(events: list[Event]) -> object:
    async def source(sink: EventSink, stop: asyncio.Event) -> None:
        for event in events:
            sink(event)
        raise RuntimeError("the source broke: " + X)

    return source


def hostile_theme(home: Path) -> None:
    themes = home / "envtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "a.toml").write_text(
        'name = "a"\nprimary = "#112233"\n[variables]\n'
        '"x\\u001b]2;THEME-TITLE\\u0007" = "#000000"\n'
    )


async def test_every_view_screen_and_notice_is_inert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    hostile_theme(tmp_path)
    events = hostile_events()
    options = DashboardOptions(source_name="rollout " + X, clock=clock, theme="t" + X)
    app = EnvTuiApp(hostile_source(events), options)  # type: ignore[arg-type]
    seen: list[str] = []
    toasts: list[str] = []  # what reaches Textual's notify, however long each toast lasts
    textual_notify = App.notify

    def recording(self: App[None], message: str, **options: Any) -> None:
        toasts.append(message + options.get("title", ""))
        textual_notify(self, message, **options)

    monkeypatch.setattr(App, "notify", recording)

    def check(where: str) -> None:
        drawn = app.export_screenshot()
        assert active_characters(drawn) == [], where
        seen.append(drawn)

    def shows_visible() -> bool:
        """The hostile text, shown escaped, is drawn (a frame is applied after a pause)."""
        return VISIBLE in app.export_screenshot()

    async with app.run_test(size=(120, 40)) as pilot:

        def all_in() -> bool:
            return app.store.counters["total"] >= len(events) and len(toasts) >= 4

        await pilot_wait_until(pilot, all_in, what="every event and notice")
        assert all(active_characters(toast) == [] for toast in toasts)
        messages = "\n".join(toasts)
        assert "the source stopped: the source broke: \\x1b]2;TITLE" in messages
        assert "THEME-TITLE" in messages  # the theme notice was shown, inert
        assert f"unknown theme 't{VISIBLE}" in messages
        await pilot_wait_until(pilot, shows_visible, what="the escaped text on the main screen")
        check("main screen with header, banner, table, log, context, tools, findings, toasts")
        assert VISIBLE in seen[-1]
        app.screen.query_one(ContextPanel).focus()  # d is the context's key
        for view in ("diff", "snapshot", "patch"):
            await pilot.press("d")
            await pilot.pause(0.05)
            check(f"context {view}")
        table = app.screen.query_one(EnvironmentTable)
        table.filter = X
        await pilot.pause(0.05)
        check("a filter holding control characters")
        table.filter = ""
        await pilot.pause(0.05)
        table.focus()  # enter is the table's key (and the incidents')
        await pilot.press("enter")
        details = await screen_shown(app, pilot, TextScreen)
        await pilot_wait_until(pilot, lambda: bool(body(details)), what="the details drawn")
        check("environment details")
        await pilot.press("escape")
        await screen_shown(app, pilot, MainScreen)
        app.screen.query_one(IncidentList).focus()
        await pilot.press("enter")
        history = await screen_shown(app, pilot, TextScreen)
        await pilot_wait_until(  # the details screen is modal: the main screen shows below it
            pilot, lambda: VISIBLE in body(history), what="the escaped text in the details"
        )
        check("finding details")
        assert VISIBLE in seen[-1]
        await pilot.press("escape")


def body(screen: TextScreen) -> str:
    """The text a details screen shows."""
    return str(screen.query_one("#text-body").render())
