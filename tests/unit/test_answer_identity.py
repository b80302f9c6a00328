"""An answer goes to the request that was shown: every app-server connection has a
generation of its own (ids restart at 0 with each), and an answer carries the digest of
what the operator saw; one for a request that is gone or differs is refused, with a line
in the log saying why."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

import pytest

from tests.unit.test_server_requests import COMMAND_REQUEST

from envtui.dashboard.needs_you import NeedsYou, key_of
from envtui.environments import thread_requests
from envtui.environments.thread_requests import ThreadRequests
from envtui.vocabulary.answers import shown_digest
from envtui.vocabulary.events import Event, WarningMessage
from envtui.vocabulary.thread_messages import RequestAnswered, RequestPending, RequestResolved

THREAD = "01a23412-c807-7751-ac03-59b0f218e26f"


class _Replies:
    def __init__(self) -> None:
        self.sent: list[tuple[object, object]] = []

    def respond(self, request_id: object, result: object) -> bool:
        self.sent.append((request_id, result))
        return True


def _connection(events: list[Event]) -> tuple[ThreadRequests, _Replies]:
    requests = ThreadRequests(
        events.append, lambda: datetime(2026, 12, 2, tzinfo=UTC), operator=True
    )
    replies = _Replies()
    requests.rpc = replies  # type: ignore[assignment]
    requests.seed({"id": THREAD, "status": {"type": "idle"}})
    return requests, replies


def _asked(requests: ThreadRequests, events: list[Event], command: str) -> RequestPending:
    message = copy.deepcopy(COMMAND_REQUEST)
    message["params"]["command"] = command
    assert requests.request(message)
    pending = events[-1].msg
    assert isinstance(pending, RequestPending)
    return pending


def _shown_answer(request: RequestPending) -> RequestAnswered:
    """The answer the confirmation sends for ``request``, as it was shown."""
    return RequestAnswered(
        request_id=request.request_id,
        generation=request.generation,
        shown=shown_digest(request),
        kind=request.kind,
        answer="accept",
        key="y",
        thread=request.thread,
    )


def _warnings(events: list[Event]) -> list[str]:
    return [e.msg.message for e in events if isinstance(e.msg, WarningMessage)]


def test_a_restarted_app_servers_request_0_is_not_approved_by_the_old_0s_answer() -> None:
    events: list[Event] = []
    first, _ = _connection(events)
    old = _asked(first, events, "echo SAFE-harmless")
    first.gone()
    second, replies = _connection(events)
    new = _asked(second, events, "rm -rf ~/IMPORTANT")
    assert (old.request_id, new.request_id) == (0, 0)
    assert old.generation is not None
    assert new.generation is not None
    assert new.generation > old.generation
    assert key_of(old) != key_of(new)
    refused = second.answer(_shown_answer(old))
    assert refused == ("request #0 was asked by an app-server that is gone; this one's is another")
    assert replies.sent == []
    assert _warnings(events) == [f"answer refused: {refused}"]
    gone = [e.msg for e in events if isinstance(e.msg, RequestResolved)]
    assert [(g.request_id, g.generation, g.how) for g in gone] == [(0, old.generation, "gone")]
    assert second.answer(_shown_answer(new)) is None
    assert replies.sent == [(0, {"decision": "accept"})]


def test_an_answer_for_what_was_not_shown_is_refused_and_said() -> None:
    events: list[Event] = []
    requests, replies = _connection(events)
    pending = _asked(requests, events, "echo shown")
    seen = pending.model_copy(update={"command": "echo something else"})
    refused = requests.answer(_shown_answer(seen))
    assert refused == "request #0 is not the request that was shown (it changed); nothing sent"
    assert replies.sent == []
    assert _warnings(events) == [f"answer refused: {refused}"]


def test_an_answer_for_a_request_that_is_gone_is_refused_and_said() -> None:
    events: list[Event] = []
    requests, replies = _connection(events)
    pending = _asked(requests, events, "echo late")
    requests.notification("serverRequest/resolved", {"requestId": 0}, events[0].at)  # type: ignore[arg-type]
    assert requests.answer(_shown_answer(pending)) == "request #0 is no longer pending"
    assert replies.sent == []
    assert _warnings(events) == ["answer refused: request #0 is no longer pending"]


def test_the_store_keeps_two_connections_requests_apart_and_resolves_each_by_its_own() -> None:
    events: list[Event] = []
    first, _ = _connection(events)
    _asked(first, events, "echo one")
    second, _ = _connection(events)
    _asked(second, events, "echo two")
    needs_you = NeedsYou()
    for event in events:
        if isinstance(event.msg, RequestPending | RequestResolved):
            needs_you.apply(event.msg, event.at)
    assert [r.msg.command for r in needs_you.requests()] == ["echo one", "echo two"]
    first.gone()
    needs_you.apply(events[-2].msg, events[-2].at)  # type: ignore[arg-type]
    assert [r.msg.command for r in needs_you.requests()] == ["echo two"]


def test_past_the_bound_a_request_is_said_and_left_to_codex_not_said_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(thread_requests, "MAX_PENDING", 2)
    events: list[Event] = []
    requests, replies = _connection(events)
    for number in range(3):
        message = copy.deepcopy(COMMAND_REQUEST)
        message["id"] = number
        assert requests.request(message)
    assert list(requests.pending) == [0, 1]  # the ones shown stay, none is said gone
    assert not any(isinstance(event.msg, RequestResolved) for event in events)
    warning = events[-1].msg
    assert isinstance(warning, WarningMessage)
    assert warning.message.startswith("codex asks request #2 (command) while 2 already wait")
    assert replies.sent == []  # nothing answered or declined for the user
