"""The dashboard's state: a reducer over the event stream. No Textual, no I/O, no asyncio.

:meth:`Store.apply` folds one event in, touching only what the event concerns, and notes
what changed (environments by id, new log lines, steps, findings, incidents) so a view can
redraw just that, in one batch per frame. Findings are folded into incidents
(:mod:`envtui.incidents.fold`: at most ``max_steps`` of them are kept), and what is worth
an alert waits in a bounded queue for the front end. Every collection is bounded by a
number the config names, however long the dashboard runs: the event log keeps the last
``max_log_lines`` lines, the step history the last ``max_steps`` steps, each environment
its last ``environment_events`` lines; the counters are counts per known message type.

Times are written in one zone, ``zone`` (None: the local zone, followed across daylight
saving changes), so the log, the header and the details read the same clock.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from envtui.dashboard.log_lines import LogEntry
from envtui.dashboard.needs_you import NeedsYou
from envtui.dashboard.status_history import DEFAULT_TRANSITIONS, StatusHistory
from envtui.dashboard.step_rows import StepRow as StepRow  # re-exported: the views import it here
from envtui.dashboard.step_rows import step_export as step_export
from envtui.incidents.alert_items import Alert, AlertQueue
from envtui.incidents.fold import DEFAULT_HISTORY, IncidentFold
from envtui.vocabulary.events import (
    KNOWN_MESSAGES,
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    FindingReported,
    SourceStatus,
    StepRecorded,
)
from envtui.vocabulary.incident_messages import IncidentAcknowledged
from envtui.vocabulary.terms import LiveState, SourceState
from envtui.vocabulary.thread_messages import THREAD_MESSAGES, AnyThreadMessage

DEFAULT_LOG_LINES = 10_000
DEFAULT_STEPS = 1_000
DEFAULT_ENVIRONMENT_EVENTS = 50
MAX_SOURCES = 16
"""Sources named in ``source_status`` events that the store remembers (a replay may name
any number; a dashboard has one or two)."""
MAX_HISTORIES = 1_000
"""Environments whose history the store keeps, present or gone (a replay may name any
number of ids)."""
OTHER = "other"
"""The counter for messages of a type envtui does not know: counters stay a fixed set."""


@dataclass(slots=True)
class EnvironmentRow:
    """One environment as the table shows it (its fields in slots: a status event sets
    ten of them)."""

    id: str
    order: int
    kind: str = "?"
    status: LiveState = "starting"
    primary: bool = False
    shell: str | None = None
    shell_path: str | None = None
    cwd: str | None = None
    error: str | None = None
    changed_at: datetime | None = None
    next_retry_at: datetime | None = None
    connection: str | None = None  # the latest connection event: connected / disconnected
    recorded_step: int | None = None  # not live: the state a rollout recorded at this step
    has_live_status: bool = False
    """Whether a live status has come for it: what a rollout recorded no longer replaces
    it (Codex's own source sends both; the rollout's is older than what the host says)."""
    waiting: int = 0  # unanswered requests of Codex for this environment (approvals)
    events: deque[LogEntry] = field(
        default_factory=lambda: deque(maxlen=DEFAULT_ENVIRONMENT_EVENTS)
    )
    """Its recent log lines (their words are written when the details show them)."""
    history: StatusHistory = field(default_factory=StatusHistory)
    """Its status transitions, dated by their events (bounded)."""


@dataclass
class SourceRow:
    """A source's own state, as its latest ``source_status`` left it."""

    name: str
    state: SourceState
    reason: str | None
    since: datetime | None
    """When it last went from up to not up, or back."""
    restarts: int = 0
    next_retry_at: datetime | None = None


@dataclass
class Changes:
    """What changed since the view last looked."""

    environments: set[str]
    removed: set[str]
    log_lines: deque[LogEntry]
    """The newest lines, at most as many as the log holds: a paused view never needs more,
    and the oldest leave as new ones come, at no cost per line."""
    steps: bool
    findings: bool
    sources: bool = False
    steps_restarted: bool = False
    """The step numbers went back (a rollout replaced, another run): the history restarted."""
    incidents: bool = False
    """An incident opened, resolved or was acknowledged (or a step raised it again)."""
    requests: bool = False  # the thread's status, or a request of Codex, changed

    @property
    def any(self) -> bool:
        return bool(
            self.environments
            or self.removed
            or self.log_lines
            or self.steps
            or self.findings
            or self.sources
            or self.incidents
            or self.requests
        )


def _no_changes(max_log_lines: int = DEFAULT_LOG_LINES) -> Changes:
    return Changes(set(), set(), deque(maxlen=max_log_lines), False, False)


class Store:
    def __init__(
        self,
        *,
        max_log_lines: int = DEFAULT_LOG_LINES,
        max_steps: int = DEFAULT_STEPS,
        environment_events: int = DEFAULT_ENVIRONMENT_EVENTS,
        zone: tzinfo | None = None,
        status_history: int = DEFAULT_TRANSITIONS,
        incident_history: int = DEFAULT_HISTORY,
    ) -> None:
        """``incident_history``: the steps each incident keeps as its history (the oldest
        leave first); the other bounds are the config's."""
        self.environments: dict[str, EnvironmentRow] = {}
        self.log: deque[LogEntry] = deque(maxlen=max_log_lines)
        self.steps: deque[StepRow] = deque(maxlen=max_steps)
        self.thread_findings: deque[FindingReported] = deque(maxlen=max_steps)
        self.sources: dict[str, SourceRow] = {}
        self.counters: Counter[str] = Counter()
        self.thread: str | None = None
        self.zone = zone
        self.incidents = IncidentFold(max_incidents=max_steps, history=incident_history)
        """Findings folded into incidents (see :mod:`envtui.incidents.fold`)."""
        self.alerts = AlertQueue()
        """What an operator may be alerted about: new and resolved incidents, environments
        that became unavailable or ready again. Drained by the dashboard, paused or not."""
        self.needs_you = NeedsYou()  # the thread's status, and what Codex waits on
        self._next_order = 0
        self._max_log_lines = max_log_lines
        self._changes = _no_changes(max_log_lines)
        self._environment_events = environment_events
        self._status_history = status_history
        self.histories: dict[str, StatusHistory] = {}
        """Every environment's status history, also of those that left the selection."""
        self.latest_at: datetime | None = None
        """The newest event time seen: where a finished stream's history ends."""

    # --- reducing ------------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        msg, at = event.msg, event.at
        kind = msg.type
        counters = self.counters
        counters[kind if kind in KNOWN_MESSAGES else OTHER] += 1
        counters["total"] += 1
        if at is not None and (self.latest_at is None or at > self.latest_at):
            self.latest_at = at
        if isinstance(msg, EnvironmentStatus):  # most events are
            self._status(event.id, msg, at)
            if not self.incidents.settles_on_next_event:
                return  # a status is nothing to the incidents but the end of a step
        else:
            entry = LogEntry(event, self.zone)
            self._log(entry)
            self._other(msg, at, entry)
        self._incidents(event)

    def _log(self, entry: LogEntry) -> None:
        self.log.append(entry)
        self._changes.log_lines.append(entry)

    def _other(self, msg: object, at: datetime | None, entry: LogEntry) -> None:
        """Every message but a status, the most frequent, which :meth:`apply` takes itself."""
        if isinstance(msg, EnvironmentConnected | EnvironmentDisconnected):
            self._connection(msg, at, entry)
        elif isinstance(msg, EnvironmentRemoved):
            self.alerts.removed(msg.environment_id)
            gone = self.environments.pop(msg.environment_id, None)
            if gone is not None:
                gone.history.record("removed", at or self.latest_at)
                self._changes.removed.add(msg.environment_id)
                self._changes.environments.discard(msg.environment_id)
        elif isinstance(msg, StepRecorded):
            self._step(msg, at)
        elif isinstance(msg, FindingReported):
            self._finding(msg)
        elif isinstance(msg, SourceStatus):
            self._source(msg, at)
        elif isinstance(msg, THREAD_MESSAGES):
            self._needs_you(msg, at)

    def _needs_you(self, msg: AnyThreadMessage, at: datetime | None) -> None:
        """The thread's status and requests: the rows they wait on, and an alert for each
        request Codex had not asked before (:mod:`envtui.dashboard.needs_you`)."""
        version, asked = self.needs_you.version, self.needs_you.apply(msg, at)
        if asked is not None:
            self.alerts.add(Alert.of_request(asked, at))
        if self.needs_you.version != version:
            self._changes.requests = True
            for row in self.environments.values():
                if row.waiting != (waiting := self.needs_you.waiting_on(row.id)):
                    row.waiting = waiting
                    self._changes.environments.add(row.id)

    def _incidents(self, event: Event) -> None:
        version = self.incidents.version
        for message in self.incidents.apply(event):
            if not isinstance(message, IncidentAcknowledged):
                self.alerts.add(Alert.of_incident(message, event.at))
        if self.incidents.version != version:
            self._changes.incidents = True

    def apply_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.apply(event)

    def _row(self, environment_id: str) -> EnvironmentRow:
        row = self.environments.get(environment_id)
        if row is None:
            row = EnvironmentRow(
                environment_id,
                self._next_order,
                events=deque(maxlen=self._environment_events),
                history=self._history_of(environment_id),
                waiting=self.needs_you.waiting_on(environment_id),
            )
            self._next_order += 1
            self.environments[environment_id] = row
            self._changes.removed.discard(environment_id)
        return row

    def _history_of(self, environment_id: str) -> StatusHistory:
        """The environment's history, kept when it left the selection: one that comes back
        goes on with it (the oldest of more than MAX_HISTORIES ids are forgotten)."""
        history = self.histories.pop(environment_id, None) or StatusHistory(self._status_history)
        self.histories[environment_id] = history  # the newest last
        if len(self.histories) > MAX_HISTORIES:
            del self.histories[next(iter(self.histories))]
        return history

    def _status(self, event_id: str, msg: EnvironmentStatus, at: datetime | None) -> None:
        row = self.environments.get(msg.environment_id)
        if row is None:
            row, previous = self._row(msg.environment_id), None
        else:
            previous = row.status  # the log shows the change
        line = LogEntry.of_status(event_id, msg, at, self.zone, previous, row.id)
        self.log.append(line)
        changes = self._changes
        changes.log_lines.append(line)
        if msg.recorded_step is None or not row.has_live_status:
            self._show_status(row, msg, at)  # else only in its log: the live status stands
        row.events.append(line)
        changes.environments.add(row.id)

    def _show_status(
        self, row: EnvironmentRow, msg: EnvironmentStatus, at: datetime | None
    ) -> None:
        """The row takes the status as its own: the table, the strip and the alerts follow."""
        status, recorded_step = msg.status, msg.recorded_step
        if recorded_step is None:
            row.has_live_status = True
        self.alerts.status(msg.environment_id, status, at, msg.error)
        if row.status != status or row.changed_at is None:
            row.changed_at = at
        row.kind, row.status, row.primary = msg.kind, status, msg.primary
        row.shell, row.shell_path, row.cwd = msg.shell, msg.shell_path, msg.cwd
        row.error, row.next_retry_at = msg.error, msg.next_retry_at
        row.recorded_step = recorded_step
        row.history.record(status, at or self.latest_at)

    def _connection(
        self,
        msg: EnvironmentConnected | EnvironmentDisconnected,
        at: datetime | None,
        line: LogEntry,
    ) -> None:
        row = self._row(msg.environment_id)
        row.connection = "connected" if isinstance(msg, EnvironmentConnected) else "disconnected"
        # A raw Codex stream (a replay of its events) carries no status events, so a lost
        # connection alone makes a ready row unavailable; a source that reports statuses
        # follows with its own, more precise, reason a moment later.
        if row.connection == "disconnected" and row.status == "ready":
            row.status, row.error, row.changed_at = "unavailable", "disconnected", at
            row.history.record("unavailable", at or self.latest_at)
        row.events.append(line)
        self._changes.environments.add(row.id)

    def _step(self, msg: StepRecorded, at: datetime | None) -> None:
        if self.steps and msg.step <= self.steps[-1].number:
            # Numbers went back: a new run of steps (a replaced rollout, a second recording).
            # Mixing the two would show one run's context under the other's numbers.
            self.steps.clear()
            self._changes.steps_restarted = True
        tools: list[tuple[str, str]] | None = None
        if msg.tools is not None:
            tools = [(t.name, str(t.environment_id)) for t in msg.tools]
        self.steps.append(
            StepRow(
                msg.step,
                at,
                msg.thread,
                msg.text,
                msg.diff,
                msg.snapshot,
                msg.patch,
                tools,
                list(msg.notes),
                before=self.steps[-1] if self.steps else None,
            )
        )
        if msg.thread:
            self.thread = msg.thread
        self._changes.steps = True
        for row in self.environments.values():
            if row.recorded_step is not None:  # what was recorded holds until a status changes
                row.recorded_step = msg.step
                self._changes.environments.add(row.id)

    def _finding(self, msg: FindingReported) -> None:
        if msg.step is not None:
            for step in reversed(self.steps):
                if step.number == msg.step:
                    step.add_finding(msg)
                    self._changes.findings = True
                    return
        self.thread_findings.append(msg)
        self._changes.findings = True

    def _source(self, msg: SourceStatus, at: datetime | None) -> None:
        row = self.sources.get(msg.source)
        if row is None:
            if len(self.sources) >= MAX_SOURCES:
                del self.sources[next(iter(self.sources))]
            row = self.sources[msg.source] = SourceRow(msg.source, msg.state, msg.reason, at)
        elif (row.state == "up") != (msg.state == "up"):
            row.since = at  # down, restarting and again down are one outage
        row.state, row.reason = msg.state, msg.reason
        row.restarts, row.next_retry_at = msg.restarts, msg.next_retry_at
        if msg.thread:
            self.thread = msg.thread
        self._changes.sources = True

    # --- reading -------------------------------------------------------------------------------

    @property
    def has_changes(self) -> bool:
        """Whether anything changed that no view has taken yet."""
        return self._changes.any

    def take_changes(self) -> Changes:
        """What changed since the last call; the view redraws exactly that."""
        changes, self._changes = self._changes, _no_changes(self._max_log_lines)
        return changes

    def findings(self) -> list[FindingReported]:
        """Every finding still held, newest step first, then the per-thread ones."""
        out = [f for step in reversed(self.steps) for f in step.findings]
        return out + list(self.thread_findings)

    def step(self, number: int) -> StepRow | None:
        return next((s for s in reversed(self.steps) if s.number == number), None)

    def steps_after(self, number: int) -> int:
        """How many held steps came after step ``number``: how far from live it is."""
        return sum(1 for s in self.steps if s.number > number)

    @property
    def primary(self) -> str | None:
        return next((r.id for r in self.environments.values() if r.primary), None)
