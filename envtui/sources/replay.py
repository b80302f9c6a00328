"""Replaying a recorded envtui JSONL stream, at its own pace times ``speed``.

The gaps between events come from their ``at`` times (capped, so a long silence in the
recording does not stall the replay). A broken line becomes a warning event with its line
number; the rest is replayed. As fast as possible (speed 0) the file is read in slices,
with the event loop run between two (:mod:`envtui.sources.pace`), so the screen keeps
drawing while a large file goes in and the events are not paid one loop turn each. With
``follow`` the replay goes on with what is appended to the file
(:mod:`envtui.sources.stream_follow`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TextIO

from envtui.sources.pace import Pace
from envtui.vocabulary.events import EventSink, decode_lines
from envtui.vocabulary.limits import bounded_lines


async def replay(
    path: Path, sink: EventSink, stop: asyncio.Event, *, speed: float = 1.0, follow: bool = False
) -> None:
    pace = Pace(speed)
    handle: TextIO = path.open(encoding="utf-8", errors="replace")
    try:
        if not follow:
            await pace.give(decode_lines(bounded_lines(handle)), path, sink, stop)
            return
        from envtui.sources.stream_follow import follow_appends

        handle = await follow_appends(path, handle, pace, sink, stop)
    finally:
        handle.close()
