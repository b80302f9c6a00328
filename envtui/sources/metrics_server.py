"""The Prometheus endpoint of ``--metrics HOST:PORT``: ``/metrics`` in the text format.

Served by the official ``prometheus-client`` from its own thread, over a registry of its
own that holds one collector: at each scrape the collector takes a snapshot of
:class:`MetricsState` and writes every series from it, so a series that left the state
(an environment removed, a thread past its retention) is gone from the next scrape.
Label values are the ids with every character a terminal would act on written as an
escape (:func:`~envtui.vocabulary.safe_text.for_terminal`: ESC as ``\\x1b``), as ``--json``
writes them: the client escapes only backslash, quote and newline, so ``curl`` of the
endpoint in a terminal would otherwise act on them.

The server listens only where ``--metrics`` says, and :meth:`MetricsServer.close` (also on
leaving the ``with`` block, whatever the reason) shuts it down and frees the port.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from types import TracebackType
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from envtui.sources.metrics_state import MetricsSnapshot, MetricsState, ThreadSeries
from envtui.vocabulary.events import Event, EventSink, Source
from envtui.vocabulary.safe_text import for_terminal
from envtui.vocabulary.terms import LiveState
from envtui.vocabulary.thread_messages import WaitingReason

STATUSES: tuple[LiveState, ...] = ("starting", "ready", "unavailable")
WAITING_REASONS: tuple[WaitingReason, ...] = ("approval", "input")


def _labels(*values: str) -> list[str]:
    return [for_terminal(value) for value in values]


def _who(snapshot: MetricsSnapshot) -> list[str]:
    """The labels that name a thread: ``host`` too when any thread has one (a view of
    several hosts), so one host's series stay the same without it."""
    return ["host", "thread"] if any(s.host for s in snapshot.threads.values()) else ["thread"]


def _whose(who: list[str], key: str, series: ThreadSeries) -> list[str]:
    """A thread's values of the labels :func:`_who` gave."""
    thread = series.thread_id or key
    return [series.host or "", thread] if len(who) == 2 else [thread]


class EnvtuiCollector(Collector):
    """Every envtui series from one snapshot of the state."""

    def __init__(self, state: MetricsState) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        snapshot = self.state.snapshot()
        yield from _environment_families(snapshot)
        yield from _incident_families(snapshot)
        yield _waiting_family(snapshot)
        events = CounterMetricFamily("envtui_events", "Events seen, by type.", labels=["type"])
        for kind, count in sorted(snapshot.events.items()):
            events.add_metric(_labels(kind), count)
        yield events
        up = GaugeMetricFamily("envtui_source_up", "1 while the source runs.", labels=["source"])
        for name, running in sorted(snapshot.sources.items()):
            up.add_metric(_labels(name), 1.0 if running else 0.0)
        yield up


def _environment_families(snapshot: MetricsSnapshot) -> Iterator[Metric]:
    who = _who(snapshot)
    status = GaugeMetricFamily(
        "envtui_environment_status",
        "1 for the environment's current status, 0 for the others.",
        labels=[*who, "environment", "kind", "status"],
    )
    primary = GaugeMetricFamily(
        "envtui_environment_primary",
        "1 when the environment is the primary.",
        labels=[*who, "environment"],
    )
    transitions = CounterMetricFamily(
        "envtui_environment_transitions",
        "Times the environment entered a status (its first status included).",
        labels=[*who, "environment", "to"],
    )
    dropped = GaugeMetricFamily(
        "envtui_environments_dropped",
        "Environments the thread names beyond --metrics-max-environments: they have no series.",
        labels=who,
    )
    for thread, series in sorted(snapshot.threads.items()):
        ids = _whose(who, thread, series)
        for env_id, (kind, current, is_primary) in series.statuses.items():
            for name in STATUSES:
                value = 1.0 if name == current else 0.0
                status.add_metric(_labels(*ids, env_id, kind, name), value)
            primary.add_metric(_labels(*ids, env_id), 1.0 if is_primary else 0.0)
        for (env_id, to), count in sorted(series.transitions.items()):
            transitions.add_metric(_labels(*ids, env_id, to), count)
        if series.dropped:
            dropped.add_metric(_labels(*ids), series.dropped)
    yield from (status, primary, transitions, dropped)


def _incident_families(snapshot: MetricsSnapshot) -> Iterator[Metric]:
    who = _who(snapshot)
    active = GaugeMetricFamily(
        "envtui_incidents_active",
        "1 for each finding code raised at the thread's latest checked step.",
        labels=[*who, "code"],
    )
    findings = CounterMetricFamily(
        "envtui_findings", "Findings raised, by code.", labels=[*who, "code"]
    )
    for thread, series in sorted(snapshot.threads.items()):
        ids = _whose(who, thread, series)
        for code in series.incidents:
            active.add_metric(_labels(*ids, code), 1.0)
        for code, count in sorted(series.findings.items()):
            findings.add_metric(_labels(*ids, code), count)
    yield from (active, findings)


def _waiting_family(snapshot: MetricsSnapshot) -> Metric:
    """1 while the thread waits for the operator for that reason, 0 while it does not; no
    series for a thread whose status is not known (a rollout does not say)."""
    who = _who(snapshot)
    waiting = GaugeMetricFamily(
        "envtui_thread_waiting",
        "1 while the thread waits for the operator (reason: approval, input).",
        labels=[*who, "reason"],
    )
    for thread, series in sorted(snapshot.threads.items()):
        ids = _whose(who, thread, series)
        if series.waiting is not None:
            for reason in WAITING_REASONS:
                waiting.add_metric([*ids, reason], 1.0 if reason in series.waiting else 0.0)
    return waiting


class MetricsServer:
    """``/metrics`` on ``host:port`` for one state; a context manager that always closes."""

    def __init__(self, state: MetricsState, host: str, port: int) -> None:
        self.state = state
        self.host = host
        self.port = port
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> MetricsServer:
        """Listen now; raises OSError when the address cannot be bound."""
        registry = CollectorRegistry(auto_describe=False)
        registry.register(EnvtuiCollector(self.state))
        self._server, self._thread = start_http_server(self.port, self.host, registry)
        self.port = self._server.server_port
        return self

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> MetricsServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def with_metrics(source: Source, state: MetricsState, name: str) -> Source:
    """``source``, its events also folded into ``state``; ``name`` is up while it runs."""

    async def run(sink: EventSink, stop: asyncio.Event) -> None:
        def tee(event: Event) -> None:
            sink(event)
            state.event(event)

        state.source_up(name, True)
        try:
            await source(tee, stop)
        finally:
            state.source_up(name, False)

    return run
