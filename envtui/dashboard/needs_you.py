"""What needs the operator: the thread's status and the requests Codex is waiting on.

A pure fold of the thread messages (:mod:`envtui.vocabulary.thread_messages`), kept by the
store. A request is pending from ``request_pending`` until ``request_resolved``; an answer
alone does not end it (Codex may refuse it, and says it is resolved a moment later), so an
answered request is shown as answered until then. The same request heard twice (Codex sends
a pending request again when its thread is resumed) is one request. Requests are kept in
the order they were asked, oldest first, and bounded: a peer that asks without end cannot
make the dashboard hold more than :data:`MAX_PENDING`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from envtui.vocabulary.request_words import permission_words
from envtui.vocabulary.thread_messages import (
    AnyThreadMessage,
    RequestAnswered,
    RequestPending,
    RequestResolved,
    ThreadState,
    ThreadStatusChanged,
    WaitingReason,
    asked_at,
    waiting_reasons,
)

MAX_PENDING = 100
"""Pending requests held; beyond it the oldest are dropped (counted in ``dropped``)."""

RequestKey = tuple[str | None, int | None, int | str]
"""A request's identity: its thread, its app-server connection's generation (ids restart
with every connection) and Codex's request id."""

STATUS_WORDS: dict[ThreadState, str] = {
    "not_loaded": "not loaded",
    "idle": "idle",
    "active": "active",
    "waiting_on_approval": "waiting on approval",
    "waiting_on_input": "waiting on input",
    "system_error": "system error",
}
"""How a thread's status reads in the header and the log."""

URGENCY: tuple[ThreadState, ...] = (
    "not_loaded",
    "idle",
    "active",
    "system_error",
    "waiting_on_input",
    "waiting_on_approval",
)
"""Thread statuses, least pressing first: with several threads (a daemon's), the header says
the most pressing."""

ANSWER_WORDS = {
    "accept": "approved once",
    "accept_for_session": "approved for the session",
    "decline": "declined",
    "text": "answered",
}


def key_of(msg: RequestPending | RequestAnswered | RequestResolved) -> RequestKey:
    return (msg.thread, msg.generation, msg.request_id)


@dataclass
class PendingRequest:
    """One request Codex waits on, as the panel shows it."""

    msg: RequestPending
    since: datetime | None
    """When Codex asked (else when envtui heard it)."""
    answer: RequestAnswered | None = None
    """The answer sent, while Codex has not yet said the request is resolved."""


class NeedsYou:
    """The thread's status and its pending requests; see the module."""

    def __init__(self, limit: int = MAX_PENDING) -> None:
        self.status: ThreadState | None = None
        """The status of the thread, or of the most pressing of several (a daemon's)."""
        self.statuses: dict[str | None, ThreadState] = {}
        self.status_since: datetime | None = None
        self.pending: dict[RequestKey, PendingRequest] = {}
        self.limit = limit
        self.dropped = 0
        self.version = 0
        """Grows with every change a view must draw."""

    def apply(
        self,
        msg: AnyThreadMessage,
        at: datetime | None,
    ) -> RequestPending | None:
        """Fold one message in; the request, when it is one Codex had not asked before."""
        if isinstance(msg, ThreadStatusChanged):
            self.statuses[msg.thread] = msg.status
            status = max(self.statuses.values(), key=URGENCY.index)
            if status != self.status:
                self.status, self.status_since = status, at
                self.version += 1
            return None
        key = key_of(msg)
        if isinstance(msg, RequestPending):
            if key in self.pending:
                return None  # asked again (a resumed thread): the same request
            if len(self.pending) >= self.limit:
                del self.pending[next(iter(self.pending))]
                self.dropped += 1
            self.pending[key] = PendingRequest(msg, asked_at(msg) or at)
        elif isinstance(msg, RequestAnswered):
            request = self.pending.get(key)
            if request is None:
                return None
            request.answer = msg
        elif self.pending.pop(key, None) is None:
            return None
        self.version += 1
        return msg if isinstance(msg, RequestPending) else None

    @property
    def waiting(self) -> tuple[WaitingReason, ...]:
        """Why the thread waits for the operator, by its status."""
        return waiting_reasons(self.status) if self.status is not None else ()

    def requests(self) -> list[PendingRequest]:
        """The pending requests, oldest first."""
        return list(self.pending.values())

    def unanswered(self) -> list[PendingRequest]:
        return [r for r in self.pending.values() if r.answer is None]

    def waiting_on(self, environment_id: str) -> int:
        """How many unanswered requests are for ``environment_id``."""
        return sum(1 for r in self.unanswered() if r.msg.environment_id == environment_id)

    def find(self, key: RequestKey) -> PendingRequest | None:
        return self.pending.get(key)


def what_is_asked(msg: RequestPending) -> str:
    """The request in a few words: the command, the files, the permission, the questions."""
    if msg.kind == "command":
        return f"run {msg.command}" if msg.command else "run a command"
    if msg.kind == "file_change":
        if not msg.changes:
            return "change files"
        more = f" and {len(msg.changes) - 1} more" if len(msg.changes) > 1 else ""
        return f"change files: {msg.changes[0]}{more}"
    if msg.kind == "permissions":
        return f"grant permissions {permissions_text(msg.permissions)}"
    questions = [q.question or q.header or q.id for q in msg.questions]
    return "answer: " + " / ".join(questions) if questions else "answer questions"


def permissions_text(permissions: object) -> str:
    """A permission profile in a few words (``network access``, ``write /srv``, …)."""
    return ", ".join(permission_words(permissions)) or "(none)"


def where(msg: RequestPending | RequestAnswered | RequestResolved) -> str:
    """``on devbox``, or the primary for a request that names no environment."""
    return f"on {msg.environment_id}" if msg.environment_id else "on the primary"


def log_detail(msg: AnyThreadMessage) -> str:
    """The event log's words for a thread message."""
    if isinstance(msg, ThreadStatusChanged):
        return STATUS_WORDS[msg.status] + (f" (thread {msg.thread})" if msg.thread else "")
    number = f"#{msg.request_id}"
    if isinstance(msg, RequestPending):
        reason = f" ({msg.reason})" if msg.reason else ""
        return f"{number} {msg.kind} {where(msg)}: {what_is_asked(msg)}{reason}"
    if isinstance(msg, RequestAnswered):
        who = "--read-only" if msg.by == "read-only" else "the operator"
        key = f" (key {msg.key})" if msg.key else ""
        what = f": {msg.command}" if msg.command else ""
        answers = ""
        if msg.answers:
            answers = ": " + "; ".join(f"{q}={', '.join(a)}" for q, a in msg.answers.items())
        answered = f"{number} {ANSWER_WORDS[msg.answer]} by {who}{key}"
        return f"{answered}, {msg.kind} {where(msg)}{what}{answers}"
    how = {
        "answered": "resolved by Codex after the answer",
        "withdrawn": "withdrawn by Codex (no answer needed any more)",
        "gone": "gone with the app-server that asked",
        "elsewhere": "answered elsewhere (another client of the codex daemon)",
    }[msg.how]
    return f"{number} {how}"
