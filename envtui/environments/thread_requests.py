"""One app-server connection's thread status, and the requests it waits on the operator for.

The app-server says the thread's status with ``thread/status/changed`` (and in the
``thread`` its start or resume returns), and asks with server requests
(:mod:`envtui.environments.server_requests`). A request stays pending, however long, until
the app-server says ``serverRequest/resolved`` for its id (after an answer, or when Codex
withdraws it: the turn was interrupted) or the app-server is gone. When a thread is
resumed Codex asks a pending request again under the same id; that is the same request,
said once. Request ids are the connection's own: a new app-server starts counting again,
so whatever the old one left pending is said to be gone before the new one asks anything,
and every connection has a generation of its own (one count for the whole process) that
each request, answer and resolution carries: ``#0`` of one app-server is never ``#0`` of
the next.

Nothing is answered here on its own, with one exception the operator chose: ``read_only``
declines every request at once. Otherwise an answer comes from :meth:`answer`, which
checks that the request is still pending and that Codex takes that answer, sends it, and
records it (who gave it included) as an event. An answer names the request it was meant
for by its generation and by the digest of what the operator was shown
(:func:`~envtui.vocabulary.answers.shown_digest`); when the request is gone, or is not
the one shown, the answer is refused and a warning line says why.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from envtui.environments.jsonrpc import JsonRpcClient
from envtui.environments.server_requests import (
    METHODS,
    as_recorded,
    declined,
    file_changes,
    parse_request,
    response,
)
from envtui.vocabulary.answers import problem_with, shown_digest
from envtui.vocabulary.events import EventSink, WarningMessage, thread_event
from envtui.vocabulary.thread_messages import (
    AnyThreadMessage,
    RequestAnswered,
    RequestPending,
    RequestResolved,
    ResolvedHow,
    ThreadState,
    ThreadStatusChanged,
    asked_at,
)

STATUS_CHANGED = "thread/status/changed"
RESOLVED = "serverRequest/resolved"
ITEM_STARTED = "item/started"
MAX_PENDING = 256
"""Requests one connection keeps pending. Past it a new request is neither kept nor
answered: Codex still waits on it, so it is not said gone; a warning names it, and it is
answered where Codex asked it (declining the user's own session would be destructive)."""
MAX_FILE_ITEMS = 64
"""File-change items whose files are remembered for the request that follows them."""
_GENERATIONS = itertools.count(1)
"""Connection generations, counted for the whole process: a client made for a restarted
app-server never reuses its predecessor's."""


def thread_state(status: object) -> tuple[ThreadState, list[str]] | None:
    """Codex's ``ThreadStatus`` in envtui's words, with its flags; None if it is none."""
    if not isinstance(status, dict):
        return None
    kind = status.get("type")
    simple: dict[object, ThreadState] = {
        "notLoaded": "not_loaded",
        "idle": "idle",
        "systemError": "system_error",
    }
    if kind in simple:
        return simple[kind], []
    if kind != "active":
        return None
    raw = status.get("activeFlags")
    flags = [f for f in raw if isinstance(f, str)] if isinstance(raw, list) else []
    if "waitingOnApproval" in flags:
        return "waiting_on_approval", flags
    if "waitingOnUserInput" in flags:
        return "waiting_on_input", flags
    return "active", flags


class ThreadRequests:
    """The status and the pending requests of one app-server connection; see the module."""

    def __init__(
        self,
        sink: EventSink,
        clock: Callable[[], datetime],
        *,
        read_only: bool = False,
        operator: bool = False,
    ) -> None:
        self._sink = sink
        self._clock = clock
        self.read_only = read_only
        self.operator = operator
        """Someone can answer (the dashboard); without, a request is said to wait for ever."""
        self.rpc: JsonRpcClient | None = None
        self.generation = next(_GENERATIONS)
        """This connection's generation (see the module)."""
        self.thread: str | None = None
        self.pending: OrderedDict[int | str, RequestPending] = OrderedDict()
        self.answered: set[int | str] = set()
        self._files: OrderedDict[str, list[str]] = OrderedDict()
        self._said_unanswerable = False
        self.status: ThreadState | None = None
        self.asked_again = 0
        """Requests Codex asked again under an id still pending (a resumed thread)."""

    @staticmethod
    def waits_for_operator(message: Mapping[str, Any]) -> bool:
        """Whether a server request is one of those the operator answers."""
        return str(message.get("method")) in METHODS

    # --- hearing ------------------------------------------------------------------------------

    def seed(self, thread: Mapping[str, Any]) -> None:
        """The status of the thread just started or resumed."""
        self.thread = thread.get("id") if isinstance(thread.get("id"), str) else self.thread
        self._status(thread.get("status"), self._clock())

    def notification(self, method: object, params: Mapping[str, Any], at: datetime) -> bool:
        """Take a notification about the thread's status or its requests; True when it was
        one (it is then said as its typed event, not as a raw notification)."""
        if method == STATUS_CHANGED:
            if params.get("threadId") in (None, self.thread):
                self._status(params.get("status"), at)
            return True
        if method == RESOLVED:
            request_id = params.get("requestId")
            if isinstance(request_id, int | str) and request_id in self.pending:
                how: ResolvedHow = "answered" if request_id in self.answered else "withdrawn"
                self._resolve(request_id, how, at)
            return True
        if method == ITEM_STARTED:
            item = params.get("item")
            if isinstance(item, dict) and item.get("type") == "fileChange":
                self._remember_files(item)
        return False

    def request(self, message: Mapping[str, Any]) -> bool:
        """A server request: True when it waits for the operator (it is then pending)."""
        pending = parse_request(message, lambda item: self._files.get(item, []))
        if pending is None:
            return False
        if pending.request_id in self.pending:
            self.asked_again += 1  # the thread was resumed: the same request
            return True
        if len(self.pending) >= MAX_PENDING:
            self._emit(
                WarningMessage(
                    message=f"codex asks request #{pending.request_id} ({pending.kind}) while "
                    f"{MAX_PENDING} already wait: it is not shown here and not answered; "
                    "Codex waits until it is answered where it was asked, or withdrawn",
                    environment_id=pending.environment_id,
                    severity="error",
                ),
                self._clock(),
            )
            return True
        thread = pending.thread or self.thread
        pending = pending.model_copy(update={"thread": thread, "generation": self.generation})
        self.pending[pending.request_id] = pending
        self._emit(pending, self._asked_at(pending))
        if self.read_only:
            self._send(pending, declined(pending))
        elif not self.operator and not self._said_unanswerable:
            self._said_unanswerable = True
            self._emit(
                WarningMessage(
                    message=f"codex waits for an answer to request #{pending.request_id} "
                    f"({pending.kind}); nobody can answer here, so it waits until it is "
                    "withdrawn (--read-only declines every request at once; the dashboard, "
                    "`envtui codex`, answers them)",
                    environment_id=pending.environment_id,
                ),
                self._clock(),
            )
        return True

    def resolved(self, request_id: object, how: ResolvedHow, at: datetime) -> bool:
        """Codex resolved ``request_id`` (pending here) in a way the caller knows; False when
        it was not pending."""
        if not isinstance(request_id, int | str) or request_id not in self.pending:
            return False
        self._resolve(request_id, how, at)
        return True

    # --- answering ----------------------------------------------------------------------------

    def answer(self, answer: RequestAnswered) -> str | None:
        """Send the operator's ``answer``; why it was not sent, or None. An answer for a
        request that is gone, or that differs from what was shown, is refused and logged."""
        pending = self.pending.get(answer.request_id)
        refused = self._not_the_one_shown(pending, answer)
        if refused is not None:
            self._emit(WarningMessage(message=f"answer refused: {refused}"), self._clock())
            return refused
        assert pending is not None
        if answer.request_id in self.answered:
            return f"request #{answer.request_id} is already answered"
        problem = problem_with(pending, answer)
        if problem is not None:
            return problem
        return self._send(pending, answer)

    def _not_the_one_shown(
        self, pending: RequestPending | None, answer: RequestAnswered
    ) -> str | None:
        """Why ``answer`` is not for ``pending`` (gone, another connection's, or not what
        the operator was shown), or None."""
        number = f"request #{answer.request_id}"
        if pending is None or answer.thread not in (None, pending.thread):
            return f"{number} is no longer pending"
        if answer.generation is not None and answer.generation != self.generation:
            return f"{number} was asked by an app-server that is gone; this one's is another"
        if answer.shown is not None and answer.shown != shown_digest(pending):
            return f"{number} is not the request that was shown (it changed); nothing sent"
        return None

    def _send(self, pending: RequestPending, answer: RequestAnswered) -> str | None:
        rpc = self.rpc
        if rpc is None or not rpc.respond(pending.request_id, response(pending, answer)):
            return "the app-server is gone: the answer cannot reach it"
        self.answered.add(pending.request_id)
        self._emit(as_recorded(pending, answer), self._clock())
        return None

    # --- ending -------------------------------------------------------------------------------

    def gone(self) -> None:
        """The app-server is gone: its pending requests with it, and the thread's status is
        no longer known (not loaded anywhere envtui is attached)."""
        now = self._clock()
        for request_id in list(self.pending):
            self._resolve(request_id, "gone", now)
        if self.status not in (None, "not_loaded"):
            self.status = "not_loaded"
            self._emit(ThreadStatusChanged(thread=self.thread, status="not_loaded"), now)

    # --- inside -------------------------------------------------------------------------------

    def _status(self, status: object, at: datetime) -> None:
        state = thread_state(status)
        if state is not None:
            self.status = state[0]
            self._emit(ThreadStatusChanged(thread=self.thread, status=state[0], flags=state[1]), at)

    def _resolve(self, request_id: int | str, how: ResolvedHow, at: datetime) -> None:
        pending = self.pending.pop(request_id)
        self.answered.discard(request_id)
        self._emit(
            RequestResolved(
                request_id=request_id,
                generation=pending.generation,
                how=how,
                thread=pending.thread,
                environment_id=pending.environment_id,
            ),
            at,
        )

    def _remember_files(self, item: Mapping[str, Any]) -> None:
        item_id = item.get("id")
        if isinstance(item_id, str):
            self._files[item_id] = file_changes(item)
            while len(self._files) > MAX_FILE_ITEMS:
                self._files.popitem(last=False)

    def _asked_at(self, pending: RequestPending) -> datetime:
        return asked_at(pending) or self._clock()

    def _emit(
        self,
        msg: AnyThreadMessage | WarningMessage,
        at: datetime,
    ) -> None:
        self._sink(thread_event(msg, at=at))
