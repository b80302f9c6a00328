"""The thread messages of the event vocabulary: a thread's status, and what Codex asks of
the operator (approvals and questions), how each was answered, and when it went away.

Codex's app-server says a thread's status with ``thread/status/changed`` (idle, active,
active and waiting on an approval or on the user's input, a system error, or not loaded),
and asks with server requests: approve a command, a file change or more permissions, or
answer questions. A request stays pending until Codex says ``serverRequest/resolved``
(after an answer, or when a turn is interrupted) or the app-server is gone; Codex itself
never times one out. An answer is an operator's act, which nothing else can derive: it is
recorded with who gave it (the key, or ``--read-only``) and when (the event's time).

Kept apart from :mod:`envtui.vocabulary.events`, which registers them, so each module stays
one readable size.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from envtui.vocabulary.incident_messages import VocabularyMessage

ThreadState = Literal[
    "not_loaded", "idle", "active", "waiting_on_approval", "waiting_on_input", "system_error"
]
"""A thread's status in envtui's words; ``active`` with Codex's ``waitingOnApproval`` flag
is ``waiting_on_approval`` (with ``waitingOnUserInput`` only, ``waiting_on_input``)."""

WaitingReason = Literal["approval", "input"]
"""Why a thread waits for the operator: ``envtui_thread_waiting{reason}``."""

RequestKind = Literal["command", "file_change", "permissions", "user_input"]
"""What Codex asks: to run a command, to change files, for permissions, for answers."""

Answer = Literal["accept", "accept_for_session", "decline", "text"]
"""What the operator answered: approve once, approve for the session, decline, or answers
to questions (``text``)."""

ResolvedHow = Literal["answered", "withdrawn", "gone", "elsewhere"]
"""How a request ended: resolved after envtui's answer; withdrawn by Codex without one (an
interrupted turn); gone with the app-server that asked (nobody will resolve it); answered
elsewhere (another client of Codex's app-server daemon: the Codex TUI, ``codex agents``)."""

SECRET = "(secret)"
"""What the stream says in place of the answer to a question marked secret."""


def waiting_reasons(status: ThreadState) -> tuple[WaitingReason, ...]:
    """The reasons a thread in ``status`` waits for the operator (none, or one)."""
    if status == "waiting_on_approval":
        return ("approval",)
    if status == "waiting_on_input":
        return ("input",)
    return ()


class ThreadStatusChanged(VocabularyMessage):
    """envtui: the thread's status, as Codex's ``thread/status/changed`` (or the ``status``
    of the thread it started or resumed) said it. ``flags`` are Codex's ``activeFlags``."""

    type: Literal["thread_status"] = "thread_status"
    thread: str | None = None
    status: ThreadState
    flags: list[str] = Field(default_factory=list)


class QuestionOption(BaseModel):
    """One answer a question offers."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    label: str
    description: str = ""


class Question(BaseModel):
    """One question of a user-input request. ``other``: a free text answer is accepted;
    ``secret``: the answer is not shown nor written anywhere."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str
    header: str = ""
    question: str = ""
    other: bool = False
    secret: bool = False
    options: list[QuestionOption] = Field(default_factory=list)


class RequestPending(VocabularyMessage):
    """envtui: Codex asks the operator something, and waits (``request_id`` is the
    JSON-RPC id of Codex's request on the app-server's connection).

    ``environment_id`` is where the command or permission is for (Codex's ``environmentId``:
    ``local``, or a remote's id); a file change names none (it is for the primary).
    ``decisions`` are the decisions Codex offers, in its order and words (``accept``,
    ``acceptWithExecpolicyAmendment``, ``cancel``, …); empty when it offers no list.
    ``changes`` are a file change's files (``add path``, ``update path``, ``delete path``).
    ``generation`` numbers the app-server connection that asked (ids restart with each).
    ``command`` is the whole command, or past a bound its head and tail with ``… N
    characters …`` between; ``command_length`` and ``command_sha256`` are the whole
    command's. ``command_kind`` is Codex's ``kind`` (``writeStdin``: input for a running
    terminal; ``humanCommand``); ``grants`` is everything else approving it grants, in words.
    """

    type: Literal["request_pending"] = "request_pending"
    request_id: int | str
    generation: int | None = None
    kind: RequestKind
    method: str
    thread: str | None = None
    turn: str | None = None
    item: str | None = None
    environment_id: str | None = None
    command: str | None = None
    cwd: str | None = None
    reason: str | None = None
    started_at_ms: int | None = None
    decisions: list[str] = Field(default_factory=list)
    changes: list[str] = Field(default_factory=list)
    permissions: dict[str, Any] | None = None
    questions: list[Question] = Field(default_factory=list)
    command_kind: str | None = None
    command_length: int | None = None
    command_sha256: str | None = None
    grants: list[str] | None = None


class RequestAnswered(VocabularyMessage):
    """envtui: the answer sent to a pending request, and who gave it.

    ``by`` is ``operator`` (with the ``key`` pressed) or ``read-only`` (``--read-only``
    declines every request at once). ``answers`` are the answers to questions, by question
    id; a secret one is written as :data:`SECRET`. ``sent`` is Codex's result as sent, the
    secret answers left out. ``generation`` and ``shown`` say which request was answered:
    its app-server connection, and the digest of what the operator was shown
    (:func:`~envtui.vocabulary.answers.shown_digest`); an answer whose request is gone or
    differs is refused.
    """

    type: Literal["request_answered"] = "request_answered"
    request_id: int | str
    generation: int | None = None
    shown: str | None = None
    kind: RequestKind
    answer: Answer
    by: Literal["operator", "read-only"] = "operator"
    key: str | None = None
    thread: str | None = None
    environment_id: str | None = None
    command: str | None = None
    answers: dict[str, list[str]] | None = None
    sent: dict[str, Any] | None = None
    command_sha256: str | None = None


class RequestResolved(VocabularyMessage):
    """envtui: a request is no longer pending (see :data:`ResolvedHow`)."""

    type: Literal["request_resolved"] = "request_resolved"
    request_id: int | str
    generation: int | None = None
    how: ResolvedHow
    thread: str | None = None
    environment_id: str | None = None


def asked_at(msg: RequestPending) -> datetime | None:
    """When Codex asked (its ``startedAtMs``), or None without a usable one."""
    if msg.started_at_ms is None:
        return None
    try:
        return datetime.fromtimestamp(msg.started_at_ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


THREAD_MESSAGES = (ThreadStatusChanged, RequestPending, RequestAnswered, RequestResolved)
AnyThreadMessage = ThreadStatusChanged | RequestPending | RequestAnswered | RequestResolved
