"""What the needs-you keys do: approve once, approve for the session, decline, answer, next.

Each key acts on the request the panel marks; it checks the answer against what Codex
takes (:func:`~envtui.vocabulary.answers.problem_with`), shows the confirmation
line, and only when the operator confirms hands the answer to the dashboard's ``answer``,
which sends it and records it with the key that gave it. The bindings themselves are the
main screen's (:mod:`envtui.tui.actions`), so the keymap and the help list them by id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

from envtui.dashboard.needs_you import PendingRequest, RequestKey
from envtui.tui.keymap import typed
from envtui.tui.needs_you.panel import (
    ConfirmAnswer,
    ReplyScreen,
    answer_message,
    confirmation_line,
    marked_request,
    next_marked,
    request_heading,
    send_words,
)
from envtui.vocabulary.answers import problem_with
from envtui.vocabulary.thread_messages import Answer, RequestAnswered

NEEDS_YOU_ACTIONS = frozenset(
    {"approve_once", "approve_session", "decline", "reply", "next_request"}
)

if TYPE_CHECKING:
    from textual.screen import Screen

    from envtui.dashboard.store import Store
    from envtui.tui.options import DashboardOptions

    _Base = Screen[None]
else:
    _Base = object


class NeedsYouKeys(_Base):
    """The needs-you actions, for the main screen (which holds ``store`` and ``options``)."""

    store: Store
    options: DashboardOptions
    marked: RequestKey | None = None
    """The request the keys act on (None: the oldest)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The needs-you keys are in the footer only while a request waits."""
        if action in NEEDS_YOU_ACTIONS:
            return bool(self.store.needs_you.pending)
        return super().check_action(action, parameters)

    def action_approve_once(self) -> None:
        self._answer_marked("accept", "approve_once")

    def action_approve_session(self) -> None:
        self._answer_marked("accept_for_session", "approve_session")

    def action_decline(self) -> None:
        self._answer_marked("decline", "decline")

    def action_next_request(self) -> None:
        self.marked = next_marked(self.store.needs_you, self.marked)
        self.request_panel()

    def request_panel(self) -> None:
        """Draw the panel again (the main screen's)."""

    def action_reply(self) -> None:
        request = self._answerable()
        if request is None:
            return
        if request.msg.kind != "user_input":
            self._say("r answers questions; this request is approved (o, O) or declined (x)")
            return
        heading = request_heading(request, self.store.environments, self.options.clock(), True)

        def replied(answers: dict[str, list[str]] | None) -> None:
            if answers:
                self._confirm(request, answer_message(request, "text", self._key("reply"), answers))

        self.app.push_screen(ReplyScreen(request.msg, heading), replied)

    # --- inside -------------------------------------------------------------------------------

    def _answerable(self) -> PendingRequest | None:
        """The marked request, if there is one this dashboard can answer (else said why)."""
        request = marked_request(self.store.needs_you, self.marked)
        if request is None:
            self._say("nothing waits for an answer")
        elif self.options.answers is None:
            self._say("this view cannot answer Codex (`envtui codex` can)")
        elif request.answer is not None:
            self._say(f"request #{request.msg.request_id} is already answered")
        else:
            return request
        return None

    def _answer_marked(self, answer: Answer, binding_id: str) -> None:
        request = self._answerable()
        if request is None:
            return
        message = answer_message(request, answer, self._key(binding_id))
        problem = problem_with(request.msg, message)
        if problem is not None:
            self._say(problem)
            return
        self._confirm(request, message)

    def _confirm(self, request: PendingRequest, message: RequestAnswered) -> None:
        line = confirmation_line(request.msg, message.answer, self.store.environments)
        if message.answers:
            secret = {q.id for q in request.msg.questions if q.secret}
            given = "; ".join(
                f"{q}: {'(secret)' if q in secret else ', '.join(a)}"
                for q, a in message.answers.items()
            )
            line += f" {given}"

        def confirmed(send: bool | None) -> None:
            if not send or self.options.answers is None:
                self._say("not sent")
                return
            text, bad = send_words(message, self.options.answers.answer(message))
            self.notify(text, severity="warning" if bad else "information", markup=False)

        self.app.push_screen(ConfirmAnswer(line), confirmed)

    def _key(self, binding_id: str) -> str:
        """The key in force for a binding, as typed (the config's keymap may move it)."""
        keymap: dict[str, str] = getattr(self.app, "keymap_in_force", {})
        spec = keymap.get(binding_id) or next(
            (b.key for b in self.BINDINGS if isinstance(b, Binding) and b.id == binding_id),
            binding_id,
        )
        return typed(spec.split(",")[0].strip())

    def _say(self, text: str) -> None:
        self.notify(text, severity="warning", markup=False)
