"""The operator's answers to Codex: which ones a request takes, and the door they go through.

Both sides read these rules: the needs-you keys, to tell the operator at once why an answer
cannot be sent, and the app-server client, which checks again before it sends. They are
pure, so they live in the words every part shares, not in the runtime that talks to Codex
(:mod:`envtui.environments.server_requests` holds what Codex sends and takes on the wire).

Approve for the session is allowed where Codex offers it: a command only when its
``availableDecisions`` list ``acceptForSession``; a file change and permissions always
(their answers have no list, and the schema takes a session scope). Approve once and
decline are always allowed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Protocol, runtime_checkable

from envtui.vocabulary.thread_messages import RequestAnswered, RequestPending

SESSION = "acceptForSession"
"""Codex's word for approve for the session, as a command's ``availableDecisions`` offer it."""


@runtime_checkable
class Answers(Protocol):
    """Where the operator's answers go: a source attached to a Codex that can take them.

    ``answer`` sends one answer and says why it was not sent, or None once it is on its way.
    A source that has this door (``envtui codex``, a served tab's replay) is handed to the
    dashboard as its answers; any other source leaves the needs-you keys saying so.
    """

    def answer(self, answer: RequestAnswered) -> str | None: ...


def offers_session(request: RequestPending) -> bool:
    """Whether approving for the session may be sent (see the module)."""
    if request.kind == "command":
        return SESSION in request.decisions
    return request.kind in ("file_change", "permissions")


def problem_with(request: RequestPending, answer: RequestAnswered) -> str | None:
    """Why ``answer`` cannot be sent to ``request``, or None."""
    if answer.kind != request.kind:
        return f"a {answer.kind} answer does not fit a {request.kind} request"
    if request.kind == "user_input":
        if answer.answer == "text" and not answer.answers:
            return "no answer was given"
        if answer.answer not in ("text", "decline"):
            return "questions are answered with text, or declined"
        return None
    if answer.answer == "text":
        return "an approval is approved or declined, not answered with text"
    if answer.answer == "accept_for_session" and not offers_session(request):
        offered = ", ".join(request.decisions) or "nothing"
        return f"Codex does not offer to approve this for the session (it offers {offered})"
    return None


def shown_digest(request: RequestPending) -> str:
    """A digest of what the operator is shown of ``request`` and approves: the method, the
    kind, the command (its whole text's digest), the cwd, the environment, the thread, the
    files, the permissions and every other grant, and the questions.

    The confirmation sends it with the answer and the client computes it again from the
    request it holds: an answer meant for another request (one asked under the same id by
    a restarted app-server, say) is refused rather than sent.
    """
    shown = [
        request.method,
        request.kind,
        request.command_kind,
        request.command,
        request.command_sha256,
        request.cwd,
        request.environment_id,
        request.thread,
        request.changes,
        request.permissions,
        request.grants,
        [(q.id, q.question, q.secret) for q in request.questions],
    ]
    text = json.dumps(shown, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def answers_of(source: object) -> Answers | None:
    """``source`` as the door for the operator's answers, if it is one (else None)."""
    return source if isinstance(source, Answers) else None
