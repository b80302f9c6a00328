"""Replaying a recorded envtui JSONL stream, at its own pace times ``speed``.

The gaps between events come from their ``at`` times (capped, so a long silence in the
recording does not stall the replay). A broken line becomes a warning event with its line
number; the rest is replayed. As fast as possible (speed 0) the file is read in slices of
at most ``SLICE`` seconds, with the event loop run between two, so the screen keeps drawing
while a large file goes in and the events are not paid one loop turn each.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from envtui.vocabulary.events import (
    DecodeError,
    EventSink,
    WarningMessage,
    decode_lines,
    thread_event,
)
from envtui.vocabulary.limits import bounded_lines
from envtui.vocabulary.stopping import wait_for_stop

MAX_GAP = 5.0
SLICE = 0.02
"""Seconds of reading, at most, before the event loop gets its turn."""


async def replay(path: Path, sink: EventSink, stop: asyncio.Event, *, speed: float = 1.0) -> None:
    previous = None
    clock = asyncio.get_running_loop().time
    yield_at = clock() + SLICE
    with path.open(encoding="utf-8", errors="replace") as handle:
        for item in decode_lines(bounded_lines(handle)):
            if stop.is_set():
                return
            if isinstance(item, DecodeError):
                sink(thread_event(WarningMessage(message=f"{path}: {item}")))
                continue
            if speed > 0 and previous is not None and item.at is not None:
                gap = min(MAX_GAP, max(0.0, (item.at - previous).total_seconds())) / speed
                if gap and await wait_for_stop(stop, gap):
                    return
            if item.at is not None:
                previous = item.at
            sink(item)
            if clock() >= yield_at:
                await asyncio.sleep(0)
                yield_at = clock() + SLICE
