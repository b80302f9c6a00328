"""The store's fold of what Codex waits on: pending until resolved, once per request, bounded;
its log lines, its alert, and its events through the codec."""

from __future__ import annotations

from tests.support.scenarios.operator_requests import (
    THREAD,
    command_request,
    environments,
    question_request,
    resolved,
    waiting,
)
from tests.support.scenarios.scripted_stream import at

from envtui.dashboard.needs_you import NeedsYou
from envtui.dashboard.store import Store
from envtui.vocabulary.events import decode_event, encode_event, thread_event
from envtui.vocabulary.thread_messages import RequestAnswered, RequestPending


def test_a_request_is_pending_until_codex_resolves_it_even_once_answered() -> None:
    store = Store()
    store.apply_all([*environments(), waiting(), command_request()])
    assert store.needs_you.status == "waiting_on_approval"
    assert store.needs_you.waiting == ("approval",)
    assert store.environments["devbox"].waiting == 1
    answer = RequestAnswered(request_id=0, kind="command", answer="accept", key="o", thread=THREAD)
    store.apply(thread_event(answer, at=at(15)))
    (request,) = store.needs_you.requests()
    assert request.answer is not None  # answered, and still shown until Codex says resolved
    assert store.environments["devbox"].waiting == 0
    store.apply(resolved())
    assert not store.needs_you.pending


def test_the_same_request_asked_again_is_one_and_alerts_once() -> None:
    store = Store()
    store.apply_all([*environments(), command_request(), command_request()])
    assert len(store.needs_you.pending) == 1
    alerts = [a for a in store.alerts.take() if a.kind == "request_pending"]
    assert len(alerts) == 1
    (alert,) = alerts
    assert alert.summary() == (
        "needs you: command on devbox: /bin/bash -lc 'echo remote-output where=$ENVTUI_WHERE; pwd'"
    )
    assert alert.as_json()["environment_id"] == "devbox"
    store.apply(command_request(1))
    assert [a.kind for a in store.alerts.take()] == ["request_pending"]  # a new request: again


def test_a_request_heard_before_its_environment_still_marks_its_row() -> None:
    store = Store()
    store.apply(command_request())
    store.apply_all(environments())
    assert store.environments["devbox"].waiting == 1


def test_pending_requests_are_bounded() -> None:
    fold = NeedsYou(limit=3)
    for number in range(10):
        msg = command_request(number).msg
        assert isinstance(msg, RequestPending)
        fold.apply(msg, at(number))
    assert [r.msg.request_id for r in fold.requests()] == [7, 8, 9]
    assert fold.dropped == 7


def test_log_lines_say_what_is_asked_who_answered_and_how_it_ended() -> None:
    store = Store()
    answer = RequestAnswered(
        request_id=0,
        kind="command",
        answer="decline",
        by="read-only",
        environment_id="devbox",
        command="/bin/true",
    )
    store.apply_all(
        [
            waiting(),
            command_request(),
            thread_event(answer, at=at(11)),
            resolved(how="gone"),
            question_request(1),
        ]
    )
    lines = [entry.line for entry in store.log]
    assert lines == [
        "12:00:10 thread_status waiting on approval (thread 01a23412-c807-7751-ac03-59b0f218e26f)",
        "12:00:10 request_pending #0 command on devbox: run /bin/bash -lc 'echo remote-output "
        "where=$ENVTUI_WHERE; pwd' (needs to run outside the sandbox)",
        "12:00:11 request_answered #0 declined by --read-only, command on devbox: /bin/true",
        "12:00:20 request_resolved #0 gone with the app-server that asked",
        "12:00:10 request_pending #1 user_input on the primary: answer: Which colour?",
    ]
    assert store.log[1].environment_id == "devbox"  # the log's filter by environment finds it


def test_the_thread_messages_go_through_the_codec_unchanged() -> None:
    answer = RequestAnswered(
        request_id="req-7", kind="user_input", answer="text", answers={"q": ["(secret)"]}
    )
    for event in (
        waiting(),
        command_request(),
        question_request(),
        resolved(),
        thread_event(answer),
    ):
        assert decode_event(encode_event(event)) == event


def test_several_threads_the_header_says_the_most_pressing_and_each_request_its_thread() -> None:
    from datetime import UTC, datetime

    from envtui.tui.needs_you.panel import panel_text
    from envtui.vocabulary.thread_messages import ThreadStatusChanged

    needs_you = NeedsYou()
    needs_you.apply(ThreadStatusChanged(thread="t-1", status="waiting_on_approval"), None)
    needs_you.apply(ThreadStatusChanged(thread="t-2", status="idle"), None)
    assert needs_you.status == "waiting_on_approval"  # t-2 going idle does not hide t-1
    for thread in ("t-1", "t-2"):
        ask = RequestPending(request_id=0, kind="command", method="m", thread=thread, command="ls")
        needs_you.apply(ask, None)
    text = panel_text(needs_you, {}, None, datetime(2026, 1, 1, tzinfo=UTC), True)
    assert "· thread t-1" in text
    assert "· thread t-2" in text
    needs_you.apply(ThreadStatusChanged(thread="t-1", status="active"), None)
    assert needs_you.status in {"active"}  # t-1 now works (an attribute mypy narrowed above)


def test_one_thread_its_requests_do_not_repeat_its_id() -> None:
    from datetime import UTC, datetime

    from envtui.tui.needs_you.panel import panel_text

    needs_you = NeedsYou()
    ask = RequestPending(request_id=0, kind="command", method="m", thread="t-1", command="ls")
    needs_you.apply(ask, None)
    assert "thread t-1" not in panel_text(
        needs_you, {}, None, datetime(2026, 1, 1, tzinfo=UTC), True
    )
