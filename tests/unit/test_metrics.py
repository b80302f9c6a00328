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


HOSTILE = ("esc\x1b]2;TITLE\x07", "c1\x9b31m", "rlo\u202eevil", "bel\x07")


def _scrape_bytes(state: MetricsState) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(EnvtuiCollector(state))
    return generate_latest(registry)


def test_label_values_carry_no_character_a_terminal_acts_on() -> None:
    state = MetricsState()
    for env in HOSTILE:
        state.event(thread_event(_status(env, "ready")))
    state.source_up("/tmp/x\x1b[2J", True)
    raw = _scrape_bytes(state)
    text = raw.decode()
    assert not [b for b in raw if b < 0x20 and b != 0x0A]  # no ESC, no BEL
    assert not [c for c in text if 0x80 <= ord(c) < 0xA0 or c == "\u202e"]
    labels = {dict(k[1]).get("environment") for k in _samples(state)}
    assert {"esc\\x1b]2;TITLE\\x07", "c1\\x9b31m", "rlo\\u202eevil", "bel\\x07"} <= labels
    assert 'envtui_source_up{source="/tmp/x\\\\x1b[2J"} 1.0' in text


def _wide(thread: str, count: int) -> ThreadSummary:
    environments = {
        f"e{i}": EnvironmentState("remote", "ready", i == count - 1) for i in range(count)
    }
    transitions = {(f"e{i}", "ready"): 1 for i in range(count)}
    return ThreadSummary(
        thread_id=thread,
        path=f"/s/{thread}.jsonl",
        environments=environments,
        transitions=transitions,
        last_written=datetime.now(UTC),
        live=True,
    )


def test_a_thread_naming_10000_environments_exports_the_cap_and_counts_the_rest() -> None:
    said: list[str] = []
    state = MetricsState(max_environments=500, notice=said.append)
    state.sessions([_wide("wide", 10_000), _wide("also-wide", 600)])
    samples = _samples(state)
    status = [
        k for k in samples if k[0] == "envtui_environment_status" and dict(k[1])["thread"] == "wide"
    ]
    wide = {
        dict(k[1])["environment"]
        for k in samples
        if k[0] == "envtui_environment_primary" and dict(k[1])["thread"] == "wide"
    }
    assert len(wide) == 500
    assert "e9999" in wide  # the primary is kept, though it is named last
    assert len(status) == 3 * 500  # one series per status
    transitions = [k for k in samples if k[0] == "envtui_environment_transitions_total"]
    assert len(transitions) == 1000  # 500 of each thread
    assert samples[("envtui_environments_dropped", (("thread", "wide"),))] == 9500
    assert samples[("envtui_environments_dropped", (("thread", "also-wide"),))] == 100
    assert len(said) == 1  # said once, for the first thread over the cap
    assert "more than 500 environments" in said[0]
    state.sessions([_wide("wide", 10_000)])
    assert len(said) == 1


def test_environments_from_events_beyond_the_cap_are_counted_once_each() -> None:
    state = MetricsState(max_environments=3)
    for round_ in range(2):
        for i in range(5):
            state.event(thread_event(_status(f"e{i}", "ready" if round_ else "starting")))
    samples = _samples(state)
    kept = {dict(k[1])["environment"] for k in samples if k[0] == "envtui_environment_primary"}
    assert kept == {"e0", "e1", "e2"}
    assert samples[("envtui_environments_dropped", (("thread", ""),))] == 2
