"""What the needs-you keys do: approve once, approve for the session, decline, answer, next.

:class:`NeedsYouKeys` is an object the main screen holds (not a base of it): each key acts
on the request the panel marks; it checks the answer against what Codex takes
(:func:`~envtui.vocabulary.answers.problem_with`) and opens the confirmation
(:mod:`.confirm`). A confirmed answer is posted by the panel as
:class:`~envtui.tui.needs_you.panel.NeedsYouPanel.Answered`; the screen handles it and
hands it back to :meth:`NeedsYouKeys.send`, which checks once more that the request is
still the one shown and sends it through the answers door, recorded with the key that gave
it. The bindings themselves are the main screen's (:mod:`envtui.tui.actions`), so the
keymap and the help list them by id.

While a text box is open (the filter) the answer keys do nothing: keys typed into a box
that is still opening must not answer Codex.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType
from textual.widgets import Input

from envtui.dashboard.needs_you import PendingRequest, RequestKey, key_of
from envtui.tui.keymap import typed
from envtui.tui.needs_you.confirm import SESSION_KEY, Choice, ConfirmAnswer, confirmation_text
from envtui.tui.needs_you.panel import (
    NeedsYouPanel,
    ReplyScreen,
    answer_message,
    marked_request,
    next_marked,
    request_heading,
    send_words,
)
from envtui.vocabulary.answers import problem_with, shown_digest
from envtui.vocabulary.thread_messages import Answer, RequestAnswered

if TYPE_CHECKING:
    from textual.screen import Screen

    from envtui.dashboard.store import Store
    from envtui.tui.options import DashboardOptions

NEEDS_YOU_ACTIONS = frozenset(
    {"approve_once", "approve_session", "decline", "reply", "next_request"}
)
ANSWER_KEYS: dict[str, tuple[Answer, str]] = {
    "approve_once": ("accept", "approve_once"),
    "approve_session": ("accept_for_session", "approve_session"),
    "decline": ("decline", "decline"),
}


class NeedsYouKeys:
    """The needs-you actions, for the screen that holds it (see the module)."""

    def __init__(
        self,
        screen: Screen[None],
        store: Store,
        options: DashboardOptions,
        bindings: Sequence[BindingType],
        redraw: Callable[[], None],
    ) -> None:
        self._screen = screen
        self._store = store
        self._options = options
        self._bindings = bindings
        self._redraw = redraw
        self.marked: RequestKey | None = None
        """The request the keys act on (None: the oldest)."""

    def waiting(self) -> bool:
        """Whether anything waits (the keys are in the footer only then)."""
        return bool(self._store.needs_you.pending)

    def act(self, action: str) -> None:
        """One needs-you key, by its action's name."""
        if action == "next_request":
            self.marked = next_marked(self._store.needs_you, self.marked)
            self._redraw()
        elif self._typing():
            self._say("a text box is open: close it (enter or esc) before answering Codex")
        elif action == "reply":
            self._reply()
        elif action in ANSWER_KEYS:
            self._answer_marked(*ANSWER_KEYS[action])

    def send(self, message: RequestAnswered) -> None:
        """Send a confirmed answer, if its request is still the one that was shown."""
        answers = self._options.answers
        found = self._store.needs_you.find(key_of(message))
        if answers is None:
            problem: str | None = "this view cannot answer Codex"
        elif found is None or found.answer is not None:
            problem = f"request #{message.request_id} is no longer waiting"
        elif shown_digest(found.msg) != message.shown:
            problem = f"request #{message.request_id} changed since it was shown"
        else:
            problem = answers.answer(message)
        text, bad = send_words(message, problem)
        self._screen.notify(text, severity="warning" if bad else "information", markup=False)

    def requests_changed(self) -> None:
        """Close the confirmation (or the questions) on top when its request was answered,
        withdrawn or is gone, or is no longer what it showed."""
        top = self._screen.app.screen
        if not isinstance(top, ConfirmAnswer | ReplyScreen):
            return
        found = self._store.needs_you.find(key_of(top.msg))
        same = found is not None and found.answer is None
        if same and found is not None and isinstance(top, ConfirmAnswer):
            same = shown_digest(found.msg) == top.answer.shown
        if not same and not getattr(top, "decided", False):
            top.dismiss(None)
            self._say(f"request #{top.msg.request_id} is no longer waiting: nothing sent")

    # --- inside -------------------------------------------------------------------------------

    def _typing(self) -> bool:
        """Whether a text box is open or has focus (its keys are not answers)."""
        boxes = self._screen.query("#filter")
        opened = any(isinstance(box, Input) and box.has_class("-visible") for box in boxes)
        return opened or isinstance(self._screen.focused, Input)

    def _reply(self) -> None:
        request = self._answerable()
        if request is None:
            return
        if request.msg.kind != "user_input":
            self._say("r answers questions; this request is approved (o, O) or declined (x)")
            return
        clock = self._options.clock()
        heading = request_heading(request, self._store.environments, clock, True)

        def replied(answers: dict[str, list[str]] | None) -> None:
            if answers:
                self._confirm(request, answer_message(request, "text", self._key("reply"), answers))

        self._screen.app.push_screen(ReplyScreen(request.msg, heading), replied)

    def _answerable(self) -> PendingRequest | None:
        """The marked request, if there is one this dashboard can answer (else said why)."""
        request = marked_request(self._store.needs_you, self.marked)
        if request is None:
            self._say("nothing waits for an answer")
        elif self._options.answers is None:
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
        text = confirmation_text(request.msg, message, self._store.environments)

        def confirmed(choice: Choice | None) -> None:
            if choice == "session":
                session = answer_message(request, "accept_for_session", SESSION_KEY)
                self._confirm(request, session)
            elif choice == "send":
                self._screen.query_one(NeedsYouPanel).post_message(NeedsYouPanel.Answered(message))
            else:
                self._say("not sent")

        self._screen.app.push_screen(ConfirmAnswer(request.msg, message, text), confirmed)

    def _key(self, binding_id: str) -> str:
        """The key in force for a binding, as typed (the config's keymap may move it)."""
        keymap: dict[str, str] = getattr(self._screen.app, "keymap_in_force", {})
        spec = keymap.get(binding_id) or next(
            (b.key for b in self._bindings if isinstance(b, Binding) and b.id == binding_id),
            binding_id,
        )
        return typed(spec.split(",")[0].strip())

    def _say(self, text: str) -> None:
        self._screen.notify(text, severity="warning", markup=False)
