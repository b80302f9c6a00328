"""The "needs you" panel: what Codex waits on the operator for, and how it is answered.

While Codex waits (an approval, a question) the panel shows each request, oldest first:
the environment it is for (its id, kind, and whether it is the primary), the command, the
file change or the permission, the cwd, the reason, and how long it has waited. The keys
act on the request marked ``▶`` (``w`` moves the mark): approve once, approve for the
session where Codex offers it, decline, or, for questions, answer them in text. Every
answer first shows a confirmation (:mod:`.confirm`) that repeats everything it grants;
only ``y`` there sends it. Nothing here sends anything on its own: a confirmed answer is
posted as :class:`NeedsYouPanel.Answered`, which the screen hands to the dashboard's
answers door (``DashboardOptions.answers``).

A command is shown with its whitespace runs in words and, when long, as its head and
tail (:func:`~envtui.vocabulary.request_words.visible_command`), so its end is never out
of sight; its kind (input for a running terminal is not a command) and every other grant
(a network host, more permissions, proposed rules) are lines of their own.

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
from textual.message import Message
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
from envtui.vocabulary.answers import offers_session, shown_digest
from envtui.vocabulary.request_words import visible_command
from envtui.vocabulary.safe_text import for_terminal, one_line
from envtui.vocabulary.terms import duration_words
from envtui.vocabulary.thread_messages import Answer, RequestAnswered, RequestPending

SHOWN = 4
"""Requests the panel lists in full; the rest are counted."""
PANEL_COMMAND = 160
"""Characters of a command the panel shows (its head and tail past it)."""
COMMAND_KIND_WORDS = {
    "writeStdin": "input for a terminal that already runs (writeStdin), not a new command",
    "humanCommand": "a checkpoint that needs a person's decision (humanCommand)",
}
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
    """``devbox (exec-server, not primary)``; a file change is for the primary. An
    environment that is not ready says so, with its own error: approving a command there
    runs nothing until it is back."""
    if msg.environment_id is None:
        primary = next((row.id for row in rows.values() if row.primary), None)
        return f"the primary ({one_line(primary)})" if primary else "the primary"
    row = rows.get(msg.environment_id)
    name = one_line(msg.environment_id)
    if row is None:
        return f"{name} (not in the table)"
    words = f"{one_line(row.kind)}, {'primary' if row.primary else 'not primary'}"
    if row.status != "ready":
        words += f", {row.status}" + (f": {one_line(row.error)}" if row.error else "")
    return f"{name} ({words})"


def asked_lines(msg: RequestPending) -> list[str]:
    """What is asked, in lines: the command or files, the cwd and reason, the questions."""
    lines: list[str] = []
    if msg.kind == "command":
        lines += command_lines(msg, PANEL_COMMAND)
    elif msg.kind == "file_change":
        lines += [one_line(change) for change in msg.changes[:5]] or ["(files not named)"]
        if len(msg.changes) > 5:
            lines.append(f"and {len(msg.changes) - 5} more files")
    elif msg.kind == "permissions":
        lines.append(f"grant: {one_line(permissions_text(msg.permissions))}")
    if msg.kind != "command":
        lines += [one_line(grant) for grant in msg.grants or []]
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


def command_lines(msg: RequestPending, budget: int) -> list[str]:
    """A command request's kind (when it is not a plain command), its command shown so
    nothing in it hides (whitespace in words, head and tail past ``budget``), its length
    when it was cut, and the other grants, in lines."""
    lines: list[str] = []
    if msg.command_kind is not None:
        lines.append(
            one_line(f"kind: {COMMAND_KIND_WORDS.get(msg.command_kind, msg.command_kind)}")
        )
    shown = visible_command(msg.command, budget) if msg.command else "(no command given)"
    prompt = "stdin>" if msg.command_kind == "writeStdin" else "$"
    lines.append(one_line(f"{prompt} {shown}"))
    length = msg.command_length
    if length is not None and (len(shown) < length or length != len(msg.command or "")):
        digest = f", sha256 {msg.command_sha256[:16]}…" if msg.command_sha256 else ""
        lines.append(f"(the whole command: {length:,} characters{digest})")
    lines += [one_line(grant) for grant in msg.grants or []]
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
    waited = duration_words((now - request.since).total_seconds()) if request.since else "?"
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


def answer_message(
    request: PendingRequest, answer: Answer, key: str, answers: dict[str, list[str]] | None = None
) -> RequestAnswered:
    msg = request.msg
    return RequestAnswered(
        request_id=msg.request_id,
        generation=msg.generation,
        shown=shown_digest(msg),
        kind=msg.kind,
        answer=answer,
        key=key,
        thread=msg.thread,
        environment_id=msg.environment_id,
        command=msg.command,
        command_sha256=msg.command_sha256,
        answers=answers,
    )


class NeedsYouPanel(Static):
    """The panel: hidden while nothing waits. A confirmed answer is posted from here as
    :class:`Answered`, for the screen to send."""

    class Answered(Message):
        """The operator confirmed ``answer`` for the request it names (its generation and
        the digest of what was shown included)."""

        def __init__(self, answer: RequestAnswered) -> None:
            super().__init__()
            self.answer = answer

    DEFAULT_CSS = """
    NeedsYouPanel { height: auto; max-height: 16; border: round $warning; padding: 0 1;
                    display: none; }
    NeedsYouPanel.-visible { display: block; }
    """

    def show(self, text: str, waiting: int) -> None:
        self.border_title = f"{glyphs().warning} needs you · {waiting} waiting"
        self.update(Text(for_terminal(text), no_wrap=True, overflow="ellipsis"))
        self.set_class(bool(text), "-visible")


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
