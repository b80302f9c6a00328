"""What an operator may be alerted about, as the store sees it happen.

The store notes five kinds of change: an incident opened, an incident resolved, an
environment that went down (became unavailable after being up or new), one that came
back (ready after being down), and a request of Codex that waits for the operator (once
per request: the same request asked again when its thread is resumed is not a new one).
An environment retrying goes starting → unavailable again and again while it is down;
that is one outage, so one alert, until it is ready again.

The queue is bounded and pure; delivering (the bell, a desktop notification, a command)
is the front end's and the runtime's (:mod:`envtui.sources.alerts`).
"""

from __future__ import annotations

from collections import deque
from datetime import datetime
from typing import Any, Literal, NamedTuple

from envtui.vocabulary.incident_messages import IncidentOpened, IncidentResolved
from envtui.vocabulary.terms import LiveState
from envtui.vocabulary.thread_messages import RequestPending

AlertKind = Literal[
    "incident_opened",
    "incident_resolved",
    "environment_unavailable",
    "environment_ready",
    "request_pending",
]
MAX_PENDING = 1_000
"""Alerts held until the front end takes them; beyond it the oldest are dropped (counted)."""


class Alert(NamedTuple):
    """One change worth telling an operator about.

    A plain tuple, made in C: a flapping fleet makes one for two events in three, and a
    frozen dataclass sets each of its nine fields through ``object.__setattr__``.
    """

    kind: AlertKind
    at: datetime | None
    environment_id: str | None = None
    code: str | None = None
    tool: str | None = None
    first_step: int | None = None
    step: int | None = None
    message: str | None = None
    severity: str | None = None
    host: str | None = None  # the host of the thread, in a view of several hosts
    thread: str | None = None  # the thread, in a view of several threads

    @classmethod
    def of_incident(cls, msg: IncidentOpened | IncidentResolved, at: datetime | None) -> Alert:
        if isinstance(msg, IncidentOpened):
            return cls(
                "incident_opened",
                at,
                msg.environment_id,
                msg.code,
                msg.tool,
                msg.first_step,
                msg.first_step,
                msg.message,
                msg.severity,
            )
        resolved: AlertKind = "incident_resolved"
        return cls(resolved, at, msg.environment_id, msg.code, msg.tool, msg.first_step, msg.step)

    @classmethod
    def of_request(cls, msg: RequestPending, at: datetime | None) -> Alert:
        """A thread started waiting for the operator: once per request (``first_step``
        None, ``code`` the request's kind, ``tool`` its id, so each request is its own)."""
        what = msg.command or ", ".join(msg.changes) or msg.reason or msg.kind
        return cls(
            "request_pending",
            at,
            msg.environment_id,
            code=msg.kind,
            tool=f"#{msg.request_id}",
            message=what,
            severity="warning",
        )

    @property
    def key(self) -> tuple[str, str | None, str | None, str | None, int | None]:
        """What makes two alerts the same: the same change of the same incident or host."""
        return (self.kind, self.code, self.environment_id, self.tool, self.first_step)

    def summary(self) -> str:
        """One line for a toast or a desktop notification (not yet made safe)."""
        who = self.environment_id or self.tool or "thread"
        if self.kind == "incident_opened":
            return f"incident: {self.code} ({who}): {self.message or ''}".rstrip(": ")
        if self.kind == "incident_resolved":
            return f"resolved: {self.code} ({who})"
        if self.kind == "request_pending":
            where = f"on {self.environment_id}" if self.environment_id else "on the primary"
            whose = f"{self.host} " if self.host else ""
            whose += f"thread {self.thread} " if self.thread else ""
            return f"needs you: {whose}{self.code} {where}: {self.message or ''}".rstrip(": ")
        if self.kind == "environment_unavailable":
            return f"{who} unavailable" + (f": {self.message}" if self.message else "")
        return f"{who} ready again"

    def as_json(self) -> dict[str, Any]:
        """The object an alert command reads on its standard input (one per line)."""
        return {
            "kind": self.kind,
            "at": self.at.isoformat() if self.at is not None else None,
            "environment_id": self.environment_id,
            "code": self.code,
            "tool": self.tool,
            "first_step": self.first_step,
            "step": self.step,
            "severity": self.severity,
            "message": self.message,
            "summary": self.summary(),
            **({"host": self.host} if self.host is not None else {}),
            **({"thread": self.thread} if self.thread is not None else {}),
        }


class AlertQueue:
    """Alerts waiting for the front end; knows which environments are down."""

    def __init__(self, limit: int = MAX_PENDING) -> None:
        self._pending: deque[Alert] = deque(maxlen=limit)
        self._down: set[str] = set()
        self.dropped = 0
        self.wanted = True
        """False: nobody takes alerts (every way of delivering them is off), so none are
        held; which environments are down is still followed."""

    def add(self, alert: Alert) -> None:
        if not self.wanted:
            return
        if len(self._pending) == self._pending.maxlen:
            self.dropped += 1
        self._pending.append(alert)

    def status(
        self, environment_id: str, status: LiveState, at: datetime | None, error: str | None
    ) -> None:
        """An environment's new status: alert when it goes down or comes back, once each."""
        if status == "unavailable" and environment_id not in self._down:
            self._down.add(environment_id)
            if self.wanted:
                self.add(Alert("environment_unavailable", at, environment_id, message=error))
        elif status == "ready" and environment_id in self._down:
            self._down.discard(environment_id)
            if self.wanted:
                self.add(Alert("environment_ready", at, environment_id))

    def removed(self, environment_id: str) -> None:
        self._down.discard(environment_id)

    def take(self) -> list[Alert]:
        """Every alert since the last call, oldest first; the queue is empty after."""
        out = list(self._pending)
        self._pending.clear()
        return out
