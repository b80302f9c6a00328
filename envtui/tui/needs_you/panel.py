"""The "needs you" panel: what Codex waits on the operator for, and how it is answered.

While Codex waits (an approval, a question) the panel shows each request, oldest first:
the environment it is for (its id, kind, and whether it is the primary), the command, the
file change or the permission, the cwd, the reason, and how long it has waited. The keys
act on the request marked ``▶`` (``w`` moves the mark): approve once, approve for the
session where Codex offers it, decline, or, for questions, answer them in text. Every
answer first shows a confirmation line that repeats the command and the environment; only
``enter`` there sends it. Nothing here sends anything on its own: the dashboard's
``answer`` (``DashboardOptions.answer``) does, and only for an operator who confirmed.

The texts are pure functions, tested without a running app; every word in them that came
from Codex is made one safe line (:mod:`envtui.vocabulary.safe_text`) before it is drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from envtui.dashboard.needs_you import (
    ANSWER_WORDS,
    NeedsYou,
    PendingRequest,
    RequestKey,
    key_of,
    permissions_text,
)
from envtui.dashboard.store import EnvironmentRow
from envtui.tui.format import glyphs
from envtui.tui.incidents_view import span
from envtui.vocabulary.answers import offers_session
from envtui.vocabulary.safe_text import for_terminal, one_line
from envtui.vocabulary.thread_messages import Answer, RequestAnswered, RequestPending

SHOWN = 4
"""Requests the panel lists in full; the rest are counted."""
KIND_WORDS = {
    "command": "command",
    "file_change": "file change",
    "permissions": "permissions",
    "user_input": "questions",
}
ACTION_WORDS: dict[Answer, str] = {
    "accept": "approve once",
    "accept_for_session": "approve for the session",
    "decline": "decline",
    "text": "answer",
}


def environment_words(msg: RequestPending, rows: dict[str, EnvironmentRow]) -> str:
    """``devbox (exec-server, not primary)``; a file change is for the primary."""
    if msg.environment_id is None:
        primary = next((row.id for row in rows.values() if row.primary), None)
        return f"the primary ({one_line(primary)})" if primary else "the primary"
    row = rows.get(msg.environment_id)
    name = one_line(msg.environment_id)
    if row is None:
        return f"{name} (not in the table)"
    return f"{name} ({one_line(row.kind)}, {'primary' if row.primary else 'not primary'})"


def asked_lines(msg: RequestPending) -> list[str]:
    """What is asked, in lines: the command or files, the cwd and reason, the questions."""
    lines: list[str] = []
    if msg.kind == "command":
        lines.append(f"$ {one_line(msg.command or '(no command given)')}")
    elif msg.kind == "file_change":
        lines += [one_line(change) for change in msg.changes[:5]] or ["(files not named)"]
        if len(msg.changes) > 5:
            lines.append(f"and {len(msg.changes) - 5} more files")
    elif msg.kind == "permissions":
        lines.append(f"grant: {one_line(permissions_text(msg.permissions))}")
    for question in msg.questions:
        choices = [
            f"{o.label}: {o.description}" if o.description else o.label for o in question.options
        ]
        if question.other or not choices:
            choices.append("any text")
        head = f"{question.header}: " if question.header else ""
        secret = " (secret)" if question.secret else ""
        lines.append(one_line(f"{head}{question.question}{secret} [{' | '.join(choices)}]"))
    where = [f"cwd {msg.cwd}"] if msg.cwd else []
    if msg.reason:
        where.append(f"reason: {msg.reason}")
    if where:
        lines.append(one_line(" · ".join(where)))
    if msg.decisions:
        lines.append(one_line(f"Codex offers: {', '.join(msg.decisions)}"))
    return lines


def request_heading(
    request: PendingRequest,
    rows: dict[str, EnvironmentRow],
    now: datetime,
    marked: bool,
    *,
    named: bool = False,
) -> str:
    """The request's first line; ``named``: with its thread (several threads wait)."""
    msg = request.msg
    waited = span((now - request.since).total_seconds()) if request.since else "?"
    mark = "▶" if marked else " "
    head = f"{mark} #{one_line(str(msg.request_id))} {KIND_WORDS[msg.kind]}"
    head += f" on {environment_words(msg, rows)} · waiting {waited}"
    if named and msg.thread:
        head += f" · thread {one_line(msg.thread)}"
    if request.answer is not None:
        head += f" · {ANSWER_WORDS[request.answer.answer]}, waiting for Codex"
    return head


def keys_line(request: PendingRequest | None, can_answer: bool) -> str:
    """The keys for the marked request, as they apply to it."""
    if not can_answer:
        return "this view cannot answer Codex (`envtui codex` can, or --read-only declines)"
    if request is None or request.answer is not None:
        return "w: next request"
    if request.msg.kind == "user_input":
        return "r: answer · x: decline · w: next request"
    session = (
        "O: approve for the session" if offers_session(request.msg) else ("O: not offered by Codex")
    )
    return f"o: approve once · {session} · x: decline · w: next request"


def panel_text(
    needs_you: NeedsYou,
    rows: dict[str, EnvironmentRow],
    marked: RequestKey | None,
    now: datetime,
    can_answer: bool,
) -> str:
    """The panel's whole text ("" when nothing waits)."""
    requests = needs_you.requests()
    if not requests:
        return ""
    chosen = marked_request(needs_you, marked)
    lines: list[str] = []
    named = len({request.msg.thread for request in requests}) > 1  # a daemon's threads
    for request in requests[:SHOWN]:
        lines.append(request_heading(request, rows, now, request is chosen, named=named))
        lines += [f"    {line}" for line in asked_lines(request.msg)]
    if len(requests) > SHOWN:
        lines.append(f"  and {len(requests) - SHOWN} more waiting")
    lines.append(keys_line(chosen, can_answer))
    return "\n".join(lines)


def marked_request(needs_you: NeedsYou, marked: RequestKey | None) -> PendingRequest | None:
    """The request the keys act on: the marked one while it waits, else the oldest."""
    requests = needs_you.requests()
    found = needs_you.find(marked) if marked is not None else None
    return found or (requests[0] if requests else None)


def next_marked(needs_you: NeedsYou, marked: RequestKey | None) -> RequestKey | None:
    """The request after the marked one (round and round)."""
    keys = [key_of(r.msg) for r in needs_you.requests()]
    if not keys:
        return None
    current = marked_request(needs_you, marked)
    index = keys.index(key_of(current.msg)) if current is not None else -1
    return keys[(index + 1) % len(keys)]


def confirmation_line(msg: RequestPending, answer: Answer, rows: dict[str, EnvironmentRow]) -> str:
    """What the operator confirms: the answer, the command (or what is asked), where."""
    if msg.kind == "command":
        what = msg.command or "the command"
    elif msg.kind == "file_change":
        what = ", ".join(msg.changes) or "the file change"
    elif msg.kind == "permissions":
        what = f"permissions {permissions_text(msg.permissions)}"
    else:
        what = "the questions"
    line = f"{ACTION_WORDS[answer]} #{msg.request_id}: {what} on {environment_words(msg, rows)}?"
    return one_line(line)


def answer_message(
    request: PendingRequest, answer: Answer, key: str, answers: dict[str, list[str]] | None = None
) -> RequestAnswered:
    msg = request.msg
    return RequestAnswered(
        request_id=msg.request_id,
        kind=msg.kind,
        answer=answer,
        key=key,
        thread=msg.thread,
        environment_id=msg.environment_id,
        command=msg.command,
        answers=answers,
    )


class NeedsYouPanel(Static):
    """The panel: hidden while nothing waits."""

    DEFAULT_CSS = """
    NeedsYouPanel { height: auto; max-height: 16; border: round $warning; padding: 0 1;
                    display: none; }
    NeedsYouPanel.-visible { display: block; }
    """

    def show(self, text: str, waiting: int) -> None:
        self.border_title = f"{glyphs().warning} needs you · {waiting} waiting"
        self.update(Text(for_terminal(text), no_wrap=True, overflow="ellipsis"))
        self.set_class(bool(text), "-visible")


class ConfirmAnswer(ModalScreen[bool]):
    """One confirmation line: ``enter`` sends the answer, ``esc`` does not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "send", "Send", id="confirm_send"),
        Binding("escape", "cancel", "Cancel", id="confirm_cancel"),
    ]
    DEFAULT_CSS = """
    ConfirmAnswer { align: center bottom; }
    ConfirmAnswer > Static { width: 100%; height: auto; border: round $warning;
                             background: $panel; padding: 0 1; }
    """

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line

    def compose(self) -> ComposeResult:
        text = f"{self.line}\nenter: send it to Codex · esc: do not send"
        yield Static(Text(for_terminal(text)), markup=False, id="confirm-line")

    def action_send(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class ReplyScreen(ModalScreen[dict[str, list[str]] | None]):
    """The questions of a user-input request, one text box each (a secret one hidden);
    ``enter`` in the last box sends the answers, ``esc`` does not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="reply_cancel")
    ]
    DEFAULT_CSS = """
    ReplyScreen { align: center middle; }
    ReplyScreen > Vertical { width: 90%; height: auto; border: round $warning;
                             background: $panel; padding: 0 1; }
    ReplyScreen Input { margin: 0 0 1 0; }
    """

    def __init__(self, msg: RequestPending, heading: str) -> None:
        super().__init__()
        self.msg = msg
        self.heading = heading

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(for_terminal(self.heading)), markup=False)
            for number, question in enumerate(self.msg.questions):
                options = ", ".join(o.label for o in question.options)
                label = f"{question.header}: {question.question}" + (
                    f" ({options})" if options else ""
                )
                yield Static(Text(one_line(label)), markup=False)
                yield Input(password=question.secret, id=f"answer-{number}")
            yield Static("enter in the last box: send to Codex · esc: do not send")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        boxes = list(self.query(Input))
        if event.input is not boxes[-1]:
            boxes[boxes.index(event.input) + 1].focus()
            return
        answers = {
            question.id: [box.value]
            for question, box in zip(self.msg.questions, boxes, strict=True)
            if box.value
        }
        self.dismiss(answers or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


AnswerSender = Callable[[RequestAnswered], str | None]


def send_words(sent: RequestAnswered, problem: str | None) -> tuple[str, bool]:
    """The toast after an answer: what was sent, or why not (and whether that is bad)."""
    if problem is not None:
        return f"not sent: {problem}", True
    return f"sent to Codex: {ACTION_WORDS[sent.answer]} #{sent.request_id}", False
