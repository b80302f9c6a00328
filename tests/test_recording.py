"""Recording a source to JSONL: what reaches the file, when it is opened, that it is closed,
and that ``--record`` on a dashboard command still writes every event."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Literal

import pytest
from scripted import scripted_events
from waiting import wait_until

from envtui.cli import main
from envtui.events import Event, EventSink, Source, decode_lines, encode_event
from envtui.sources.recording import recorded
from envtui.tui.app import EnvTuiApp


def read_recording(path: Path) -> list[Event]:
    items = list(decode_lines(path.read_text(encoding="utf-8").splitlines()))
    assert all(isinstance(item, Event) for item in items), items
    return [item for item in items if isinstance(item, Event)]


def emitting(events: list[Event], then: Literal["return", "fail", "hang"]) -> Source:
    """A source that emits ``events``, then returns, fails or waits until cancelled."""

    async def source(sink: EventSink, stop: asyncio.Event) -> None:
        for event in events:
            sink(event)
        if then == "fail":
            raise RuntimeError("the source broke")
        if then == "hang":
            await asyncio.Event().wait()

    return source


async def test_every_event_reaches_the_sink_and_the_file_in_order(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    received: list[Event] = []
    await recorded(emitting(scripted_events(), "return"), path)(received.append, asyncio.Event())
    assert received == scripted_events()
    assert path.read_text(encoding="utf-8") == "".join(
        encode_event(event) + "\n" for event in scripted_events()
    )


async def test_the_file_is_opened_when_the_source_starts_not_before(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("an earlier recording\n")
    source = recorded(emitting(scripted_events()[:1], "return"), path)
    assert path.read_text() == "an earlier recording\n"  # building it truncates nothing
    await source(lambda event: None, asyncio.Event())
    assert read_recording(path) == scripted_events()[:1]


async def test_the_file_is_complete_when_the_source_fails(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    source = recorded(emitting(scripted_events()[:3], "fail"), path)
    with pytest.raises(RuntimeError, match="the source broke"):
        await source(lambda event: None, asyncio.Event())
    assert read_recording(path) == scripted_events()[:3]  # closed, so written out


async def test_the_file_is_complete_when_the_source_is_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    received: list[Event] = []
    source = recorded(emitting(scripted_events()[:3], "hang"), path)
    task = asyncio.ensure_future(source(received.append, asyncio.Event()))
    await wait_until(lambda: len(received) == 3, what="three events")
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert read_recording(path) == scripted_events()[:3]


def test_dashboard_with_record_writes_every_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``envtui replay FILE --record OUT`` through the command line, headless, then ``q``."""
    stream = tmp_path / "stream.jsonl"
    stream.write_text("".join(encode_event(event) + "\n" for event in scripted_events()))
    out = tmp_path / "out.jsonl"
    run = EnvTuiApp.run
    shown: list[int] = []

    def run_headless(app: EnvTuiApp) -> None:
        async def quit_when_everything_is_in(pilot: Any) -> None:
            await wait_until(
                lambda: app.store.counters["total"] == len(scripted_events()),
                what="the replayed events in the store",
            )
            shown.append(app.store.counters["total"])
            await pilot.press("q")

        run(app, headless=True, size=(100, 30), auto_pilot=quit_when_everything_is_in)

    monkeypatch.setattr(EnvTuiApp, "run", run_headless)
    assert main(["replay", str(stream), "--speed", "0", "--record", str(out)]) == 0
    assert shown == [len(scripted_events())]
    assert read_recording(out) == scripted_events()
