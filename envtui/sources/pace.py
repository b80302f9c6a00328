"""The pace of a replay: the recording's own gaps times the speed, or, as fast as possible,
reading in slices with the event loop run between two.

A slice lasts :data:`READ_SHARE` times as long as the loop's last turn took (at least
:data:`SLICE`, at most :data:`MAX_SLICE`): however much a frame costs (a table of a
thousand rows changing at once), reading keeps two thirds of the time, and the screen
still shows the replay moving (every second at least). A replay and a followed stream
(:mod:`envtui.sources.stream_follow`) keep one pace between their reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from envtui.vocabulary.events import DecodeError, Event, EventSink, WarningMessage, thread_event
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


class Pace:
    """Events given to a sink at the recording's pace times ``speed`` (0: at once, in slices
    between turns of the event loop). It keeps the last event's time and the end of the
    slice between two calls of :meth:`give`, so a followed file keeps one pace."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self.previous: datetime | None = None
        self.clock = asyncio.get_running_loop().time
        self.yield_at = self.clock() + SLICE

    async def give(
        self, items: Iterable[Event | DecodeError], path: Path, sink: EventSink, stop: asyncio.Event
    ) -> bool:
        """Every item to ``sink`` (a broken line as a warning naming ``path``); True when
        ``stop`` was set first."""
        for item in items:
            if stop.is_set():
                return True
            if isinstance(item, DecodeError):
                sink(thread_event(WarningMessage(message=f"{path}: {item}")))
                continue
            if self.speed > 0 and self.previous is not None and item.at is not None:
                gap = min(MAX_GAP, max(0.0, (item.at - self.previous).total_seconds()))
                if gap and await wait_for_stop(stop, gap / self.speed):
                    return True
            if item.at is not None:
                self.previous = item.at
            sink(item)
            if self.clock() >= self.yield_at:
                left = self.clock()
                await asyncio.sleep(0)
                back = self.clock()
                self.yield_at = back + next_slice(back - left)
        return False
