"""One rollout file of a sessions tree: indexed from its head and tail, then followed.

Indexing reads the head (the ``session_meta`` line) and the tail from the start of the
last turn (at most :data:`TAIL_LIMIT` bytes), which the reader cuts into steps. What lies
between is not parsed: it is scanned for the few lines that carry state into the tail
(``world_state``, ``compacted``, ``additional_tools``) and for turn starts, by a regular
expression over the raw bytes, and only those lines are parsed. After that only new bytes
are read; a file that shrank or was replaced is indexed again.

The scan relies on Codex writing compact JSON (``"type":"world_state"``); a file whose
head is not written that way is read whole, so nothing is missed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

from envtui.incidents.thread_summary import ThreadFold, ThreadSummary
from envtui.rollout.state import BaselineLookup
from envtui.sources.session_files import FileInfo, SessionFiles

CHUNK = 1 << 20
WHOLE_FILE = 256 << 10
"""A file up to this size is read whole at indexing: its step count is then exact."""
TAIL_LIMIT = 16 << 20
"""The most of a file's end parsed at indexing; a longer last turn is read from there."""
COMPACT_HEAD = b'"type":"session_meta"'
TURN_MARKER = b'"type":"task_started"'
STATE_MARKERS = (b'"type":"world_state"', b'"type":"compacted"', b'"type":"additional_tools"')
"""The lines of a skipped middle that are parsed; turn starts there are only counted."""
_THREAD_ID_LENGTH = 36


def thread_id_from_name(name: str) -> str:
    """The thread id at the end of ``rollout-<time>-<thread id>.jsonl``."""
    stem = name.removesuffix(".jsonl")
    return stem[-_THREAD_ID_LENGTH:] if len(stem) > _THREAD_ID_LENGTH else stem


class ThreadFile:
    """The fold of one file and how far it has been read."""

    def __init__(
        self, files: SessionFiles, info: FileInfo, baseline: BaselineLookup | None = None
    ) -> None:
        self.files = files
        self.info = info
        self.baseline = baseline
        self.fold = ThreadFold(info.path, baseline)
        self.offset = 0  # bytes consumed: the end of the last complete line
        self.line = 0  # the number of that line
        self._carry = b""
        self._rest = b""
        self._summary: ThreadSummary | None = None
        self.tail_start = 0  # where parsing started at indexing (after the head: nothing skipped)
        self.live: bool | None = None  # as the last summary found it

    # --- reading ---------------------------------------------------------------------------

    def index(self) -> None:
        """Head, the skipped middle's state lines, and the tail (see the module)."""
        size = self.info.size
        head = self._head(size)
        if head is None:
            return  # not even one complete line yet
        self.fold.head(head.decode("utf-8", errors="replace"))
        self.offset, self.line = len(head), 1
        compact = COMPACT_HEAD in head
        tail = self._tail_start(size) if compact and size > WHOLE_FILE else self.offset
        self.tail_start = tail
        if tail > self.offset:
            self._scan_state(self.offset, tail)
            self.offset = tail
        self._read_lines(size)

    def poll(self, info: FileInfo) -> bool:
        """Follow the file to ``info``; whether anything changed."""
        replaced = info.identity != self.info.identity or info.size < self.offset + len(self._carry)
        grew = info.size > self.offset + len(self._carry)
        touched = info.mtime != self.info.mtime
        self.info = info
        if replaced:
            self.fold = ThreadFold(info.path, self.baseline)
            self.offset, self.line, self._carry = 0, 0, b""
            self.index()
        elif grew:
            self._read_lines(info.size)
        if replaced or grew or touched:
            self._summary = None
            return True
        return False

    def _head(self, size: int) -> bytes | None:
        data = b""
        while len(data) < size:
            data += self.files.read(self.info.path, len(data), min(CHUNK, size - len(data)))
            end = data.find(b"\n")
            if end >= 0:
                return data[: end + 1]
            if not data:
                break
        return None

    def _tail_start(self, size: int) -> int:
        """The start of the line of the last turn start, within TAIL_LIMIT of the end."""
        floor = max(self.offset, size - TAIL_LIMIT)
        end = size
        while end > floor:
            start = max(floor, end - CHUNK)
            chunk = self.files.read(self.info.path, start, end - start + len(TURN_MARKER))
            found = chunk.rfind(TURN_MARKER)
            if found >= 0:
                newline = chunk.rfind(b"\n", 0, found)
                if newline >= 0:
                    return start + newline + 1
                return self._line_start(start, floor)
            end = start
        if floor == self.offset:
            return self.offset
        chunk = self.files.read(self.info.path, floor, CHUNK)
        newline = chunk.find(b"\n")
        return floor + newline + 1 if newline >= 0 else self.offset

    def _line_start(self, position: int, floor: int) -> int:
        """The start of the line that holds ``position``, looking back no further than floor."""
        while position > floor:
            start = max(floor, position - CHUNK)
            newline = self.files.read(self.info.path, start, position - start).rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            position = start
        return floor

    def _scan_state(self, start: int, end: int) -> None:
        """The skipped middle: only the lines that carry state are parsed, in file order."""
        for region in self._regions(start, end, b""):
            self.fold.skipped_turns += region.count(TURN_MARKER)
            counted = 0
            for line_start in _state_line_starts(region):
                self.line += region.count(b"\n", counted, line_start)
                counted = line_start
                line_end = region.find(b"\n", line_start) + 1
                raw = region[line_start:line_end].decode("utf-8", errors="replace")
                self.fold.skipped_line(self.line + 1, raw)
            self.line += region.count(b"\n", counted)

    def _read_lines(self, size: int) -> None:
        """Every complete line from the offset to ``size``, into the fold."""
        for region in self._regions(self.offset + len(self._carry), size, self._carry):
            for raw in region.splitlines(keepends=True):
                self.line += 1
                self.fold.read_line(self.line, raw.decode("utf-8", errors="replace"))
            self.offset += len(region)
        self._carry = self._rest

    def _regions(self, start: int, end: int, carry: bytes) -> Iterator[bytes]:
        """Runs of whole lines from ``start`` (after ``carry``) to ``end``, about a CHUNK each.

        What follows the last newline is left in ``_rest``: a line still being written.
        """
        pieces = [carry] if carry else []
        position = start
        while position < end:
            got = self.files.read(self.info.path, position, min(CHUNK, end - position))
            if not got:
                break  # shorter than it was said to be: read on next time
            position += len(got)
            newline = got.rfind(b"\n")
            if newline < 0:
                pieces.append(got)
                continue
            pieces.append(got[: newline + 1])
            region = b"".join(pieces)
            pieces = [got[newline + 1 :]]
            yield region
        self._rest = b"".join(pieces)

    # --- the row ---------------------------------------------------------------------------

    def summary(self, now: datetime, live_window: float) -> ThreadSummary:
        if self._summary is None:
            self._summary = self.fold.summary(
                thread_id_from_name(self.info.name), size=self.info.size
            )
        written = datetime.fromtimestamp(self.info.mtime, UTC)
        self._summary.last_written = written
        self._summary.live = self.live = (now - written).total_seconds() <= live_window
        return self._summary


def _state_line_starts(region: bytes) -> list[int]:
    """Where the lines holding a state marker start, each once, in order (C-speed finds)."""
    starts = set()
    for marker in STATE_MARKERS:
        found = region.find(marker)
        while found >= 0:
            starts.add(region.rfind(b"\n", 0, found) + 1)
            found = region.find(marker, found + len(marker))
    return sorted(starts)
