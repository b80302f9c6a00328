"""Recording a source: every event it emits is also written to a JSONL file.

``envtui replay`` reads such a file back. The recording is a wrapper around any source, so
the dashboard only ingests events and never opens a file: the file is opened when the
source starts (not when the wrapper is built, so nothing is truncated for a run that never
begins) and closed when the source returns, fails or is cancelled.

Lines are written by a :class:`~envtui.sources.line_writer.LineWriter`, so each event is on
disk (handed to the system) within moments, whole lines only, whatever ends the process
later. A recording that cannot be written stops with a notice (an ``error`` warning);
the source, and the view, go on.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from envtui.sources.line_writer import LineWriter
from envtui.vocabulary.events import (
    Event,
    EventSink,
    Source,
    WarningMessage,
    encode_event,
    thread_event,
)

CLOSE_TIMEOUT = 2.0
"""Seconds the queued lines get to reach the file when the source ends."""


def check_record_path(path: Path) -> str | None:
    """Why ``path`` cannot be recorded to (no such directory, not writable), or None.

    Asked before the dashboard starts, so a typo is a clear error, not a notice on a
    screen; the file is created (empty) but not truncated.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            return f"{path}: no such directory: {path.parent}"
        return f"{path}: cannot write: {exc.strerror or exc}"
    os.close(fd)
    return None


class Recorded:
    """``source``, with each event also written to ``path`` as one line of JSON.

    ``append`` adds to an existing file instead of replacing it.

    The events reach the sink first, then the file, in the order the source emitted them.
    An event emitted after the source returned (a late callback) still reaches the sink; it
    is not written, because the file is already closed. :meth:`record` writes an event that
    did not come from the source (an operator's acknowledgement) while the file is open, so
    a replay shows it too.
    """

    def __init__(self, source: Source, path: Path, *, append: bool = False) -> None:
        self.source = source
        self.path = path
        self.append = append
        self._writer: LineWriter | None = None

    def record(self, event: Event) -> None:
        if self._writer is not None:
            self._writer.write(encode_event(event))

    async def __call__(self, sink: EventSink, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()

        def stopped(reason: str) -> None:  # called on the writer's thread
            notice = WarningMessage(message=f"recording stopped: {reason}", severity="error")
            loop.call_soon_threadsafe(sink, thread_event(notice))

        try:
            self._writer = LineWriter.open(str(self.path), stopped, append=self.append)
        except OSError as exc:
            stopped(f"{self.path}: cannot write: {exc.strerror or exc}")

        def tee(event: Event) -> None:
            sink(event)
            self.record(event)

        try:
            await self.source(tee, stop)
        finally:
            writer, self._writer = self._writer, None
            if writer is not None:
                await asyncio.to_thread(writer.close, CLOSE_TIMEOUT)


def recorded(source: Source, path: Path, *, append: bool = False) -> Recorded:
    """``source`` recorded to ``path`` (see :class:`Recorded`)."""
    return Recorded(source, path, append=append)
