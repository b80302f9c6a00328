"""The event log's lines: one per event, its time apart from its text.

Keeping the time apart lets a view fold identical lines (the same text at other times)
into one with a count, and the type and environment let it filter; the text is made safe
for a terminal here, once.
"""

from __future__ import annotations

import math
import re
import sys
from datetime import datetime, tzinfo

from envtui.dashboard.needs_you import log_detail
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    FindingReported,
    SourceStatus,
    StepRecorded,
    UnknownMessage,
    WarningMessage,
    message_to_json,
)
from envtui.vocabulary.incident_messages import (
    IncidentAcknowledged,
    IncidentOpened,
    IncidentResolved,
)
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.terms import LiveState
from envtui.vocabulary.thread_messages import THREAD_MESSAGES

__all__ = ["OWN_MESSAGES", "LogEntry", "in_zone", "log_entry", "log_line"]


def in_zone(when: datetime, zone: tzinfo | None) -> datetime:
    """``when`` in the display zone (None: local); a time without a zone is shown as is."""
    return when.astimezone(zone) if when.tzinfo is not None else when


OWN_MESSAGES = frozenset(
    {
        "environment_status",
        "environment_removed",
        "warning",
        "step",
        "finding",
        "source_status",
        "incident_opened",
        "incident_resolved",
        "incident_acknowledged",
        "thread_status",
        "request_pending",
        "request_answered",
        "request_resolved",
    }
)
"""envtui's own messages: their empty thread id is left out of the log line. Codex's own
(connections, anything unknown) always show it, ``id ""`` included."""


def _shared(words: str) -> str:
    """``words``, as the one string already kept for the same words: the log keeps ten
    thousand lines, most of them repeats (a host that keeps failing, a finding raised at
    every step), and a repeat then costs no copy. Interned strings are let go with the last
    line that holds them, so nothing is kept for its own sake."""
    return sys.intern(words)


class LogEntry:
    """One event as a log line: its time apart from the rest, so identical lines (the same
    text at another time) can be folded, and its type and environment, to filter by.

    The words are written when first read (a line is drawn, folded, filtered or exported),
    not when the event arrives: a replay of a million events, or a log that keeps only its
    last lines, never pays for lines nobody reads. Until then the entry holds what they are
    written from: for a status, the most frequent, its words in the entry's own slots (its
    id, status, whether it is primary, its error, and the environment's status before it),
    not the event (two models, their dicts and field sets, the decoded JSON); for any other
    event, the event. Once written, only the text. The clock time is written each time it
    is read, from the time kept.
    """

    __slots__ = (
        "_error",
        "_id",
        "_previous",
        "_primary",
        "_status",
        "_words",
        "_zone",
        "at",
        "environment_id",
        "kind",
        "step",
        "step_sent",
    )

    def __init__(
        self, event: Event, zone: tzinfo | None = None, previous: LiveState | None = None
    ) -> None:
        self.at = event.at
        msg = event.msg
        self.kind: str = _shared(msg.type)  # a few names, each once, not once per line
        environment = getattr(msg, "environment_id", None)
        self.environment_id = _shared(environment) if isinstance(environment, str) else None
        self.step = msg.step if isinstance(msg, StepRecorded) else None
        """The step's number when this is a step's line (the log folds a window of steps
        into one line), else None."""
        self.step_sent = isinstance(msg, StepRecorded) and bool(msg.diff)
        """Whether this step sent the model a context change."""
        self._zone = zone
        self._words: Event | str | None = event
        if isinstance(msg, EnvironmentStatus):
            self._status_words(event.id, msg, previous)
        elif self.kind == "step":
            # A step's event carries its whole context, snapshot and tools, and a window of
            # steps folds into one line without its lines being read: its short words are
            # written now, so the event is never held.
            self._write()

    @classmethod
    def of_status(
        cls,
        event_id: str,
        msg: EnvironmentStatus,
        at: datetime | None,
        zone: tzinfo | None,
        previous: LiveState | None,
        environment_id: str,
    ) -> LogEntry:
        """A status event's line, as :class:`LogEntry` makes it, for a reader that already
        holds the environment's own id (one string for all its lines, not one per event)."""
        entry = cls.__new__(cls)
        entry.at, entry.kind, entry.environment_id = at, "environment_status", environment_id
        entry.step, entry.step_sent, entry._zone = None, False, zone
        entry._status_words(event_id, msg, previous)
        return entry

    def _status_words(
        self, event_id: str, msg: EnvironmentStatus, previous: LiveState | None
    ) -> None:
        self._words, self._id, self._previous = None, event_id, previous
        self._status, self._primary, self._error = msg.status, msg.primary, msg.error

    @property
    def time(self) -> str:
        """``12:00:01`` in the display zone; ``--:--:--`` for an event without a time."""
        at = self.at
        return _clock_time(at, self._zone) if at else "--:--:--"

    @property
    def text(self) -> str:
        """All but the time, made safe for a terminal: what folding compares."""
        words = self._words
        return words if isinstance(words, str) else self._write()

    def _write(self) -> str:
        words, kind = self._words, self.kind
        if words is None:  # a status: its words are the entry's own
            assert self.environment_id is not None
            event_id = self._id
            detail = _status_detail(
                self.environment_id, self._status, self._primary, self._error, self._previous
            )
            self._error = self._previous = None
        else:
            assert not isinstance(words, str)
            event_id, detail = words.id, _detail(words.msg)
        shown_id = "" if kind in OWN_MESSAGES and event_id == "" else f'id "{event_id}" '
        text = self._words = _shared(one_line(f"{shown_id}{kind} {detail}".rstrip()))
        return text

    @property
    def line(self) -> str:
        return f"{self.time} {self.text}"

    def __repr__(self) -> str:
        return f"LogEntry({self.line!r})"


_last_clock: tuple[object, str] = (None, "")
"""The last second written as a clock time, and its text: events come in bursts, most in
the same second as the one before, and a burst of a hundred thousand is written once."""


def _clock_time(at: datetime, zone: tzinfo | None) -> str:
    """``at`` as ``12:00:01`` in ``zone``; the same second in the same zone, the same text
    (one UTC second is one second of wall time in every zone)."""
    global _last_clock
    key = (math.floor(at.timestamp()), at.tzinfo is None, zone)
    if _last_clock[0] != key:
        _last_clock = (key, _shared(in_zone(at, zone).strftime("%H:%M:%S")))
    return _last_clock[1]


def _detail(msg: object) -> str:
    """The words of a message other than a status (:func:`_status_detail`)."""
    if isinstance(msg, EnvironmentConnected | EnvironmentDisconnected | EnvironmentRemoved):
        return msg.environment_id
    if isinstance(msg, WarningMessage):
        return msg.message
    if isinstance(msg, StepRecorded):
        return f"#{msg.step}" + (" context sent" if msg.diff else " no context change")
    if isinstance(msg, FindingReported):
        return _finding_detail(msg)
    if isinstance(msg, IncidentOpened | IncidentResolved | IncidentAcknowledged):
        return f"{msg.code} {msg.environment_id or msg.tool or ''}".rstrip()
    if isinstance(msg, SourceStatus):
        detail = f"{msg.source} {msg.state}" + (f": {msg.reason}" if msg.reason else "")
        return detail + (f" (restarts {msg.restarts})" if msg.restarts else "")
    if isinstance(msg, THREAD_MESSAGES):
        return log_detail(msg)
    if isinstance(msg, UnknownMessage):
        method = msg.raw.get("method")
        if method == "configWarning":
            return _config_warning(msg.raw.get("params"))
        return str(method) if isinstance(method, str) else str(message_to_json(msg))[:200]
    return ""


def _config_warning(params: object) -> str:
    """Codex's word on its config (``ConfigWarningNotification``): the method name alone
    would not say what to fix. Its summary, details and file, as plain text."""
    fields = params if isinstance(params, dict) else {}
    words = [str(fields[key]) for key in ("summary", "details") if isinstance(fields.get(key), str)]
    path = fields.get("path")
    where = f" ({path})" if isinstance(path, str) and path else ""
    return "configWarning: " + (": ".join(words) or "(no summary)") + where


_ROUTED = re.compile(r"ran in '(.+)', but the step (?:named|routed to the step's primary) '(.+)'$")
"""How steps/rules.py words an execution that ran elsewhere: where it ran, where it was sent."""


def _finding_detail(msg: FindingReported) -> str:
    """What a finding is about first (its environment, where a call was meant to run, or
    its tool), then its code and words: a line cut at the log's edge still says where."""
    subject = msg.environment_id or msg.tool or ""
    routed = _ROUTED.search(msg.message) if msg.code == "execution-routed-elsewhere" else None
    if routed is not None and routed[2] != subject:
        subject = f"{subject or routed[1]} → {routed[2]}"
    return f"{subject} · {msg.code}: {msg.message}" if subject else f"{msg.code}: {msg.message}"


def _status_detail(
    environment_id: str,
    status: LiveState,
    primary: bool,
    error: str | None,
    previous: LiveState | None,
) -> str:
    moved = f"{previous} → " if previous is not None and previous != status else ""
    detail = f"{environment_id} {moved}{status}"
    if primary:
        detail += " primary"
    return detail + (f": {error}" if error else "")


def log_entry(
    event: Event, zone: tzinfo | None = None, previous: LiveState | None = None
) -> LogEntry:
    """The event as a log line, its time in ``zone``; ``previous`` is the environment's
    status before a status event, shown as ``starting → unavailable``."""
    return LogEntry(event, zone, previous)


def log_line(event: Event, zone: tzinfo | None = None) -> str:
    """One readable line per event, its time in ``zone``."""
    return log_entry(event, zone).line
