"""Approvals on the real ``codex app-server`` 0.171.0, answered from the dashboard.

Codex asks before a command leaves the sandbox (``approval_policy = "on-request"``,
``sandbox_mode = "read-only"``); the loopback model stand-in calls ``exec_command`` with an
escalation on the remote ``devbox`` (a stdio exec-server in the same empty network). What
Codex ran, and what it told the model, is read from what the stand-in recorded and from the
thread's rollout: the ground truth, not envtui's own account.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.support.liveness import alive
from tests.support.real.codex_approvals import WHERE, ApprovalCodex, approval_codex, escalated
from tests.support.real.codex_tools import CODEX_0150, needs_codex, needs_codex_0150
from tests.support.waiting import pilot_wait_until, poll_until, running, wait_until

from envtui.environments.app_server import CodexOptions
from envtui.sources.codex_attach import CodexSource, OperatedCodex
from envtui.sources.recording import recorded
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.needs_you.confirm import ConfirmAnswer
from envtui.tui.needs_you.panel import NeedsYouPanel, ReplyScreen
from envtui.vocabulary.events import Event, decode_event
from envtui.vocabulary.thread_messages import (
    RequestAnswered,
    RequestPending,
    RequestResolved,
    ThreadStatusChanged,
)

pytestmark = [needs_codex, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

DECLINED = (
    'exec_command failed: CreateProcess { message: \\"Rejected(\\\\\\"rejected by user\\\\\\")\\" }'
)
"""How the rollout (JSON) records what the model was told of a declined command."""


def _options(codex: ApprovalCodex, **fields: object) -> CodexOptions:
    values: dict[str, object] = {
        "codex": str(codex.program),
        "codex_home": codex.home,
        "cwd": str(codex.work),
        "poll_interval": 0.3,
        "prompt": "go",
    }
    values.update(fields)
    return CodexOptions(**values)  # type: ignore[arg-type]


async def _confirm(app: EnvTuiApp, pilot: Pilot[Any]) -> None:
    """``y`` at the confirmation, once it takes keys."""
    await pilot_wait_until(
        pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed
    )
    await pilot.press("y")


def _statuses(events: list[Event]) -> list[str]:
    return [e.msg.status for e in events if isinstance(e.msg, ThreadStatusChanged)]


@contextlib.asynccontextmanager
async def _operated_source(
    codex: ApprovalCodex, events: list[Event]
) -> AsyncIterator[tuple[CodexSource, asyncio.Task[None]]]:
    """A source whose requests the test answers, running for the length of the block."""
    source = CodexSource(_options(codex), events.append, operator=True)
    async with running(source.run) as task:
        yield source, task


@contextlib.asynccontextmanager
async def _asked(
    tmp_path: Path, command: str
) -> AsyncIterator[tuple[ApprovalCodex, CodexSource, asyncio.Task[None], list[Event]]]:
    """Codex asking to run ``command`` on devbox outside the sandbox, the request pending:
    the Codex, the source (see :func:`_operated_source`) and the events so far."""
    codex = approval_codex(tmp_path, [escalated(command, "devbox"), {"message": "done"}])
    events: list[Event] = []
    async with _operated_source(codex, events) as (source, task):
        await wait_until(lambda: any(isinstance(e.msg, RequestPending) for e in events), timeout=90)
        yield codex, source, task, events


async def test_an_approval_for_a_remote_is_approved_with_the_key_runs_there_and_a_decline_reaches_the_rollout(
    tmp_path: Path,
) -> None:
    codex = approval_codex(
        tmp_path,
        [
            escalated("echo remote-output where=$ENVTUI_WHERE", "devbox"),
            escalated("echo should-not-run", "devbox"),
            {"message": "done"},
        ],
    )
    operated = OperatedCodex(_options(codex))
    recording = tmp_path / "recording.jsonl"
    app = EnvTuiApp(
        recorded(operated, recording),
        DashboardOptions(source_name="codex", answers=operated),
    )
    async with app.run_test(size=(160, 50)) as pilot:
        store = app.store

        def panel() -> str:
            return str(app.screen.query_one(NeedsYouPanel).render())

        await pilot_wait_until(
            pilot, lambda: bool(store.needs_you.unanswered()), timeout=90, what="the request"
        )
        (request,) = store.needs_you.unanswered()
        assert store.needs_you.status == "waiting_on_approval"
        asked = (request.msg.started_at_ms or 0) / 1000
        bound = time.monotonic() + 60  # a hang guard: the time is printed, never asserted
        while "#0 command on devbox (" not in panel():
            assert time.monotonic() < bound, "timed out after 60 s waiting for the panel"
            await pilot.pause(0.005)  # poll tightly: this is the time measured
        shown = time.time()
        print(f"\nCodex's request to the panel on screen: {(shown - asked) * 1000:.0f} ms")
        assert request.msg.environment_id == "devbox"
        await pilot_wait_until(  # the kind as the live status says it (the rollout's is older)
            pilot, lambda: "devbox (exec-server, not primary)" in panel(), timeout=60
        )
        assert "echo remote-output where=$ENVTUI_WHERE" in panel()
        assert "waiting on approval" in str(app.screen.query_one("#header").render())

        await pilot.press("o")
        await _confirm(app, pilot)
        await pilot_wait_until(
            pilot,
            lambda: any(f"where={WHERE}" in told for told in codex.told()),
            timeout=60,
            what="the command's output, from devbox, in the next model request",
        )
        await pilot_wait_until(
            pilot,
            lambda: [r.msg.request_id for r in store.needs_you.unanswered()] == [1],
            timeout=60,
            what="the second request",
        )
        await pilot.press("x")
        await _confirm(app, pilot)
        await pilot_wait_until(
            pilot,
            lambda: store.needs_you.status == "idle" and DECLINED in codex.rollout(),
            timeout=60,
            what="the turn's end and Codex's decline in the rollout",
        )
        assert not store.needs_you.pending
        assert not app.screen.query_one(NeedsYouPanel).has_class("-visible")
        await pilot.press("q")
    events = [decode_event(line) for line in recording.read_text().splitlines()]
    answers = [e.msg for e in events if isinstance(e.msg, RequestAnswered)]
    assert [(a.request_id, a.answer, a.by, a.key) for a in answers] == [
        (0, "accept", "operator", "o"),
        (1, "decline", "operator", "x"),
    ]
    assert all(e.at is not None for e in events if isinstance(e.msg, RequestAnswered))
    assert [a.sent for a in answers] == [{"decision": "accept"}, {"decision": "decline"}]
    resolved = [(e.msg.request_id, e.msg.how) for e in events if isinstance(e.msg, RequestResolved)]
    assert resolved == [(0, "answered"), (1, "answered")]
    assert "waiting_on_approval" in _statuses(events)
    assert "should-not-run" not in "".join(codex.told()[1:])


def test_read_only_declines_every_request_at_once_and_says_so(tmp_path: Path) -> None:
    codex = approval_codex(
        tmp_path, [escalated("echo should-not-run", "devbox"), {"message": "done"}]
    )
    out = tmp_path / "events.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "envtui", "events", "--codex", str(codex.program),
         "--codex-home", str(codex.home), "--cwd", str(codex.work), "--prompt", "go",
         "--read-only", "--poll-interval", "0.5", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        poll_until(
            lambda: '"status":"idle"' in (out.read_text() if out.exists() else ""),
            timeout=90,
            what="the turn's end",
        )
        poll_until(lambda: DECLINED in codex.rollout(), timeout=30, what="the decline")
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    events = [decode_event(line) for line in out.read_text().splitlines()]
    (answer,) = [e.msg for e in events if isinstance(e.msg, RequestAnswered)]
    assert (answer.answer, answer.by, answer.key, answer.environment_id) == (
        "decline",
        "read-only",
        None,
        "devbox",
    )
    (pending,) = [e for e in events if isinstance(e.msg, RequestPending)]
    answered = next(e for e in events if isinstance(e.msg, RequestAnswered))
    assert pending.at is not None
    assert answered.at is not None
    assert (answered.at - pending.at).total_seconds() < 60  # at once, not after a timeout
    assert any("--read-only: every approval" in json.dumps(e.msg.model_dump()) for e in events)


async def test_a_request_asked_again_on_resume_is_one_request_and_one_answer_resolves_it(
    tmp_path: Path,
) -> None:
    async with _asked(tmp_path, "echo resumed") as (codex, source, _, events):
        rpc = source.client.requests.rpc
        assert rpc is not None
        result = await rpc.request("thread/resume", {"threadId": source.thread_id}, timeout=60)
        assert result["thread"]["status"]["activeFlags"] == ["waitingOnApproval"]
        await wait_until(  # Codex asks again right after the result, under the same id
            lambda: source.client.requests.asked_again == 1, timeout=30, what="asked again"
        )
        asked = [e for e in events if isinstance(e.msg, RequestPending)]
        assert len(asked) == 1
        answer = RequestAnswered(request_id=0, kind="command", answer="accept", key="o")
        assert source.answer(answer) is None
        assert source.answer(answer) == "request #0 is already answered"
        await wait_until(
            lambda: any(isinstance(e.msg, RequestResolved) for e in events),
            timeout=30,
            what="resolved",
        )
        await wait_until(
            lambda: any("resumed" in told for told in codex.told()),
            timeout=60,
            what="the command's output in the next model request",
        )
        assert len([e for e in events if isinstance(e.msg, RequestPending)]) == 1


async def test_a_request_pending_when_the_app_server_dies_is_gone_not_waiting_for_ever(
    tmp_path: Path,
) -> None:
    async with _asked(tmp_path, "echo cut-off") as (_, source, task, events):
        pid = source.client.app_server_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await asyncio.wait_for(task, timeout=30)  # without a restart backoff, a death ends it
        gone = [e.msg for e in events if isinstance(e.msg, RequestResolved)]
        assert [(g.request_id, g.how) for g in gone] == [(0, "gone")]
        assert _statuses(events)[-1] == "not_loaded"
        answer = RequestAnswered(request_id=0, kind="command", answer="accept")
        assert source.answer(answer) == "request #0 is no longer pending"
        assert not alive(pid)


def test_a_failed_start_names_codexs_error_line_not_a_backtrace_frame(tmp_path: Path) -> None:
    codex = approval_codex(tmp_path, [], config='approval_policy = "untrusted"\n')
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "events", "--codex", str(codex.program),
         "--codex-home", str(codex.home), "--cwd", str(codex.work), "--duration", "30"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "RUST_BACKTRACE": "1"},
    )  # fmt: skip
    assert result.returncode == 1
    assert (
        'codex app-server exited with status 1: Error: approval_policy = "untrusted" is no '
        "longer supported; remove this setting"
    ) in result.stderr
    assert "<unknown>" not in result.stderr


async def test_codexs_questions_are_shown_and_answered_in_text_from_the_dashboard(
    tmp_path: Path,
) -> None:
    question = {
        "id": "colour",
        "header": "Colour",
        "question": "Which colour?",
        "options": [
            {"label": "red", "description": "warm"},
            {"label": "blue", "description": "cold"},
        ],
    }
    ask = {"name": "request_user_input", "arguments": json.dumps({"questions": [question]})}
    codex = approval_codex(tmp_path, [{"function_call": ask}, {"message": "done"}])
    operated = OperatedCodex(_options(codex, prompt=None))
    app = EnvTuiApp(operated, DashboardOptions(source_name="codex", answers=operated))
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot_wait_until(
            pilot, lambda: app.store.sources.get("app-server") is not None, timeout=90
        )
        assert operated.attached is not None
        rpc = operated.attached.client.requests.rpc
        assert rpc is not None
        plan = {"mode": "plan", "settings": {"model": "gpt-6.2-sol"}}  # questions need plan mode
        await rpc.request(
            "turn/start",
            {
                "threadId": operated.attached.thread_id,
                "input": [{"type": "text", "text": "ask me"}],
                "collaborationMode": plan,
            },
            timeout=60,
        )

        def panel() -> str:
            return str(app.screen.query_one(NeedsYouPanel).render())

        await pilot_wait_until(
            pilot, lambda: "Colour: Which colour?" in panel(), timeout=60, what="the question"
        )
        assert app.store.needs_you.status == "waiting_on_input"
        await pilot.press("r")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ReplyScreen))
        await pilot.press(*"green, actually", "enter")
        await _confirm(app, pilot)
        await pilot_wait_until(
            pilot,
            lambda: any("green, actually" in told for told in codex.told()),
            timeout=60,
            what="the answer in the next model request",
        )
        await pilot.press("q")


@needs_codex_0150
async def test_0150_asks_in_the_same_words_and_takes_the_same_answers(tmp_path: Path) -> None:
    codex = approval_codex(
        tmp_path,
        [escalated("echo approved-output"), escalated("echo should-not-run"), {"message": "done"}],
        environments="",
        codex=CODEX_0150,
    )
    events: list[Event] = []
    async with _operated_source(codex, events) as (source, _):

        def asked() -> list[int | str]:
            return [e.msg.request_id for e in events if isinstance(e.msg, RequestPending)]

        for number, answer in enumerate(("accept", "decline")):
            await wait_until(lambda: len(asked()) > number, timeout=90, what=f"request #{number}")  # noqa: B023
            reply = RequestAnswered(request_id=number, kind="command", answer=answer, key="o")
            assert source.answer(reply) is None
        await wait_until(
            lambda: "rejected by user" in codex.rollout(), timeout=60, what="the decline"
        )
        pending = [e.msg for e in events if isinstance(e.msg, RequestPending)]
        assert [(a.environment_id, a.decisions[0]) for a in pending] == [("local", "accept")] * 2
        assert any("approved-output" in told for told in codex.told())


async def test_a_request_left_unanswered_is_withdrawn_when_its_turn_is_interrupted(
    tmp_path: Path,
) -> None:
    codex = approval_codex(tmp_path, [escalated("echo never", "devbox"), {"message": "done"}])
    operated = OperatedCodex(_options(codex))
    app = EnvTuiApp(operated, DashboardOptions(source_name="codex", answers=operated))
    async with app.run_test(size=(160, 50)) as pilot:
        needs_you = app.store.needs_you
        await pilot_wait_until(
            pilot,
            lambda: (
                bool(needs_you.unanswered())
                and app.screen.query_one(NeedsYouPanel).has_class("-visible")
            ),
            timeout=90,
            what="the request in the store and its panel drawn (a frame later)",
        )
        (request,) = needs_you.unanswered()
        assert operated.attached is not None
        rpc = operated.attached.client.requests.rpc
        assert rpc is not None
        await rpc.request(  # as another client of the thread would (Codex never times it out)
            "turn/interrupt",
            {"threadId": request.msg.thread, "turnId": request.msg.turn},
            timeout=60,
        )
        await pilot_wait_until(
            pilot,
            lambda: (
                not needs_you.pending
                and not app.screen.query_one(NeedsYouPanel).has_class("-visible")
                and needs_you.status == "idle"
            ),
            timeout=60,
            what="the request gone from the panel and the thread idle",
        )
        resolved = [e for e in app.store.log if e.kind == "request_resolved"]
        assert [e.text for e in resolved] == [
            "request_resolved #0 withdrawn by Codex (no answer needed any more)"
        ]
        await pilot.press("q")
