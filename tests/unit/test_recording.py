"""Recording a source to JSONL: what reaches the file, when it is opened, that it is closed.

``--record`` on a dashboard command is tested with the commands, in test_dashboard_command.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Literal

import pytest

from tests.support.scenarios.scripted_stream import scripted_events
from tests.support.waiting import wait_until

from envtui.sources.recording import recorded
from envtui.vocabulary.events import Event, EventSink, Source, decode_lines, encode_event


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


async def test_an_event_after_the_source_returned_reaches_the_sink_only(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    kept: list[EventSink] = []

    async def source(sink: EventSink, stop: asyncio.Event) -> None:
        sink(scripted_events()[0])
        kept.append(sink)  # a callback that outlives the source

    received: list[Event] = []
    await recorded(source, path)(received.append, asyncio.Event())
    kept[0](scripted_events()[1])
    assert received == scripted_events()[:2]
    assert read_recording(path) == scripted_events()[:1]


async def test_append_adds_to_an_earlier_recording(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    events = scripted_events()
    await recorded(emitting(events[:3], "return"), path)(lambda _: None, asyncio.Event())
    await recorded(emitting(events[3:], "return"), path, append=True)(
        lambda _: None, asyncio.Event()
    )
    assert read_recording(path) == events


async def test_a_recording_that_cannot_be_written_stops_with_a_notice_and_the_source_goes_on() -> (
    None
):
    from envtui.vocabulary.events import WarningMessage

    received: list[Event] = []
    events = scripted_events()
    source = recorded(emitting(events, "hang"), Path("/dev/full"))
    task = asyncio.ensure_future(source(received.append, asyncio.Event()))
    notice = "recording stopped: /dev/full: cannot write: No space left on device"

    def noticed() -> bool:
        return any(isinstance(e.msg, WarningMessage) and e.msg.message == notice for e in received)

    await wait_until(noticed, what="the notice")
    [warning] = [e.msg for e in received if isinstance(e.msg, WarningMessage)]
    assert warning.severity == "error"  # the dashboard shows it as a lasting notice
    assert [e for e in received if not isinstance(e.msg, WarningMessage)] == events
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_a_file_that_cannot_be_opened_is_a_notice_too(tmp_path: Path) -> None:
    from envtui.vocabulary.events import WarningMessage

    received: list[Event] = []
    await recorded(emitting(scripted_events()[:2], "return"), tmp_path)(
        received.append, asyncio.Event()
    )
    await wait_until(lambda: len(received) == 3, what="the notice")
    messages = [e.msg.message for e in received if isinstance(e.msg, WarningMessage)]
    assert messages == [f"recording stopped: {tmp_path}: cannot write: Is a directory"]


def test_the_record_path_is_checked_before_anything_starts(tmp_path: Path) -> None:
    from envtui.sources.recording import check_record_path

    missing = tmp_path / "no" / "dir" / "rec.jsonl"
    assert check_record_path(missing) == f"{missing}: no such directory: {missing.parent}"
    assert check_record_path(tmp_path) == f"{tmp_path}: cannot write: Is a directory"
    existing = tmp_path / "rec.jsonl"
    existing.write_text("kept until the run starts\n")
    assert check_record_path(existing) is None
    assert existing.read_text() == "kept until the run starts\n"
