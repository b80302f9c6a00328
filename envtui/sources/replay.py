"""Replaying a recorded envtui JSONL stream, at its own pace times ``speed``.

The gaps between events come from their ``at`` times (capped, so a long silence in the
recording does not stall the replay). A broken line becomes a warning event with its line
number; the rest is replayed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from envtui.events import DecodeError, EventSink, WarningMessage, decode_lines, thread_event
from envtui.limits import bounded_lines
from envtui.stopping import wait_for_stop

MAX_GAP = 5.0


async def replay(path: Path, sink: EventSink, stop: asyncio.Event, *, speed: float = 1.0) -> None:
    previous = None
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
            await asyncio.sleep(0)
