"""``envtui events`` writes the incidents a stream's steps open and resolve, and a replay of
that recording shows the same incidents (derived again, never counted twice)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from envtui.commands.common import event_writer
from envtui.dashboard.store import Store
from envtui.sources.line_writer import LineWriter
from envtui.vocabulary.events import (
    Event,
    FindingReported,
    StepRecorded,
    decode_lines,
    thread_event,
)

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def step(number: int, *envs: str) -> list[Event]:
    when = START + timedelta(seconds=number)
    record = StepRecorded(step=number, unchecked=[], findings=len(envs))
    findings = [
        FindingReported(
            code="stale-available", severity="error", step=number, environment_id=e, message="m"
        )
        for e in envs
    ]
    return [thread_event(m, at=when) for m in (record, *findings)]


STREAM = [*step(1, "flaky"), *step(2, "flaky", "ghost"), *step(3, "ghost"), *step(4)]


def test_the_stream_carries_each_opening_and_resolution_after_its_step(tmp_path: Path) -> None:
    out = tmp_path / "events.jsonl"
    writer = LineWriter.open(str(out))
    write = event_writer(writer, None)
    for event in STREAM:
        write(event)
    assert writer.close(5)
    decoded = [e for e in decode_lines(out.read_text().splitlines()) if isinstance(e, Event)]
    incident_lines = [
        (e.msg.type, getattr(e.msg, "environment_id", None), getattr(e.msg, "step", None))
        for e in decoded
        if e.msg.type.startswith("incident")
    ]
    assert incident_lines == [
        ("incident_opened", "flaky", None),
        ("incident_opened", "ghost", None),
        ("incident_resolved", "flaky", 3),
        ("incident_resolved", "ghost", 4),
    ]
    types = [e.msg.type for e in decoded]
    # each one right after the finding (or the step) that caused it
    assert types[:4] == ["step", "finding", "incident_opened", "step"]
    assert len(decoded) == len(STREAM) + 4

    replayed, live = Store(), Store()
    replayed.apply_all(decoded)
    live.apply_all(STREAM)

    def shape(store: Store) -> list[tuple[object, ...]]:
        return [
            (i.environment_id, i.state, i.first_step, i.last_step, i.resolved_step)
            for i in store.incidents.incidents()
        ]

    assert (
        shape(replayed)
        == shape(live)
        == [
            ("ghost", "resolved", 2, 3, 4),
            ("flaky", "resolved", 1, 2, 3),
        ]
    )
    assert replayed.counters["incident_opened"] == 2
