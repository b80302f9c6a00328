"""``envtui replay FILE --follow``: the file so far, then what is appended, line by line."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.support.scenarios.scripted_stream import scripted_events
from tests.support.waiting import wait_until

from envtui.sources.replay import replay
from envtui.sources.stream_follow import FollowedLines
from envtui.vocabulary.events import Event, WarningMessage, encode_event
from envtui.vocabulary.limits import LineTooLong


def _lines(events: list[Event]) -> str:
    return "".join(encode_event(event) + "\n" for event in events)


def _warnings(received: list[Event]) -> list[str]:
    return [e.msg.message for e in received if isinstance(e.msg, WarningMessage)]


def test_an_unfinished_line_is_held_until_its_newline_comes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("one\ntw")
    with path.open() as handle:
        lines = FollowedLines(handle)
        assert list(lines.read()) == [(1, "one\n")]
        with path.open("a") as writer:
            writer.write("o\nthr")
        assert list(lines.read()) == [(2, "two\n")]
        assert list(lines.read()) == []
        with path.open("a") as writer:
            writer.write("ee\n")
        assert list(lines.read()) == [(3, "three\n")]


def test_a_line_over_the_limit_is_said_once_and_never_held(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("a\n" + "x" * 25)
    with path.open() as handle:
        lines = FollowedLines(handle, limit=10)
        assert list(lines.read()) == [(1, "a\n"), (2, LineTooLong(10))]
        with path.open("a") as writer:
            writer.write("x" * 30 + "\nb\n")
        assert list(lines.read()) == [(3, "b\n")]  # the rest of line 2 skipped, unsaid


async def test_a_followed_replay_gives_the_file_then_each_event_appended(tmp_path: Path) -> None:
    events = scripted_events()
    path = tmp_path / "s.jsonl"
    path.write_text(_lines(events[:3]) + encode_event(events[3])[:20])  # a write under way
    received: list[Event] = []
    stop = asyncio.Event()
    task = asyncio.create_task(replay(path, received.append, stop, speed=0, follow=True))
    await wait_until(lambda: len(received) == 3)
    with path.open("a") as writer:
        writer.write(encode_event(events[3])[20:] + "\n{broken\n" + _lines(events[4:6]))
    await wait_until(lambda: len(received) == 7)
    stop.set()
    await asyncio.wait_for(task, 10)
    assert [e for e in received if not isinstance(e.msg, WarningMessage)] == events[:6]
    (warning,) = _warnings(received)
    assert warning.startswith(f"{path}: line 5: ")  # its line number in the whole file


async def test_a_truncated_or_replaced_stream_is_said_and_read_from_its_start(
    tmp_path: Path,
) -> None:
    events = scripted_events()
    path = tmp_path / "s.jsonl"
    path.write_text(_lines(events[:4]))
    received: list[Event] = []
    stop = asyncio.Event()
    task = asyncio.create_task(replay(path, received.append, stop, speed=0, follow=True))
    await wait_until(lambda: len(received) == 4)
    path.write_text(_lines(events[:1]))  # truncated: a new run of `events --out`
    await wait_until(lambda: len(received) == 6)
    assert _warnings(received) == [f"{path}: was truncated; read from its start"]
    assert received[5] == events[0]
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(_lines(events[1:3]))
    os.replace(replacement, path)  # another file under the name
    await wait_until(lambda: len(received) == 9)
    stop.set()
    await asyncio.wait_for(task, 10)
    assert _warnings(received)[1] == f"{path}: was replaced by another file; read from its start"
    assert received[7:] == events[1:3]


async def test_stopping_a_followed_replay_returns_at_once_and_closes_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("")
    stop = asyncio.Event()
    task = asyncio.create_task(replay(path, lambda event: None, stop, speed=0, follow=True))
    await asyncio.sleep(0.05)
    before = len(os.listdir("/proc/self/fd"))
    stop.set()
    await asyncio.wait_for(task, 2)
    assert len(os.listdir("/proc/self/fd")) == before - 1
