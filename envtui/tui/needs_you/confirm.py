"""The confirmation of an answer to Codex: everything it grants, and a key nobody types by
accident.

An approval runs a command as the operator, so only a deliberate act sends one:

- ``y`` sends; ``enter`` does not (a key typed ahead, ``o⏎`` in one burst, or the end of a
  filter, ``/foo⏎``, would otherwise confirm what nobody read);
- a key pressed before the confirmation was on screen for :data:`GRACE` seconds is
  ignored, whatever it is: Textual stamps each key with the time it was read from the
  terminal (or the browser tab's socket), so keys that arrived in one burst with the one
  that opened the confirmation are older than it and cannot confirm it;
- approving for the session is never this confirmation's ``y``: ``s`` (where Codex offers
  it) closes this one and asks again, in a confirmation of its own;
- the confirmation is for one request, named by its app-server connection and the digest
  of what it shows; when that request is answered, withdrawn or gone, the screen closes it
  (:meth:`~envtui.tui.needs_you.keys.NeedsYouKeys.requests_changed`).

The text repeats the answer, the request's number and kind, the environment, the cwd, the
command (whitespace in words, its head and tail when long, with its length and digest),
and every other grant in words. It is drawn from Codex's words made one safe line each.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from envtui.dashboard.needs_you import RequestKey, key_of, permissions_text
from envtui.dashboard.store import EnvironmentRow
from envtui.tui.needs_you.panel import ACTION_WORDS, KIND_WORDS, command_lines, environment_words
from envtui.vocabulary.answers import offers_session
from envtui.vocabulary.safe_text import for_terminal, one_line
from envtui.vocabulary.thread_messages import RequestAnswered, RequestPending

GRACE = 0.5
"""Seconds a confirmation is on screen before a key can act on it (keys read earlier are
ignored, and so is any key in these first seconds)."""
CONFIRM_COMMAND = 1200
"""Characters of a command the confirmation shows (its head and tail past it)."""
Choice = Literal["send", "session"]
"""What the operator chose: send this answer, or ask again to approve for the session."""


def confirmation_text(
    msg: RequestPending, answer: RequestAnswered, rows: dict[str, EnvironmentRow]
) -> str:
    """What the operator confirms: the answer and everything the request shows and grants."""
    what = KIND_WORDS[msg.kind]
    lines = [
        one_line(f"{ACTION_WORDS[answer.answer]} #{msg.request_id} ({what}) "
                 f"on {environment_words(msg, rows)}?")
    ]  # fmt: skip
    if msg.kind == "command":
        lines += command_lines(msg, CONFIRM_COMMAND)
    elif msg.kind == "file_change":
        lines += [one_line(change) for change in msg.changes] or ["(files not named)"]
    elif msg.kind == "permissions":
        lines.append(one_line(f"grant: {permissions_text(msg.permissions)}"))
    if msg.kind != "command":
        lines += [one_line(grant) for grant in msg.grants or []]
    if msg.cwd:
        lines.append(one_line(f"cwd {msg.cwd}"))
    if answer.answer == "accept_for_session":
        lines.append("for the session: Codex will not ask again for requests like this one")
    if answer.answers:
        secret = {q.id for q in msg.questions if q.secret}
        lines += [
            one_line(f"{q}: {'(secret)' if q in secret else ', '.join(a)}")
            for q, a in answer.answers.items()
        ]
    return "\n".join(lines)


SEND_KEY = "y"
SESSION_KEY = "s"


class ConfirmAnswer(ModalScreen[Choice | None]):
    """One answer to confirm (see the module): ``y`` sends it, ``s`` asks again for the
    session, ``esc`` (or ``n``) does not send.

    ``y`` and ``s`` are read from the key events this screen receives, not bound: a
    binding would also fire for a key that was sent to the screen below and bubbled up
    to the app after this one was pushed (a key typed ahead), and the keymap cannot move
    them onto a key typed by accident.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "cancel", "Cancel", id="confirm_cancel"),
    ]
    DEFAULT_CSS = """
    ConfirmAnswer { align: center bottom; }
    ConfirmAnswer > VerticalScroll { width: 100%; height: auto; max-height: 80%;
                                     border: round $warning; background: $panel;
                                     padding: 0 1; }
    """

    def __init__(self, msg: RequestPending, answer: RequestAnswered, text: str) -> None:
        super().__init__()
        self.msg = msg
        self.answer = answer
        self.line = text
        self.key: RequestKey = key_of(msg)
        self.armed = False
        """Whether keys act yet (:data:`GRACE` after it was mounted)."""
        self._opened_at: float | None = None
        self.decided = False
        self.session_offered = answer.answer == "accept" and offers_session(msg)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text(for_terminal(self.line)), markup=False, id="confirm-line")
            yield Static(self._keys_text(), markup=False, id="confirm-keys")

    def _keys_text(self) -> str:
        if not self.armed:
            return f"(keys typed before this appeared, or in its first {GRACE} s, are ignored)"
        session = f" · {SESSION_KEY}: approve for the session instead (asks again)"
        return (
            f"{SEND_KEY}: {ACTION_WORDS[self.answer.answer]} · esc: do not send"
            + (session if self.session_offered else "")
            + " · enter does nothing here"
        )

    def on_mount(self, event: events.Mount) -> None:
        self._opened_at = event.time  # the clock Textual stamps every key with
        self.set_timer(GRACE, self._arm)

    def _arm(self) -> None:
        self.armed = True
        self.query_one("#confirm-keys", Static).update(self._keys_text())

    def on_key(self, event: events.Key) -> None:
        """``y`` and ``s``, when read after this was on screen for :data:`GRACE`; any other
        key but the ones that do not send is kept from the bindings."""
        if event.key in ("escape", "n"):
            return
        event.stop()
        event.prevent_default()
        opened = self._opened_at
        if opened is None or event.time < opened + GRACE or not self.armed:
            return  # typed before it could be read
        if event.key == SEND_KEY:
            self._decide("send")
        elif event.key == SESSION_KEY and self.session_offered:
            self._decide("session")

    def _decide(self, choice: Choice | None) -> None:
        """Close with ``choice``, once (a key may reach the screen twice as it bubbles)."""
        if not self.decided:
            self.decided = True
            self.dismiss(choice)

    def action_cancel(self) -> None:
        self._decide(None)
