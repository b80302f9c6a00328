"""Replaying a recorded envtui JSONL stream, at its own pace times ``speed``.

The gaps between events come from their ``at`` times (capped, so a long silence in the
recording does not stall the replay). A broken line becomes a warning event with its line
number; the rest is replayed. As fast as possible (speed 0) the file is read in slices,
with the event loop run between two, so the screen keeps drawing while a large file goes
in and the events are not paid one loop turn each. A slice lasts :data:`READ_SHARE` times
as long as the loop's last turn took (at least :data:`SLICE`, at most :data:`MAX_SLICE`):
however much a frame costs (a table of a thousand rows changing at once), reading keeps
two thirds of the time, and the screen still shows the replay moving (every second at
least).
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
"""Seconds of reading, at least, before the event loop gets its turn."""
MAX_SLICE = 1.0
"""Seconds of reading, at most: the screen moves, and keys are answered, at least this often
(a table of a thousand rows that all changed takes a good part of a second to draw)."""
READ_SHARE = 2.0
"""Seconds of reading per second the event loop took at its last turn."""


def next_slice(away: float) -> float:
    """How long to read before the next turn, after a turn of the loop took ``away`` s."""
    return min(MAX_SLICE, max(SLICE, READ_SHARE * away))


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
                left = clock()
                await asyncio.sleep(0)
                back = clock()
                yield_at = back + next_slice(back - left)
