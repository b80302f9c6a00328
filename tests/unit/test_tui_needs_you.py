"""The needs-you panel and its keys, driven by Pilot: what Codex waits on is shown with its
environment, and an answer is sent only after the confirmation, with its key.

The answers go to a recording ``answer`` here; that the real app-server receives them and
acts on them is tests/integration/test_codex_approvals.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.support.scenarios.incident_steps import feed
from tests.support.scenarios.operator_requests import (
    COMMAND,
    command_request,
    environments,
    question_request,
    resolved,
    waiting,
)
from tests.support.scenarios.scripted_stream import clock, status
from tests.support.screens_shown import focused_in
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.main_screen import MainScreen
from envtui.tui.needs_you.confirm import ConfirmAnswer
from envtui.tui.needs_you.panel import NeedsYouPanel, ReplyScreen
from envtui.tui.widgets import EnvironmentTable
from envtui.vocabulary.events import Event
from envtui.vocabulary.thread_messages import RequestAnswered

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


class Answers:
    """Stands in for the app-server's side of ``answer``: keeps what it was given."""

    def __init__(self, problem: str | None = None) -> None:
        self.sent: list[RequestAnswered] = []
        self.problem = problem

    def answer(self, answer: RequestAnswered) -> str | None:
        if self.problem is None:
            self.sent.append(answer)
        return self.problem


def make_app(answers: Answers | None) -> EnvTuiApp:
    return EnvTuiApp(None, DashboardOptions(source_name="codex", clock=clock, answers=answers))


@contextlib.asynccontextmanager
async def asked(
    answers: Answers | None, *events: Event
) -> AsyncIterator[tuple[EnvTuiApp, Pilot[Any]]]:
    """The dashboard at 150x44 with the two environments and ``events`` drawn (none given:
    the thread waits on a command's approval)."""
    app = make_app(answers)
    async with app.run_test(size=(150, 44)) as pilot:
        await feed(app, pilot, [*environments(), *(events or (waiting(), command_request()))])
        yield app, pilot


async def confirming(app: EnvTuiApp, pilot: Pilot[Any]) -> ConfirmAnswer:
    """The confirmation, once it is up and takes keys."""
    await pilot_wait_until(
        pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed
    )
    assert isinstance(app.screen, ConfirmAnswer)
    return app.screen


async def confirmed(app: EnvTuiApp, pilot: Pilot[Any], key: str) -> None:
    """Press ``key``, then ``y`` once its confirmation takes keys."""
    await pilot.press(key)
    await confirming(app, pilot)
    await pilot.press("y")


def panel(app: EnvTuiApp) -> str:
    return str(app.screen.query_one(NeedsYouPanel).render())


def header(app: EnvTuiApp) -> str:
    return str(app.screen.query_one("#header", Static).render())


def error_cell(app: EnvTuiApp, environment: str) -> str:
    table = app.screen.query_one(EnvironmentTable)
    return str(table.get_cell(environment, "error"))


async def test_a_pending_approval_names_its_environment_command_cwd_reason_and_wait() -> None:
    async with asked(Answers(), waiting(), command_request(seconds=10)) as (app, _):
        shown = panel(app)
        assert "#0 command on devbox (exec-server, not primary) · waiting 20 s" in shown
        assert f"$ {COMMAND}" in shown
        assert "cwd /w · reason: needs to run outside the sandbox" in shown
        assert "Codex offers: accept, acceptWithExecpolicyAmendment, cancel" in shown
        assert "o: approve once · O: not offered by Codex · x: decline" in shown
        assert app.screen.query_one(NeedsYouPanel).has_class("-visible")
        assert "⚠ waiting on approval" in header(app)
        assert "needs you: an approval waits" in error_cell(app, "devbox")
        assert "needs you" not in error_cell(app, "local")


async def test_o_shows_the_confirmation_and_y_sends_approve_once_with_its_key() -> None:
    answers = Answers()
    async with asked(answers) as (app, pilot):
        await pilot.press("o")
        confirmation = await confirming(app, pilot)
        assert confirmation.line.splitlines() == [
            "approve once #0 (command) on devbox (exec-server, not primary)?",
            f"$ {COMMAND}",
            "cwd /w",
        ]
        assert not answers.sent  # nothing leaves before the operator confirms
        await pilot.press("enter")  # enter does not send
        await pilot.pause()
        assert app.screen is confirmation
        assert not answers.sent
        await pilot.press("y")
        await pilot_wait_until(pilot, lambda: bool(answers.sent))
        (sent,) = answers.sent
        assert (sent.request_id, sent.kind, sent.answer, sent.by, sent.key) == (
            0,
            "command",
            "accept",
            "operator",
            "o",
        )
        assert (sent.environment_id, sent.command) == ("devbox", COMMAND)
        assert isinstance(app.screen, MainScreen)


async def test_escape_at_the_confirmation_sends_nothing() -> None:
    answers = Answers()
    async with asked(answers) as (app, pilot):
        await pilot.press("x")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ConfirmAnswer))
        assert app.screen.line.startswith("decline #0 (command) on devbox")  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert not answers.sent
        assert app.store.needs_you.unanswered()  # it still waits


async def test_approve_for_the_session_is_refused_where_codex_does_not_offer_it() -> None:
    answers = Answers()
    async with asked(answers) as (app, pilot):
        await pilot.press("O")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert not answers.sent
        (notice,) = [n.message for n in app.notices]
        assert "Codex does not offer to approve this for the session" in notice


async def test_approve_for_the_session_is_sent_where_codex_offers_it() -> None:
    answers = Answers()
    offered = ["accept", "acceptForSession", "cancel"]
    async with asked(answers, waiting(), command_request(decisions=offered)) as (app, pilot):
        assert "O: approve for the session" in panel(app)
        await confirmed(app, pilot, "O")
        await pilot_wait_until(pilot, lambda: bool(answers.sent))
        assert [(a.answer, a.key) for a in answers.sent] == [("accept_for_session", "O")]


async def test_a_resolved_request_leaves_the_panel_and_the_table() -> None:
    async with asked(Answers()) as (app, pilot):
        await feed(app, pilot, [resolved(how="withdrawn"), waiting("idle", 21)])
        assert not app.screen.query_one(NeedsYouPanel).has_class("-visible")
        assert "needs you" not in error_cell(app, "devbox")
        assert "idle" in header(app)
        assert "⚠" not in header(app)


async def test_w_moves_the_keys_to_the_next_request() -> None:
    answers = Answers()
    second = command_request(1, 12, environment_id="local", command="/bin/true")
    async with asked(answers, waiting(), command_request(), second) as (app, pilot):
        assert "▶ #0 command" in panel(app)
        await pilot.press("w")
        await pilot_wait_until(
            pilot, lambda: "▶ #1 command on local (local, primary)" in panel(app)
        )
        await confirmed(app, pilot, "x")
        await pilot_wait_until(pilot, lambda: bool(answers.sent))
        assert [(a.request_id, a.answer) for a in answers.sent] == [(1, "decline")]


async def test_questions_are_shown_and_answered_in_text() -> None:
    answers = Answers()
    async with asked(answers, waiting("waiting_on_input"), question_request()) as (app, pilot):
        assert "Colour: Which colour? [red: warm | blue | any text]" in panel(app)
        assert "r: answer · x: decline" in panel(app)
        await pilot.press("r")
        await focused_in(app, pilot, ReplyScreen, Input)
        await pilot.press(*"green, actually")
        await pilot.press("enter")
        confirmation = await confirming(app, pilot)
        assert "colour: green, actually" in confirmation.line
        await pilot.press("y")
        await pilot_wait_until(pilot, lambda: bool(answers.sent))
        (sent,) = answers.sent
        assert (sent.answer, sent.answers, sent.key) == (
            "text",
            {"colour": ["green, actually"]},
            "r",
        )


async def test_a_secret_answer_is_typed_hidden_and_not_repeated() -> None:
    async with asked(Answers(), question_request(secret=True)) as (app, pilot):
        await pilot.press("r")
        box = await focused_in(app, pilot, ReplyScreen, Input)
        assert box.password
        await pilot.press(*"hunter2", "enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ConfirmAnswer))
        assert "hunter2" not in app.screen.line  # type: ignore[attr-defined]
        assert "colour: (secret)" in app.screen.line  # type: ignore[attr-defined]


async def test_a_view_that_cannot_answer_says_so_and_sends_nothing() -> None:
    async with asked(None) as (app, pilot):
        assert "this view cannot answer Codex" in panel(app)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert any("cannot answer Codex" in n.message for n in app.notices)


async def test_an_answer_codex_can_no_longer_take_is_said_and_the_request_stays() -> None:
    async with asked(Answers(problem="request #0 is no longer pending")) as (app, pilot):
        await confirmed(app, pilot, "o")
        await pilot_wait_until(
            pilot,
            lambda: any(
                "not sent: request #0 is no longer pending" in n.message for n in app.notices
            ),
        )


async def test_the_keys_are_in_the_footer_only_while_something_waits() -> None:
    app = make_app(Answers())
    async with app.run_test(size=(150, 44)) as pilot:
        await feed(app, pilot, environments())
        screen = app.screen
        assert screen.check_action("needs_you", ("approve_once",)) is False
        await feed(app, pilot, [waiting(), command_request()])
        assert screen.check_action("needs_you", ("approve_once",)) is True
        assert screen.check_action("pause", ()) is True


async def test_a_request_whose_environment_went_unavailable_says_so_with_its_error() -> None:
    gone = status("devbox", "unavailable", 12, kind="exec-server", error="connection refused")
    async with asked(Answers(), waiting(), command_request(seconds=10), gone) as (app, pilot):
        await pilot_wait_until(pilot, lambda: "unavailable" in panel(app))
        assert (
            "#0 command on devbox (exec-server, not primary, unavailable: connection refused)"
            in panel(app)
        )
        cell = error_cell(app, "devbox")
        assert "needs you: an approval waits" in cell
        assert "connection refused" in cell  # the environment's own error stays beside the mark
        await pilot.press("x")
        confirm = await confirming(app, pilot)
        assert "(exec-server, not primary, unavailable: connection refused)?" in confirm.line
