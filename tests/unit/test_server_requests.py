"""Codex's server requests read, and the answers built, as the released app-server sends and
takes them (the messages are codex-cli 0.171.0's, from its wire, paths neutralised)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from envtui.environments.server_requests import (
    as_recorded,
    declined,
    file_changes,
    parse_request,
    response,
)
from envtui.environments.thread_requests import ThreadRequests, thread_state
from envtui.vocabulary.answers import offers_session, problem_with
from envtui.vocabulary.events import Event
from envtui.vocabulary.thread_messages import (
    RequestAnswered,
    RequestPending,
    RequestResolved,
    ThreadStatusChanged,
)

COMMAND_REQUEST: dict[str, Any] = {
    "method": "item/commandExecution/requestApproval",
    "id": 0,
    "params": {
        "kind": "command",
        "threadId": "01a23412-c807-7751-ac03-59b0f218e26f",
        "turnId": "01a23412-c8ac-7451-ae88-a5e7544e3112",
        "itemId": "call_1",
        "startedAtMs": 1796169976232,
        "environmentId": "devbox",
        "reason": "needs to run outside the sandbox",
        "command": "/bin/bash -lc 'echo remote-output where=$ENVTUI_WHERE; pwd'",
        "cwd": "/repo/work",
        "commandActions": [
            {"type": "unknown", "command": "echo remote-output where=$ENVTUI_WHERE; pwd"}
        ],
        "proposedExecpolicyAmendment": [
            "/bin/bash",
            "-lc",
            "echo remote-output where=$ENVTUI_WHERE; pwd",
        ],
        "availableDecisions": [
            "accept",
            {
                "acceptWithExecpolicyAmendment": {
                    "execpolicy_amendment": [
                        "/bin/bash",
                        "-lc",
                        "echo remote-output where=$ENVTUI_WHERE; pwd",
                    ]
                }
            },
            "cancel",
        ],
    },
}
FILE_STARTED: dict[str, Any] = {
    "type": "fileChange",
    "id": "call_1",
    "changes": [
        {"path": "/repo/work/hello.txt", "kind": {"type": "add"}, "diff": "hello\n"},
        {"path": "/repo/a.txt", "kind": {"type": "update", "move_path": "/repo/b.txt"}, "diff": ""},
    ],
    "status": "inProgress",
}
FILE_REQUEST: dict[str, Any] = {
    "method": "item/fileChange/requestApproval",
    "id": 0,
    "params": {
        "threadId": "t",
        "turnId": "u",
        "itemId": "call_1",
        "startedAtMs": 1796170001751,
        "reason": None,
        "grantRoot": None,
    },
}
PERMISSIONS_REQUEST: dict[str, Any] = {
    "method": "item/permissions/requestApproval",
    "id": 0,
    "params": {
        "threadId": "t",
        "turnId": "u",
        "itemId": "call_1",
        "environmentId": "devbox",
        "startedAtMs": 1796170078563,
        "cwd": "/repo/work",
        "reason": "reach the network on devbox",
        "permissions": {"network": {"enabled": True}, "fileSystem": None},
    },
}
QUESTIONS_REQUEST: dict[str, Any] = {
    "method": "item/tool/requestUserInput",
    "id": 0,
    "params": {
        "threadId": "t",
        "turnId": "u",
        "itemId": "call_1",
        "questions": [
            {
                "id": "colour",
                "header": "Colour",
                "question": "Which colour?",
                "isOther": True,
                "isSecret": False,
                "options": [
                    {"label": "red", "description": "warm"},
                    {"label": "blue", "description": "cold"},
                ],
            }
        ],
        "isBlocking": True,
        "autoResolutionMs": None,
    },
}


def _answer(request: RequestPending, answer: str, **fields: Any) -> RequestAnswered:
    return RequestAnswered(
        request_id=request.request_id, kind=request.kind, answer=answer, **fields
    )


def test_a_command_request_names_its_environment_command_cwd_reason_and_offers() -> None:
    request = parse_request(COMMAND_REQUEST)
    assert request is not None
    assert (request.request_id, request.kind, request.environment_id) == (0, "command", "devbox")
    assert request.command == "/bin/bash -lc 'echo remote-output where=$ENVTUI_WHERE; pwd'"
    assert (request.cwd, request.reason) == ("/repo/work", "needs to run outside the sandbox")
    assert request.decisions == ["accept", "acceptWithExecpolicyAmendment", "cancel"]
    assert request.started_at_ms == 1796169976232


def test_approve_for_the_session_follows_what_codex_offers() -> None:
    request = parse_request(COMMAND_REQUEST)
    assert request is not None
    assert not offers_session(request)
    problem = problem_with(request, _answer(request, "accept_for_session"))
    assert problem == (
        "Codex does not offer to approve this for the session (it offers accept, "
        "acceptWithExecpolicyAmendment, cancel)"
    )
    offered = request.model_copy(update={"decisions": ["accept", "acceptForSession"]})
    assert problem_with(offered, _answer(offered, "accept_for_session")) is None
    assert response(offered, _answer(offered, "accept_for_session")) == {
        "decision": "acceptForSession"
    }


def test_approve_once_and_decline_are_codexs_decisions() -> None:
    request = parse_request(COMMAND_REQUEST)
    assert request is not None
    assert response(request, _answer(request, "accept")) == {"decision": "accept"}
    assert response(request, _answer(request, "decline")) == {"decision": "decline"}
    assert problem_with(request, _answer(request, "text")) is not None


def test_a_file_change_takes_its_files_from_the_item_that_started_it() -> None:
    files = {"call_1": file_changes(FILE_STARTED)}
    request = parse_request(FILE_REQUEST, lambda item: files.get(item, []))
    assert request is not None
    assert (request.kind, request.environment_id) == ("file_change", None)
    assert request.changes == ["add /repo/work/hello.txt", "update /repo/a.txt → /repo/b.txt"]
    assert offers_session(request)


def test_permissions_are_granted_as_asked_or_not_at_all() -> None:
    request = parse_request(PERMISSIONS_REQUEST)
    assert request is not None
    assert request.environment_id == "devbox"
    asked = {"network": {"enabled": True}, "fileSystem": None}
    assert response(request, _answer(request, "accept")) == {"permissions": asked, "scope": "turn"}
    assert response(request, _answer(request, "accept_for_session"))["scope"] == "session"
    assert response(request, _answer(request, "decline")) == {"permissions": {}}


def test_questions_are_answered_by_id_and_declined_with_no_answers() -> None:
    request = parse_request(QUESTIONS_REQUEST)
    assert request is not None
    (question,) = request.questions
    assert (question.id, question.other, [o.label for o in question.options]) == (
        "colour",
        True,
        ["red", "blue"],
    )
    answer = _answer(request, "text", answers={"colour": ["green, actually"]})
    assert response(request, answer) == {"answers": {"colour": {"answers": ["green, actually"]}}}
    assert response(request, _answer(request, "decline")) == {"answers": {}}
    assert problem_with(request, _answer(request, "accept")) is not None
    assert problem_with(request, _answer(request, "text")) == "no answer was given"


def test_a_secret_answer_is_sent_but_never_recorded() -> None:
    secret = dict(QUESTIONS_REQUEST)
    secret["params"] = {
        **QUESTIONS_REQUEST["params"],
        "questions": [{**QUESTIONS_REQUEST["params"]["questions"][0], "isSecret": True}],
    }
    request = parse_request(secret)
    assert request is not None
    answer = _answer(request, "text", answers={"colour": ["hunter2"]})
    assert response(request, answer) == {"answers": {"colour": {"answers": ["hunter2"]}}}
    kept = as_recorded(request, answer)
    assert kept.answers == {"colour": ["(secret)"]}
    assert "hunter2" not in kept.model_dump_json()


def test_requests_envtui_does_not_answer_are_left_to_be_refused() -> None:
    assert parse_request({"method": "item/tool/call", "id": 3, "params": {}}) is None
    assert parse_request({"method": "account/chatgptAuthTokens/refresh", "id": 4}) is None
    assert parse_request({**COMMAND_REQUEST, "id": True}) is None
    assert parse_request({**COMMAND_REQUEST, "params": "nonsense"}) is not None  # shown as empty


def test_read_only_declines_in_each_kinds_own_words() -> None:
    for message in (COMMAND_REQUEST, FILE_REQUEST, PERMISSIONS_REQUEST, QUESTIONS_REQUEST):
        request = parse_request(message)
        assert request is not None
        answer = declined(request)
        assert (answer.answer, answer.by, answer.key) == ("decline", "read-only", None)
    assert [
        response(request, declined(request))
        for request in (parse_request(m) for m in (PERMISSIONS_REQUEST, QUESTIONS_REQUEST))
        if request is not None
    ] == [{"permissions": {}}, {"answers": {}}]


def test_codexs_thread_statuses_in_envtuis_words() -> None:
    assert thread_state({"type": "active", "activeFlags": ["waitingOnApproval"]}) == (
        "waiting_on_approval",
        ["waitingOnApproval"],
    )
    assert thread_state({"type": "active", "activeFlags": ["waitingOnUserInput"]}) == (
        "waiting_on_input",
        ["waitingOnUserInput"],
    )
    assert thread_state({"type": "active", "activeFlags": []}) == ("active", [])
    assert thread_state({"type": "notLoaded"}) == ("not_loaded", [])
    assert thread_state({"type": "systemError"}) == ("system_error", [])
    assert thread_state({"type": "somethingNew"}) is None


class _Replies:
    """Takes the client's answers, as the JSON-RPC client would send them."""

    def __init__(self) -> None:
        self.sent: list[tuple[object, object]] = []

    def respond(self, request_id: object, result: object) -> bool:
        self.sent.append((request_id, result))
        return True


def _requests(**options: bool) -> tuple[ThreadRequests, list[Event], _Replies]:
    events: list[Event] = []
    requests = ThreadRequests(events.append, lambda: datetime(2026, 12, 2, tzinfo=UTC), **options)
    replies = _Replies()
    requests.rpc = replies  # type: ignore[assignment]
    requests.seed({"id": "01a23412-c807-7751-ac03-59b0f218e26f", "status": {"type": "idle"}})
    return requests, events, replies


def test_a_request_asked_again_is_one_request_and_resolves_once() -> None:
    requests, events, replies = _requests(operator=True)
    assert requests.request(COMMAND_REQUEST)
    assert requests.request(COMMAND_REQUEST)  # thread/resume: asked again, same id
    assert [type(e.msg) for e in events] == [ThreadStatusChanged, RequestPending]
    request = events[-1].msg
    assert isinstance(request, RequestPending)
    assert requests.answer(_answer(request, "accept", key="o")) is None
    assert requests.answer(_answer(request, "decline")) == "request #0 is already answered"
    assert replies.sent == [(0, {"decision": "accept"})]
    requests.notification("serverRequest/resolved", {"requestId": 0, "threadId": "x"}, events[0].at)  # type: ignore[arg-type]
    resolved = [e.msg for e in events if isinstance(e.msg, RequestResolved)]
    assert [(r.request_id, r.how) for r in resolved] == [(0, "answered")]
    assert requests.answer(_answer(request, "accept")) == "request #0 is no longer pending"


def test_a_request_codex_withdraws_unanswered_is_withdrawn() -> None:
    requests, events, _ = _requests(operator=True)
    requests.request(COMMAND_REQUEST)
    requests.notification("serverRequest/resolved", {"requestId": 0}, events[0].at)  # type: ignore[arg-type]
    assert [
        (e.msg.request_id, e.msg.how) for e in events if isinstance(e.msg, RequestResolved)
    ] == [(0, "withdrawn")]


def test_read_only_answers_at_once_and_nothing_else_answers_on_its_own() -> None:
    requests, events, replies = _requests(read_only=True)
    requests.request(COMMAND_REQUEST)
    assert replies.sent == [(0, {"decision": "decline"})]
    answered = [e.msg for e in events if isinstance(e.msg, RequestAnswered)]
    assert [(a.by, a.answer) for a in answered] == [("read-only", "decline")]
    headless, events, replies = _requests()
    headless.request(COMMAND_REQUEST)
    assert replies.sent == []  # nobody answered: it waits
    (warning,) = [e.msg for e in events if e.msg.type == "warning"]
    assert "nobody can answer here" in warning.message  # type: ignore[union-attr]


def test_when_the_app_server_is_gone_its_requests_are_gone_and_the_thread_not_loaded() -> None:
    requests, events, _ = _requests(operator=True)
    requests.request(COMMAND_REQUEST)
    requests.gone()
    requests.gone()  # said once
    kinds = [(e.msg.type, getattr(e.msg, "how", getattr(e.msg, "status", None))) for e in events]
    assert kinds[-2:] == [("request_resolved", "gone"), ("thread_status", "not_loaded")]
    assert kinds.count(("thread_status", "not_loaded")) == 1
