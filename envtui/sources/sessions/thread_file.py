"""One rollout file of a sessions tree: indexed from its head and tail, then followed.

Indexing reads the head (the ``session_meta`` line) and the tail from the start of the
last turn (at most :data:`TAIL_LIMIT` bytes), which the reader cuts into steps. What lies
between is not parsed: the latest full ``world_state`` before the tail is found by reading
back from it, and from there the few lines that carry state into the tail
(``world_state``, ``compacted``, ``additional_tools``) and the turn starts are found by
C-speed searches over the raw bytes, and only those lines are parsed. What lies before
that full world state is read the same way when it is short; when it is long, only its
first bytes are (for the thread's tools line), so the cost of a file follows its head, its
last turn and the state since its latest full world state, not its size. The row then
says what it could not know: its turn and step counts are lower bounds, and a rule of the
whole thread (selected-never-resolved) is "not known". After indexing only new bytes are
read; a file that shrank or was replaced is indexed again.

The scan relies on Codex writing compact JSON (``"type":"world_state"``); a file whose
head is not written that way is read whole, so nothing is missed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime

from envtui.incidents.thread_summary import ThreadFold, ThreadSummary
from envtui.rollout.state import BaselineLookup
from envtui.sources.sessions.session_files import SessionFiles
from envtui.sources.sessions.tree_listing import FileInfo

CHUNK = 1 << 20
FIRST_READ = 64 << 10
"""The first read of a search from either end of a file; each next one is twice as long."""
WHOLE_FILE = 64 << 10
"""A file up to this size is read whole at indexing: its step count is then exact."""
READ_GAP = 256 << 10
"""The most of a skipped middle read before its latest full world state (see _scan_state)."""
TAIL_LIMIT = 16 << 20
"""The most of a file's end parsed at indexing; a longer last turn is read from there."""
COMPACT_HEAD = b'"type":"session_meta"'
TURN_MARKER = b'"type":"task_started"'
WORLD_MARKER = b'"type":"world_state"'
COMPACT_MARKER = b'"type":"compacted"'
TOOLS_MARKER = b'"type":"additional_tools"'
"""The lines of a skipped middle that are looked at; turn starts there are only counted."""
FULL_MARKER = b'"type":"world_state","payload":{"full":true'
"""A full world state as Codex writes it: what comes before it in the middle is replaced."""
_THREAD_ID_LENGTH = 36
_KIND_WITHIN = 128
"""How far into a line its top-level type and the start of its payload are looked for."""


def thread_id_from_name(name: str) -> str:
    """The thread id at the end of ``rollout-<time>-<thread id>.jsonl``."""
    stem = name.removesuffix(".jsonl")
    return stem[-_THREAD_ID_LENGTH:] if len(stem) > _THREAD_ID_LENGTH else stem


class ThreadFile:
    """The fold of one file and how far it has been read."""

    def __init__(
        self,
        files: SessionFiles,
        info: FileInfo,
        baseline: BaselineLookup | None = None,
        *,
        host: str = "",
    ) -> None:
        self.files = files
        self.host = host
        self.info = info
        self.baseline = baseline
        self.fold: ThreadFold | None = ThreadFold(info.path, baseline)
        self.offset = 0  # bytes consumed: the end of the last complete line
        self.line = 0  # the number of that line
        self._carry = b""
        self._rest = b""
        self._summary: ThreadSummary | None = None
        self._stale = True  # the summary must be made again
        self.tail_start = 0  # where parsing started at indexing (after the head: nothing skipped)

    # --- reading ---------------------------------------------------------------------------

    def index(self) -> None:
        """Head, the skipped middle's state lines, and the tail (see the module)."""
        fold = self.fold = ThreadFold(self.info.path, self.baseline)
        self.offset, self.line, self._carry = 0, 0, b""
        self._stale = True
        size = self.info.size
        head = self._head(size)
        if head is None:
            return  # not even one complete line yet
        fold.head(head.decode("utf-8", errors="replace"))
        self.offset, self.line = len(head), 1
        compact = COMPACT_HEAD in head
        tail = self._tail_start(size) if compact and size > WHOLE_FILE else self.offset
        self.tail_start = tail
        if tail > self.offset:
            self._scan_state(self.offset, tail)
            self.offset = tail
        self._read_lines(size)

    def poll(self, info: FileInfo) -> bool:
        """Follow the file to ``info``; whether anything changed.

        A quiet thread's fold was let go (see :meth:`summary`): when its file grows again
        it is indexed again, from head and tail, which is what indexing it first did.
        """
        replaced = info.identity != self.info.identity or info.size < self.offset + len(self._carry)
        grew = info.size > self.offset + len(self._carry)
        touched = info.mtime != self.info.mtime
        self.info = info
        if replaced or (grew and self.fold is None):
            self.index()
        elif grew:
            self._read_lines(info.size)
        if replaced or grew or touched:
            self._stale = True
            return True
        return False

    def _head(self, size: int) -> bytes | None:
        data, step = b"", FIRST_READ
        while len(data) < size:
            data += self.files.read(self.info.path, len(data), min(step, size - len(data)))
            end = data.find(b"\n")
            if end >= 0:
                return data[: end + 1]
            if not data:
                break
            step = min(2 * step, CHUNK)
        return None

    def _tail_start(self, size: int) -> int:
        """The start of the line of the last turn start, within TAIL_LIMIT of the end."""
        floor = max(self.offset, size - TAIL_LIMIT)
        found = self._line_back(TURN_MARKER, floor, size)
        if found is not None:
            return found
        if floor == self.offset:
            return self.offset
        chunk = self.files.read(self.info.path, floor, CHUNK)
        newline = chunk.find(b"\n")
        return floor + newline + 1 if newline >= 0 else self.offset

    def _line_back(self, marker: bytes, floor: int, end: int) -> int | None:
        """Where the line of the last ``marker`` between ``floor`` and ``end`` starts, read
        back from ``end`` in reads that start small (the marker is usually near) and grow."""
        step = FIRST_READ
        while end > floor:
            start = max(floor, end - step)
            chunk = self.files.read(self.info.path, start, end - start + len(marker) - 1)
            found = chunk.rfind(marker)
            if found >= 0:
                newline = chunk.rfind(b"\n", 0, found)
                return start + newline + 1 if newline >= 0 else self._line_start(start, floor)
            end, step = start, min(2 * step, CHUNK)
        return None

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
        """The skipped middle: only the lines whose effect reaches the tail, in file order.

        The world state the tail starts from is the latest full ``world_state`` and what
        follows it (patches, a compaction), found by reading back from the tail; what lies
        before it is read only when it is short (:data:`READ_GAP`), and then every state
        line in it is applied too, so that a rule of the whole thread sees every snapshot.
        A longer gap is not read but for its first :data:`READ_GAP` bytes, where Codex
        writes a thread's tools line: its turns, and its snapshots, are not known.
        """
        fold = self.fold
        assert fold is not None, "indexed first"
        anchor = self._last_full(start, end)
        if anchor - start > READ_GAP:
            self._front_tools(start, start + READ_GAP)
            fold.unseen_states(bytes_unread=True)
            start = anchor
        for line in self._state_lines(start, end):
            if line.kind == "compacted":
                fold.skipped_compaction()
            elif line.kind == "tools":
                fold.skipped_tools_line(line.number, line.raw.decode("utf-8", errors="replace"))
            else:
                fold.skipped_line(line.number, line.raw.decode("utf-8", errors="replace"))

    def _state_lines(self, start: int, end: int) -> Iterator[_StateLine]:
        """The state lines from ``start`` to ``end``, numbered; turn starts are counted."""
        fold = self.fold
        assert fold is not None, "indexed first"
        for region in self._regions(start, end, b""):
            fold.skipped_turns += region.count(TURN_MARKER)
            counted = 0
            for line_start in _state_line_starts(region):
                self.line += region.count(b"\n", counted, line_start)
                counted = line_start
                line_end = region.find(b"\n", line_start) + 1
                yield _StateLine(self.line + 1, region[line_start:line_end])
            self.line += region.count(b"\n", counted)

    def _front_tools(self, start: int, end: int) -> None:
        """The tools lines of a gap that is not read, those before its first world state
        (where Codex writes them when a thread starts) within its first bytes; numbered as
        if nothing came before them (the gap's lines are not counted).

        Read in reads of FIRST_READ (a few at most: ``end`` is READ_GAP on), each searched
        with the unfinished line before it: the front is never joined into one buffer."""
        position, carry = start, b""
        while position < end:
            got = self.files.read(self.info.path, position, min(FIRST_READ, end - position))
            if not got:
                return
            position += len(got)
            data = carry + got if carry else got
            world = data.find(WORLD_MARKER)
            whole = data.rfind(b"\n", 0, world if world >= 0 else len(data)) + 1
            self._tools_lines(data, whole)
            if world >= 0:
                return
            carry = data[whole:]

    def _tools_lines(self, data: bytes, whole: int) -> None:
        """The tools lines among the whole lines of ``data[:whole]``, into the fold."""
        fold = self.fold
        assert fold is not None, "indexed first"
        found = data.find(TOOLS_MARKER, 0, whole)
        while found >= 0:
            line_start = data.rfind(b"\n", 0, found) + 1
            line_end = data.find(b"\n", found, whole) + 1
            line = _StateLine(self.line + 1, data[line_start:line_end])
            if line.kind == "tools":
                fold.skipped_tools_line(line.number, line.raw.decode("utf-8", errors="replace"))
            found = data.find(TOOLS_MARKER, line_end, whole)

    def _last_full(self, start: int, end: int) -> int:
        """Where the line of the latest full world state between ``start`` and ``end``
        starts, read back from ``end``; ``start`` when there is none."""
        found = self._line_back(FULL_MARKER, start, end)
        return start if found is None else found

    def _read_lines(self, size: int) -> None:
        """Every complete line from the offset to ``size``, into the fold."""
        fold = self.fold
        assert fold is not None, "indexed first"
        for region in self._regions(self.offset + len(self._carry), size, self._carry):
            for raw in region.splitlines(keepends=True):
                self.line += 1
                fold.read_line(self.line, raw.decode("utf-8", errors="replace"))
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
        """The row, a new object whenever it changes (the view may hold the last one).

        A thread that is not live lets its fold go: a quiet thread costs its row, not the
        state a reader keeps to follow it.
        """
        summary = self._summary
        if self._stale or summary is None:
            if self.fold is not None:
                name = thread_id_from_name(self.info.name)
                summary = self.fold.summary(name, size=self.info.size)
                summary.host = self.host
            else:  # touched, not grown: the same row, written at another time
                summary = dataclasses.replace(summary) if summary else ThreadSummary("", "")
            summary.last_written = datetime.fromtimestamp(self.info.mtime, UTC)
            summary.live = is_live(summary, now, live_window)
            self._stale = False
        elif summary.live != is_live(summary, now, live_window):
            summary = dataclasses.replace(summary, live=not summary.live)
        self._summary = summary
        if not summary.live:
            self.fold = None
        return summary


def is_live(summary: ThreadSummary, now: datetime, live_window: float) -> bool:
    """Written within the window, and its latest item dated within it by the rollout itself."""
    written, latest = summary.last_written, summary.last_item_at
    if written is None or latest is None:
        return False
    return max((now - written).total_seconds(), (now - latest).total_seconds()) <= live_window


class _StateLine:
    """A state line of a skipped middle, and what its first bytes say it is.

    Codex writes ``{"timestamp":"…","type":"…","payload":{"full":…`` with the type near
    the start; a line written otherwise is ``other``, parsed to be sure.
    """

    __slots__ = ("kind", "number", "raw")

    def __init__(self, number: int, raw: bytes) -> None:
        self.number = number
        self.raw = raw
        self.kind = _kind_of(raw)


def _kind_of(raw: bytes) -> str:
    if not raw.startswith(b'{"timestamp":"'):
        return "other"
    head = raw[:_KIND_WITHIN]
    if b'"type":"world_state","payload":{"full":true' in head:
        return "full"
    if b'"type":"world_state","payload":{"full":false' in head:
        return "patch"
    if b'"type":"compacted","payload":' in head:
        return "compacted"
    if b'"type":"response_item","payload":{"type":"additional_tools"' in head:
        return "tools"
    return "other"


def _state_line_starts(region: bytes) -> list[int]:
    """Where the lines holding a state marker start, each once, in order (C-speed finds)."""
    starts = set()
    for marker in (TOOLS_MARKER, WORLD_MARKER, COMPACT_MARKER):
        found = region.find(marker)
        while found >= 0:
            starts.add(region.rfind(b"\n", 0, found) + 1)
            found = region.find(marker, found + len(marker))
    return sorted(starts)
