"""--metrics: the series folded from events and from sessions, in the Prometheus format."""

from __future__ import annotations

import socket
import urllib.request
from datetime import UTC, datetime

import pytest
from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import CollectorRegistry

from envtui.incidents.thread_summary import EnvironmentState, ThreadSummary
from envtui.sources.metrics_server import EnvtuiCollector, MetricsServer
from envtui.sources.metrics_state import MetricsState
from envtui.vocabulary.events import (
    EnvironmentRemoved,
    EnvironmentStatus,
    FindingReported,
    StepRecorded,
    thread_event,
)
from envtui.vocabulary.thread_messages import ThreadStatusChanged


def _samples(state: MetricsState) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(EnvtuiCollector(state))
    text = generate_latest(registry).decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _status(env: str, status: str, *, primary: bool = False) -> EnvironmentStatus:
    return EnvironmentStatus(environment_id=env, kind="ssh", status=status, primary=primary)


def test_one_series_per_status_is_1_for_the_current_one() -> None:
    state = MetricsState()
    state.event(thread_event(_status("build", "starting")))
    state.event(thread_event(_status("build", "ready", primary=True)))
    samples = _samples(state)
    labels = (("environment", "build"), ("kind", "ssh"), ("thread", ""))
    for status, value in (("starting", 0.0), ("ready", 1.0), ("unavailable", 0.0)):
        key = tuple(sorted((*labels, ("status", status))))
        assert samples[("envtui_environment_status", key)] == value
    assert samples[("envtui_environment_primary", (("environment", "build"), ("thread", "")))] == 1
    to_ready = (("environment", "build"), ("thread", ""), ("to", "ready"))
    assert samples[("envtui_environment_transitions_total", to_ready)] == 1
    assert samples[("envtui_events_total", (("type", "environment_status"),))] == 2


def test_an_environment_removed_has_no_series() -> None:
    state = MetricsState()
    state.event(thread_event(_status("build", "ready")))
    state.event(thread_event(EnvironmentRemoved(environment_id="build")))
    assert not [k for k in _samples(state) if k[0] == "envtui_environment_status"]


def test_incidents_are_the_open_incidents_of_the_fold_and_findings_are_counted() -> None:
    """stale-available is raised at step 1 and not at step 2, which evaluated its rule: it
    resolved; primary-mismatch, raised at step 2, is the one active incident."""
    state = MetricsState()
    for step, code in ((1, "stale-available"), (2, "primary-mismatch")):
        record = StepRecorded(step=step, thread="t-1", unchecked=[], findings=1)
        state.event(thread_event(record))
        state.event(
            thread_event(FindingReported(code=code, severity="warning", step=step, message="m"))
        )
    samples = _samples(state)
    active = {k[1] for k in samples if k[0] == "envtui_incidents_active"}
    assert active == {(("code", "primary-mismatch"), ("thread", "t-1"))}
    stale = ("envtui_findings_total", (("code", "stale-available"), ("thread", "t-1")))
    assert samples[stale] == 1


def test_a_rule_that_could_not_run_keeps_its_incident_active() -> None:
    state = MetricsState()
    state.event(thread_event(StepRecorded(step=1, thread="t-1", unchecked=[], findings=1)))
    state.event(
        thread_event(FindingReported(code="stale-available", severity="error", step=1, message="m"))
    )
    skipped = StepRecorded(step=2, thread="t-1", unchecked=["stale-available"], findings=0)
    state.event(thread_event(skipped))
    active = {k[1] for k in _samples(state) if k[0] == "envtui_incidents_active"}
    assert active == {(("code", "stale-available"), ("thread", "t-1"))}


def test_label_values_are_kept_as_they_are() -> None:
    state = MetricsState()
    state.event(thread_event(_status('we"ird\\id\n', "ready")))
    labels = {dict(k[1]).get("environment") for k in _samples(state)}
    assert 'we"ird\\id\n' in labels


def _summary(thread: str, *, live: bool) -> ThreadSummary:
    return ThreadSummary(
        thread_id=thread,
        path=f"/s/{thread}.jsonl",
        environments={"local": EnvironmentState("local", "ready", True)},
        incidents=["stale-available"],
        findings={"stale-available": 2},
        last_written=datetime.now(UTC),
        live=live,
    )


def test_series_of_an_ended_thread_go_after_the_retention() -> None:
    now = [0.0]
    state = MetricsState(retention=60, clock=lambda: now[0])
    state.sessions([_summary("a", live=True), _summary("b", live=False)])
    threads = {dict(k[1]).get("thread") for k in _samples(state)}
    assert {"a", "b"} <= threads
    now[0] = 61.0
    state.sessions([_summary("a", live=True), _summary("b", live=False)])
    threads = {dict(k[1]).get("thread") for k in _samples(state)}
    assert "a" in threads
    assert "b" not in threads
    state.sessions([_summary("b", live=True)])  # written again: back
    assert "b" in {dict(k[1]).get("thread") for k in _samples(state)}


def test_the_server_answers_on_its_address_and_frees_it_when_closed() -> None:
    state = MetricsState()
    state.source_up("engine", True)
    with MetricsServer(state, "127.0.0.1", 0) as server:
        port = server.port
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            body = response.read().decode()
        assert 'envtui_source_up{source="engine"} 1.0' in body
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))  # nothing listens any more


def test_a_thread_waiting_on_approval_is_1_for_that_reason_until_it_goes_on() -> None:
    state = MetricsState()
    assert not [k for k in _samples(state) if k[0] == "envtui_thread_waiting"]  # not known yet
    flags = ["waitingOnApproval"]
    state.event(
        thread_event(ThreadStatusChanged(thread="t1", status="waiting_on_approval", flags=flags))
    )
    samples = _samples(state)
    assert samples[("envtui_thread_waiting", (("reason", "approval"), ("thread", "t1")))] == 1
    assert samples[("envtui_thread_waiting", (("reason", "input"), ("thread", "t1")))] == 0
    state.event(thread_event(ThreadStatusChanged(thread="t1", status="active")))
    samples = _samples(state)
    assert samples[("envtui_thread_waiting", (("reason", "approval"), ("thread", "t1")))] == 0
