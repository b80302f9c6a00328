"""What Codex's app-server asks of the operator, read from its server requests, and the
answers it takes.

Four methods wait for a person (``item/commandExecution/requestApproval``,
``item/fileChange/requestApproval``, ``item/permissions/requestApproval``,
``item/tool/requestUserInput``); each becomes a
:class:`~envtui.vocabulary.thread_messages.RequestPending`. Any other server request is
not for envtui to answer (the client refuses it with -32601, as before).

The answers, as Codex's schemas (``codex app-server generate-json-schema``) define them and
as the released 0.171.0 and 0.150.0 take them:

* a command or a file change: ``{"decision": "accept" | "acceptForSession" | "decline"}``;
  ``decline`` lets the turn go on (``cancel``, which also ends the turn, envtui never sends);
* permissions: ``{"permissions": <what was asked>, "scope": "turn" | "session"}``, and
  ``{"permissions": {}}`` (nothing granted) to decline;
* questions: ``{"answers": {<question id>: {"answers": [<text>]}}}``; ``{"answers": {}}``
  to decline, which is what Codex itself uses when a client cannot answer.

Which answers a request takes (approve for the session only where Codex offers it: the
released binaries list ``accept``, an exec-policy amendment and ``cancel`` for a command,
and never ``acceptForSession``) is :mod:`envtui.vocabulary.answers`, shared with the
needs-you keys. Nothing here sends anything; the client does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from envtui.vocabulary.answers import SESSION
from envtui.vocabulary.request_words import command_grants, cut_middle, file_change_grants
from envtui.vocabulary.thread_messages import (
    SECRET,
    Answer,
    Question,
    QuestionOption,
    RequestAnswered,
    RequestKind,
    RequestPending,
)

METHODS: dict[str, RequestKind] = {
    "item/commandExecution/requestApproval": "command",
    "item/fileChange/requestApproval": "file_change",
    "item/permissions/requestApproval": "permissions",
    "item/tool/requestUserInput": "user_input",
}
"""The server requests that wait for the operator, and what each asks."""

MAX_QUESTIONS = 20
MAX_OPTIONS = 20
MAX_TEXT = 4000
"""Characters of one field kept (a reason, a path); what is longer is cut, marked ``…``."""
MAX_COMMAND = 8000
"""Characters of a command kept: past it, its head and tail with ``… N characters …``
between (its length and digest are always the whole command's)."""
COMMAND_KINDS = ("command", "writeStdin", "humanCommand")
DECISION_WORDS: dict[Answer, str] = {
    "accept": "accept",
    "accept_for_session": SESSION,
    "decline": "decline",
}


def _text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "…"


def _decisions(value: object) -> list[str]:
    """Codex's offered decisions in its words: a string, or the one key of an object."""
    words: list[str] = []
    for entry in value if isinstance(value, list) else []:
        if isinstance(entry, str):
            words.append(entry)
        elif isinstance(entry, dict) and len(entry) == 1:
            words.append(str(next(iter(entry))))
    return words[:MAX_OPTIONS]


def _questions(value: object) -> list[Question]:
    questions: list[Question] = []
    for entry in value if isinstance(value, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        options = [
            QuestionOption(label=label, description=_text(option.get("description")) or "")
            for option in (entry.get("options") or [])[:MAX_OPTIONS]
            if isinstance(option, dict) and (label := _text(option.get("label"))) is not None
        ]
        questions.append(
            Question(
                id=entry["id"],
                header=_text(entry.get("header")) or "",
                question=_text(entry.get("question")) or "",
                other=entry.get("isOther") is True,
                secret=entry.get("isSecret") is True,
                options=options,
            )
        )
    return questions[:MAX_QUESTIONS]


def file_changes(item: Mapping[str, Any]) -> list[str]:
    """A ``fileChange`` item's files as ``add path``, ``update path``, ``delete path``."""
    found: list[str] = []
    for change in item.get("changes") or []:
        if not isinstance(change, dict) or not isinstance(change.get("path"), str):
            continue
        kind = change.get("kind")
        word = kind.get("type") if isinstance(kind, dict) else None
        moved = kind.get("move_path") if isinstance(kind, dict) else None
        line = f"{word if isinstance(word, str) else 'change'} {change['path']}"
        found.append(line + (f" → {moved}" if isinstance(moved, str) else ""))
    return found


def _command(params: Mapping[str, Any]) -> dict[str, Any]:
    """A command approval's command (cut in the middle past :data:`MAX_COMMAND`), its
    length and digest, its kind, and what else approving it grants."""
    command = params.get("command")
    kind = params.get("kind")
    found: dict[str, Any] = {
        "command_kind": kind if kind in COMMAND_KINDS and kind != "command" else None,
        "grants": command_grants(params) or None,
    }
    if kind is not None and kind not in COMMAND_KINDS:
        found["command_kind"] = f"unknown kind {_text(str(kind))}"
    if isinstance(command, str):
        digest = hashlib.sha256(command.encode("utf-8", "surrogatepass")).hexdigest()
        found.update(
            command=cut_middle(command, MAX_COMMAND),
            command_length=len(command),
            command_sha256=digest,
        )
    return found


def parse_request(
    message: Mapping[str, Any], changes_of: Callable[[str], list[str]] = lambda _item: []
) -> RequestPending | None:
    """The request, or None when it is none envtui answers (or its id is not usable).

    ``changes_of`` gives the files of a file change's item (its ``item/started`` came
    first; the request itself names none).
    """
    kind = METHODS.get(str(message.get("method")))
    request_id = message.get("id")
    if kind is None or isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    raw = message.get("params")
    params: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    started = params.get("startedAtMs")
    item = _text(params.get("itemId"))
    permissions = params.get("permissions")
    if kind == "command":
        extra = _command(params)
    else:
        extra = {"command": _text(params.get("command"))}
        if kind == "file_change":
            extra["grants"] = file_change_grants(params) or None
    return RequestPending(
        request_id=request_id,
        kind=kind,
        method=str(message["method"]),
        thread=_text(params.get("threadId")),
        turn=_text(params.get("turnId")),
        item=item,
        environment_id=_text(params.get("environmentId")),
        cwd=_text(params.get("cwd")),
        reason=_text(params.get("reason")),
        started_at_ms=started
        if isinstance(started, int) and not isinstance(started, bool)
        else None,
        decisions=_decisions(params.get("availableDecisions")),
        changes=changes_of(item) if kind == "file_change" and item else [],
        permissions=permissions if isinstance(permissions, dict) else None,
        questions=_questions(params.get("questions")),
        **extra,
    )


def response(request: RequestPending, answer: RequestAnswered) -> dict[str, Any]:
    """Codex's result for ``answer`` (check it with
    :func:`~envtui.vocabulary.answers.problem_with` first)."""
    if request.kind in ("command", "file_change"):
        return {"decision": DECISION_WORDS.get(answer.answer, "decline")}
    if request.kind == "permissions":
        if answer.answer == "decline":
            return {"permissions": {}}
        scope = "session" if answer.answer == "accept_for_session" else "turn"
        return {"permissions": request.permissions or {}, "scope": scope}
    if answer.answer == "decline":
        return {"answers": {}}
    return {"answers": {q: {"answers": list(a)} for q, a in (answer.answers or {}).items()}}


def declined(request: RequestPending) -> RequestAnswered:
    """The answer ``--read-only`` sends to every request at once."""
    return RequestAnswered(
        request_id=request.request_id,
        generation=request.generation,
        kind=request.kind,
        answer="decline",
        by="read-only",
        thread=request.thread,
        environment_id=request.environment_id,
        command=request.command,
    )


def as_recorded(request: RequestPending, answer: RequestAnswered) -> RequestAnswered:
    """``answer`` as the stream records it: Codex's result in ``sent``, and the answers to
    secret questions replaced by :data:`~envtui.vocabulary.thread_messages.SECRET`."""
    secret = {q.id for q in request.questions if q.secret}
    answers = (
        {q: ([SECRET] if q in secret else list(a)) for q, a in answer.answers.items()}
        if answer.answers is not None
        else None
    )
    sent = response(request, answer.model_copy(update={"answers": answers}))
    return answer.model_copy(
        update={
            "answers": answers,
            "sent": sent,
            "thread": answer.thread or request.thread,
            "environment_id": request.environment_id,
            "command": request.command,
            "command_sha256": request.command_sha256,
            "generation": request.generation,
        }
    )
