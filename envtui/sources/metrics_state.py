"""What ``--metrics`` exports, folded from events or from sessions summaries.

The fold keeps, per thread, each environment's kind, status and primary flag, how often
each environment entered each status, the findings counted and the active incidents (the
dashboard's incident fold, :mod:`envtui.incidents.fold`), whether the thread waits for the
operator (on an approval, on input); and, for the whole process, the
events by type and whether each source is up. The HTTP server reads it from its own
thread, so every change and every read holds the lock, and a read gets a copy.

A thread that ended (its rollout no longer written, or gone) keeps its series for the
retention, then they are dropped, so a scrape never grows with every thread ever seen.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from envtui.incidents.fold import IncidentFold
from envtui.incidents.thread_summary import SUMMARY_INCIDENTS, ThreadSummary
from envtui.vocabulary.events import (
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    FindingReported,
    StepRecorded,
)
from envtui.vocabulary.thread_messages import (
    ThreadStatusChanged,
    WaitingReason,
    waiting_reasons,
)

DEFAULT_RETENTION = 15 * 60.0


@dataclass
class ThreadSeries:
    """One thread's series."""

    statuses: dict[str, tuple[str, str, bool]] = field(
        default_factory=dict
    )  # kind, status, primary
    transitions: Counter[tuple[str, str]] = field(default_factory=Counter)  # (environment, to)
    findings: Counter[str] = field(default_factory=Counter)
    incidents: list[str] = field(default_factory=list)
    latest_step: int | None = None
    fold: IncidentFold = field(
        default_factory=lambda: IncidentFold(max_incidents=SUMMARY_INCIDENTS, history=1)
    )
    ended_at: float | None = None
    waiting: tuple[WaitingReason, ...] | None = None
    """Why the thread waits for the operator (None: its status is not known)."""


@dataclass
class MetricsSnapshot:
    threads: dict[str, ThreadSeries]
    events: dict[str, int]
    sources: dict[str, bool]


class MetricsState:
    """The exported values; see the module."""

    def __init__(
        self,
        *,
        retention: float = DEFAULT_RETENTION,
        thread: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.retention = retention
        self.clock = clock
        self._thread = thread  # the label of events that name no thread
        self._lock = threading.Lock()
        self._threads: dict[str, ThreadSeries] = {}
        self._expired: set[str] = set()
        self._events: Counter[str] = Counter()
        self._sources: dict[str, bool] = {}

    # --- events (events, watch, codex) -----------------------------------------------------

    def event(self, event: Event) -> None:
        with self._lock:
            msg = event.msg
            self._events[msg.type] += 1
            named = msg.thread if isinstance(msg, StepRecorded | ThreadStatusChanged) else None
            if named and named != self._thread:
                self._rename(named)
            series = self._threads.setdefault(self._thread, ThreadSeries())
            if isinstance(msg, EnvironmentStatus):
                before = series.statuses.get(msg.environment_id)
                if before is None or before[1] != msg.status:
                    series.transitions[(msg.environment_id, msg.status)] += 1
                series.statuses[msg.environment_id] = (msg.kind, msg.status, msg.primary)
            elif isinstance(msg, EnvironmentRemoved):
                series.statuses.pop(msg.environment_id, None)
            elif isinstance(msg, StepRecorded):
                series.latest_step = msg.step
            elif isinstance(msg, FindingReported):
                series.findings[msg.code] += 1
            elif isinstance(msg, ThreadStatusChanged):
                series.waiting = waiting_reasons(msg.status)
            version = series.fold.version
            series.fold.apply(event)
            if series.fold.version != version or isinstance(msg, StepRecorded):
                series.incidents = series.fold.open_codes()

    def _rename(self, thread: str) -> None:
        """The thread's id became known: what was counted without it is its own."""
        before = self._threads.pop(self._thread, None)
        if before is not None and thread not in self._threads:
            self._threads[thread] = before
        self._thread = thread

    # --- sessions ---------------------------------------------------------------------------

    def sessions(self, threads: Iterable[ThreadSummary], gone: Iterable[str] = ()) -> None:
        """Each thread's series from its summary; one not live, or gone, has ended."""
        now = self.clock()
        with self._lock:
            for summary in threads:
                thread = summary.thread_id
                old = self._threads.get(thread)
                if summary.live:
                    self._expired.discard(thread)
                elif thread in self._expired:
                    continue
                series = ThreadSeries(
                    statuses={
                        i: (e.kind, e.status, e.primary) for i, e in summary.environments.items()
                    },
                    transitions=Counter(summary.transitions),
                    findings=Counter(summary.findings),
                    incidents=list(summary.incidents),
                    latest_step=summary.latest_step,
                )
                if not summary.live:
                    ended = old.ended_at if old is not None else None
                    series.ended_at = ended if ended is not None else now
                self._threads[thread] = series
            for thread in gone:
                if thread in self._threads and self._threads[thread].ended_at is None:
                    self._threads[thread].ended_at = now

    # --- sources and reading ----------------------------------------------------------------

    def source_up(self, name: str, up: bool) -> None:
        with self._lock:
            self._sources[name] = up

    def snapshot(self) -> MetricsSnapshot:
        """A copy of every series, after dropping the threads that ended long enough ago."""
        now = self.clock()
        with self._lock:
            for thread, series in list(self._threads.items()):
                if series.ended_at is not None and now - series.ended_at > self.retention:
                    del self._threads[thread]
                    self._expired.add(thread)
            threads = {
                thread: ThreadSeries(
                    dict(s.statuses),
                    Counter(s.transitions),
                    Counter(s.findings),
                    list(s.incidents),
                    s.latest_step,
                    waiting=s.waiting,
                )
                for thread, s in self._threads.items()
            }
            return MetricsSnapshot(threads, dict(self._events), dict(self._sources))
