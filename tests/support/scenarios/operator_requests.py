"""Codex's requests for the operator as envtui events, for the needs-you tests."""

from __future__ import annotations

from typing import Any

from tests.support.scenarios.scripted_stream import at, status

from envtui.vocabulary.events import Event, thread_event
from envtui.vocabulary.thread_messages import (
    Question,
    QuestionOption,
    RequestPending,
    RequestResolved,
    ThreadStatusChanged,
)

THREAD = "01a23412-c807-7751-ac03-59b0f218e26f"
COMMAND = "/bin/bash -lc 'echo remote-output where=$ENVTUI_WHERE; pwd'"
OFFERED = ["accept", "acceptWithExecpolicyAmendment", "cancel"]
"""What the released 0.171.0 offers on every command request."""


def environments() -> list[Event]:
    """local (the primary) and the remote devbox, both ready."""
    return [
        status("local", "ready", 0, kind="local", primary=True, shell="bash", cwd="/w"),
        status("devbox", "ready", 0, kind="exec-server", shell="bash", cwd="/w"),
    ]


def waiting(state: str = "waiting_on_approval", seconds: float = 10) -> Event:
    flags = {
        "waiting_on_approval": ["waitingOnApproval"],
        "waiting_on_input": ["waitingOnUserInput"],
    }
    msg = ThreadStatusChanged(thread=THREAD, status=state, flags=flags.get(state, []))
    return thread_event(msg, at=at(seconds))


def command_request(request_id: int = 0, seconds: float = 10, **fields: Any) -> Event:
    values: dict[str, Any] = {
        "request_id": request_id,
        "kind": "command",
        "method": "item/commandExecution/requestApproval",
        "thread": THREAD,
        "turn": "turn-1",
        "item": f"call_{request_id + 1}",
        "environment_id": "devbox",
        "command": COMMAND,
        "cwd": "/w",
        "reason": "needs to run outside the sandbox",
        "started_at_ms": int(at(seconds).timestamp() * 1000),
        "decisions": OFFERED,
    }
    values.update(fields)
    return thread_event(RequestPending(**values), at=at(seconds))


def question_request(request_id: int = 0, seconds: float = 10, *, secret: bool = False) -> Event:
    question = Question(
        id="colour",
        header="Colour",
        question="Which colour?",
        other=True,
        secret=secret,
        options=[QuestionOption(label="red", description="warm"), QuestionOption(label="blue")],
    )
    msg = RequestPending(
        request_id=request_id,
        kind="user_input",
        method="item/tool/requestUserInput",
        thread=THREAD,
        questions=[question],
        started_at_ms=int(at(seconds).timestamp() * 1000),
    )
    return thread_event(msg, at=at(seconds))


def resolved(request_id: int = 0, how: str = "answered", seconds: float = 20) -> Event:
    msg = RequestResolved(request_id=request_id, how=how, thread=THREAD, environment_id="devbox")
    return thread_event(msg, at=at(seconds))
