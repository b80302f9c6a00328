"""Following an envtui JSONL stream as it is written: ``envtui replay FILE --follow``.

A replay reads the file to its end first (the state so far: a dashboard that opens late
starts where the others are, not from an empty screen), then keeps reading what is
appended, as ``envtui events --out FILE`` and ``envtui serve``'s shared source write it.
Only complete lines are decoded: a line the writer has not finished is held until its
newline comes. A line over the limit is reported once and skipped without being held. A
file that shrinks (``--out`` truncates it when a new run starts) or is replaced by another
file under the same name is said once, as a warning, and read again from its start.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from envtui.sources.pace import Pace
from envtui.vocabulary.events import (
    DecodeError,
    Event,
    EventSink,
    WarningMessage,
    decode_lines,
    thread_event,
)
from envtui.vocabulary.limits import MAX_LINE, LineTooLong
from envtui.vocabulary.stopping import wait_for_stop

POLL = 0.2
"""Seconds between two looks at a file that has not grown: the delay a tab adds."""


@dataclass
class FollowedLines:
    """The complete lines appended to a text file since the last read, one line at a time.

    ``number`` counts the lines read so far, so a broken line is reported with its line
    number in the file, as a whole replay would.
    """

    handle: TextIO
    number: int = 0
    limit: int = MAX_LINE
    _partial: str = ""
    _skipping: bool = False

    def read(self) -> Iterator[tuple[int, str | LineTooLong]]:
        """The lines completed by what was appended since, numbered (a line over the limit
        as :class:`LineTooLong`), read as they are asked for."""
        while chunk := self.handle.readline(self.limit + 1 - len(self._partial)):
            if not chunk.endswith("\n"):
                if self._hold(chunk):
                    yield self.number + 1, LineTooLong(self.limit)
                continue
            self.number += 1
            if self._skipping:  # the end of a line that was over the limit
                self._skipping = False
            else:
                yield self.number, self._partial + chunk
            self._partial = ""

    def _hold(self, chunk: str) -> bool:
        """Keep an unfinished line; True when it is now over the limit (then it is said once
        and the rest of it is skipped, never held)."""
        if self._skipping:
            return False
        self._partial += chunk
        if len(self._partial) <= self.limit:
            return False
        self._partial = ""
        self._skipping = True
        return True

    def restart(self) -> None:
        """Read again from the first byte (the file was truncated)."""
        self.handle.seek(0)
        self.number = 0
        self._partial = ""
        self._skipping = False


def changed(path: Path, handle: TextIO, seen_size: int) -> str | None:
    """Why the followed file must be read again from its start: it shrank below what was
    read, or the name now holds another file (or none); None while it only grows."""
    try:
        named = os.stat(path)
    except OSError:
        return None  # gone for the moment (a rename in progress): keep the open file
    opened = os.fstat(handle.fileno())
    if (named.st_ino, named.st_dev) != (opened.st_ino, opened.st_dev):
        return "was replaced by another file"
    if named.st_size < seen_size:
        return "was truncated"
    return None


async def follow_appends(
    path: Path,
    handle: TextIO,
    pace: Pace,
    sink: EventSink,
    stop: asyncio.Event,
    *,
    poll: float = POLL,
) -> TextIO:
    """Every complete line of ``handle`` (``path`` opened), then what is appended, given to
    ``sink`` at ``pace`` until ``stop``; the handle open at the end (the same, or the file
    that replaced it), for the caller to close."""
    lines = FollowedLines(handle)
    while not stop.is_set():
        if await pace.give(numbered_events(lines.read()), path, sink, stop):
            break
        reason = changed(path, lines.handle, lines.handle.buffer.tell())
        if reason is not None:
            sink(thread_event(WarningMessage(message=f"{path}: {reason}; read from its start")))
            if reason.startswith("was replaced"):
                lines.handle.close()
                lines = FollowedLines(path.open(encoding="utf-8", errors="replace"))
            else:
                lines.restart()
            continue
        if await wait_for_stop(stop, poll):
            break
    return lines.handle


def numbered_events(
    lines: Iterator[tuple[int, str | LineTooLong]],
) -> Iterator[Event | DecodeError]:
    """Each numbered line as its event, or as the error that names its line in the file."""
    for number, line in lines:
        for item in decode_lines([line]):
            yield (
                DecodeError(line=number, message=item.message)
                if isinstance(item, DecodeError)
                else item
            )
