"""What ``--metrics`` exports, folded from events or from sessions summaries.

The fold keeps, per thread, each environment's kind, status and primary flag, how often
each environment entered each status, the findings counted and the active incidents (the
dashboard's incident fold, :mod:`envtui.incidents.fold`), whether the thread waits for the
operator (on an approval, on input); and, for the whole process, the
events by type and whether each source is up. The HTTP server reads it from its own
thread, so every change and every read holds the lock, and a read gets a copy.

A thread that ended (its rollout no longer written, or gone) keeps its series for the
retention, then they are dropped, so a scrape never grows with every thread ever seen.
A thread exports at most ``max_environments`` environments (the primary first, then in
the order they were named); how many more it named is its ``dropped`` count, exported as
a series of its own, and said once, the first time a thread goes over, through
``notice`` and the debug log. One rollout that names 10,000 environments is then 500
environments' series, not 30,000.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from envtui.incidents.fold import IncidentFold
from envtui.incidents.thread_summary import SUMMARY_INCIDENTS, EnvironmentState, ThreadSummary
from envtui.vocabulary import debug_log
from envtui.vocabulary.events import (
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    FindingReported,
    StepRecorded,
)
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.thread_messages import (
    ThreadStatusChanged,
    WaitingReason,
    waiting_reasons,
)

DEFAULT_RETENTION = 15 * 60.0
DEFAULT_MAX_ENVIRONMENTS = 500
MAX_DROPPED_IDS = 100_000
"""Distinct environment ids over the cap remembered per thread (the count stops there)."""


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
    dropped: int = 0  # environments named beyond the cap, not exported
    fold: IncidentFold = field(
        default_factory=lambda: IncidentFold(max_incidents=SUMMARY_INCIDENTS, history=1)
    )
    ended_at: float | None = None
    dropped_ids: set[str] = field(default_factory=set)  # from events: which were dropped
    waiting: tuple[WaitingReason, ...] | None = None
    """Why the thread waits for the operator (None: its status is not known)."""
    host: str | None = None
    """The host the thread runs on, in a view of several (its series carry a ``host`` label)."""
    thread_id: str | None = None
    """The thread's id when its key is not (a host's thread is keyed ``host/id``)."""


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
        max_environments: int = DEFAULT_MAX_ENVIRONMENTS,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.retention = retention
        self.clock = clock
        self.max_environments = max_environments
        self._notice = notice
        self._said_capped = False
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
            if isinstance(msg, EnvironmentStatus) and not self._admit(series, msg.environment_id):
                pass  # over the cap: counted, not exported
            elif isinstance(msg, EnvironmentStatus):
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

    def _admit(self, series: ThreadSeries, env_id: str) -> bool:
        """Whether an environment of an event gets series (the cap); counts those dropped."""
        if env_id in series.statuses or len(series.statuses) < self.max_environments:
            return True
        if env_id not in series.dropped_ids and len(series.dropped_ids) < MAX_DROPPED_IDS:
            series.dropped_ids.add(env_id)
            series.dropped = len(series.dropped_ids)
            self._capped(self._thread, series.dropped)
        return False

    def _capped(self, thread: str, dropped: int) -> None:
        """Say once, for the first thread over the cap, that series were dropped."""
        if self._said_capped:
            return
        self._said_capped = True
        text = (
            f"metrics: thread {one_line(thread) or '(unnamed)'} names more than "
            f"{self.max_environments} environments ({dropped} over, so far): those beyond "
            f"--metrics-max-environments have no series; envtui_environments_dropped counts them"
        )
        debug_log.logger(__name__).warning("%s", text)
        if self._notice is not None:
            self._notice(text)

    def _rename(self, thread: str) -> None:
        """The thread's id became known: what was counted without it is its own."""
        before = self._threads.pop(self._thread, None)
        if before is not None and thread not in self._threads:
            self._threads[thread] = before
        self._thread = thread

    # --- sessions ---------------------------------------------------------------------------

    def sessions(
        self,
        threads: Iterable[ThreadSummary],
        gone: Iterable[str] = (),
        waiting: Mapping[str, tuple[WaitingReason, ...]] | None = None,
    ) -> None:
        """Each thread's series from its summary; one not live, or gone, has ended.
        ``waiting``: why each thread whose host's daemon says its status waits (by key)."""
        now = self.clock()
        with self._lock:
            for summary in threads:
                thread = summary.key
                old = self._threads.get(thread)
                if summary.live:
                    self._expired.discard(thread)
                elif thread in self._expired:
                    continue
                kept = self._kept(summary)
                series = ThreadSeries(
                    statuses={i: (e.kind, e.status, e.primary) for i, e in kept.items()},
                    transitions=Counter(
                        {k: n for k, n in summary.transitions.items() if k[0] in kept}
                    ),
                    findings=Counter(summary.findings),
                    incidents=list(summary.incidents),
                    latest_step=summary.latest_step,
                    dropped=len(summary.environments) - len(kept),
                    host=summary.host or None,
                    thread_id=summary.thread_id,
                    waiting=(waiting or {}).get(thread),
                )
                if series.dropped:
                    self._capped(thread, series.dropped)
                if not summary.live:
                    ended = old.ended_at if old is not None else None
                    series.ended_at = ended if ended is not None else now
                self._threads[thread] = series
            for thread in gone:
                if thread in self._threads and self._threads[thread].ended_at is None:
                    self._threads[thread].ended_at = now

    def _kept(self, summary: ThreadSummary) -> dict[str, EnvironmentState]:
        """The environments of a summary that get series: the primary first, then in order."""
        environments = summary.environments
        if len(environments) <= self.max_environments:
            return environments
        primary = [i for i, e in environments.items() if e.primary]
        order = [*primary, *(i for i in environments if i not in primary)]
        return {i: environments[i] for i in order[: self.max_environments]}

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
                    s.dropped,
                    waiting=s.waiting,
                    host=s.host,
                    thread_id=s.thread_id,
                )
                for thread, s in self._threads.items()
            }
            return MetricsSnapshot(threads, dict(self._events), dict(self._sources))
