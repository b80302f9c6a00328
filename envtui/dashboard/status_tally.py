"""What a span of one environment's history adds up to, per cell: the ready share, the
worst status, the drops and returns.

Two parts of :mod:`envtui.dashboard.status_history` fill it: the transitions it still holds
one by one (exact), and the summary of those it let go (:class:`Summary`: the same sums per
bucket of a few seconds). A span is "not known" only when neither has anything for it, so
a history past its bound still draws its oldest minutes, as they were.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from envtui.vocabulary.terms import LiveState

SEVERITY: dict[str, int] = {"ready": 0, "starting": 1, "unavailable": 2}
"""Which status a cell is coloured by when several held in it: the worst, so a drop of a
second is never drawn over by the ready around it."""
BY_SEVERITY: tuple[LiveState, ...] = ("ready", "starting", "unavailable")
BUCKET = 5.0
"""Seconds: the finest resolution a let-go span is remembered at."""
MAX_BUCKETS = 512
"""Buckets a summary keeps; past it, neighbours merge and a bucket covers twice the time,
so a history's memory stays bounded however long the run (42 min at 5 s, then 85 at 10…)."""
NOT_READY = ("starting", "unavailable")


def change_of(before: str, after: str) -> tuple[bool, bool]:
    """(a drop, a return): ready to a status that is not, or back. Leaving the selection
    (``removed``) is neither, nor is coming back into it."""
    return (before == "ready" and after in NOT_READY, before in NOT_READY and after == "ready")


CHANGES: dict[tuple[str, str], tuple[int, int]] = {
    (before, after): (1, int(drop))
    for before in ("removed", *BY_SEVERITY)
    for after in ("removed", *BY_SEVERITY)
    for drop, back in [change_of(before, after)]
    if drop or back
}
"""(changes, drops) of each transition that goes between ready and not ready."""


@dataclass(frozen=True)
class Cell:
    """One interval of a strip: what held in it, as far as it is known."""

    worst: LiveState | None
    """The worst status that held at any moment of it; None when nothing is known of it
    (before the environment was first seen, or while it was out of the selection)."""
    ready: float
    """The share of its known time spent ready, 0 to 1 (0 when nothing is known)."""
    flapped: bool
    """It went between ready and not ready at least twice inside it (a drop and a return,
    in either order): its share alone would read as a steady state."""


Walked = tuple[int, float, float, str | None]
"""A walk over transitions: the next to go through, where to stop (all in cells from the
start), where the last one gone through is, and what it entered (None: nothing known)."""


@dataclass(frozen=True)
class Window:
    """What a window of a history adds up to, computed in one pass."""

    cells: list[Cell]
    """One cell per interval, oldest first."""
    availability: float | None
    """The share of the known part spent ready; None if no part is known."""
    flaps: int
    """How many times it left ready (a drop, however short)."""


class Tally:
    """A window being added up, in cell units: known and ready time, the worst severity
    and the drops and returns of each cell, and the drops of the whole window."""

    def __init__(self, cells: int) -> None:
        self.known = [0.0] * cells
        self.ready = [0.0] * cells
        self.worst = [-1] * cells
        self.changes = [0] * cells
        self.flaps = 0

    def paint(self, begin: float, finish: float, status: str) -> None:
        """``status`` held from cell position ``begin`` to ``finish`` (fractional); out of
        the selection is not known, as before the first transition."""
        if finish <= begin or status == "removed":
            return
        self.add(begin, finish, 1.0, 1.0 if status == "ready" else 0.0, SEVERITY[status])

    def add(self, begin: float, finish: float, known: float, ready: float, worst: int) -> None:
        """Spread ``known`` and ``ready`` (shares of the time from ``begin`` to ``finish``)
        over the cells that time covers, and mark each with ``worst``."""
        first = int(begin) if begin > 0 else 0
        last = min(len(self.known) - 1, int(finish - 1e-9))
        if first == last:  # within one cell, as most spans of a strip's last interval are
            overlap = min(finish, first + 1) - max(begin, first)
            if overlap > 0:
                self.known[first] += overlap * known
                self.ready[first] += overlap * ready
                if self.worst[first] < worst:
                    self.worst[first] = worst
            return
        for cell in range(first, last + 1):
            overlap = min(finish, cell + 1) - max(begin, cell)
            if overlap <= 0:
                continue
            self.known[cell] += overlap * known
            self.ready[cell] += overlap * ready
            self.worst[cell] = max(self.worst[cell], worst)

    def change(self, moment: float, before: str, after: str) -> None:
        """A transition at cell position ``moment``."""
        counted = CHANGES.get((before, after))
        if counted is not None:
            self.count(moment, *counted)

    def count(self, moment: float, changes: int, drops: int) -> None:
        self.flaps += drops
        if changes and moment >= 0 and self.known:
            self.changes[min(len(self.known) - 1, int(moment))] += changes

    def walk(self, times: Sequence[float], statuses: Sequence[str], walked: Walked) -> Walked:
        """Go through the transitions (``times`` in cells from the start, in order) from
        ``walked``: paint what held between them and count their changes. One loop with
        no call per transition: a strip's whole intervals are this walk."""
        index, finish, cursor, current = walked
        known, ready, worst, changes = self.known, self.ready, self.worst, self.changes
        last_cell = len(known) - 1
        while index < len(times) and times[index] < finish:
            moment, status = times[index], statuses[index]
            if current is not None and current != "removed" and moment > cursor:
                severity, is_ready = SEVERITY[current], current == "ready"
                first = int(cursor) if cursor > 0 else 0
                last = int(moment - 1e-9)
                last = last if last < last_cell else last_cell
                for cell in range(first, last + 1):
                    low = cursor if cursor > cell else cell
                    high = moment if moment < cell + 1 else cell + 1
                    if high > low:
                        known[cell] += high - low
                        if is_ready:
                            ready[cell] += high - low
                        if worst[cell] < severity:
                            worst[cell] = severity
            if current is not None:
                counted = CHANGES.get((current, status))
                if counted is not None:
                    self.flaps += counted[1]
                    if moment >= 0 and last_cell >= 0:
                        cell = int(moment)
                        changes[cell if cell < last_cell else last_cell] += 1
            cursor, current = moment, status
            index += 1
        return index, finish, cursor, current

    def copy(self) -> Tally:
        again = Tally(0)
        again.known, again.ready = list(self.known), list(self.ready)
        again.worst, again.changes, again.flaps = list(self.worst), list(self.changes), self.flaps
        return again

    def done(self) -> Window:
        cells = [
            Cell(
                BY_SEVERITY[worst] if worst >= 0 else None,
                min(1.0, ready / known) if known > 1e-9 else 0.0,
                changes >= 2,
            )
            for known, ready, worst, changes in zip(
                self.known, self.ready, self.worst, self.changes, strict=True
            )
        ]
        known, ready = sum(self.known), sum(self.ready)
        share = min(1.0, ready / known) if known > 1e-9 else None
        return Window(cells, share, self.flaps)


@dataclass
class _Bucket:
    """The let-go history of one bucket: the time it covers (``lo`` to ``hi``) and its sums."""

    lo: float
    hi: float
    known: float = 0.0
    ready: float = 0.0
    worst: int = -1
    changes: int = 0
    drops: int = 0

    def merge(self, other: _Bucket) -> None:
        self.lo, self.hi = min(self.lo, other.lo), max(self.hi, other.hi)
        self.known += other.known
        self.ready += other.ready
        self.worst = max(self.worst, other.worst)
        self.changes += other.changes
        self.drops += other.drops


def _add_span(bucket: _Bucket, begin: float, end: float, status: str) -> None:
    """``status`` held from ``begin`` to ``end``, all of it inside ``bucket``."""
    bucket.lo, bucket.hi = min(bucket.lo, begin), max(bucket.hi, end)
    bucket.known += end - begin
    if status == "ready":
        bucket.ready += end - begin
    bucket.worst = max(bucket.worst, SEVERITY[status])


class Summary:
    """The transitions a history let go, added up per bucket of time (POSIX seconds).

    Spans come in time order (the oldest transition leaves first), so buckets are only ever
    added at the end; at :data:`MAX_BUCKETS` the grid doubles its width and neighbours merge.
    Read back, a bucket's sums are spread over the cells its time overlaps, in proportion;
    its drops and returns count in the cell holding its middle.
    """

    def __init__(self) -> None:
        self.width = BUCKET
        self.buckets: list[_Bucket] = []
        self._keys: list[int] = []  # each bucket's place on the grid (its start // width)
        self.start: float | None = None
        """The first moment it covers; None while nothing was let go."""

    def span(self, begin: float, end: float, status: str) -> None:
        """``status`` held from ``begin`` to ``end``."""
        if end <= begin or status == "removed":
            return
        self.start = begin if self.start is None else min(self.start, begin)
        if self._keys and end <= (self._keys[-1] + 1) * self.width:
            # the common case, a span of a few seconds at most: all in the last bucket
            _add_span(self.buckets[-1], begin, end, status)
            return
        cursor = begin
        while cursor < end:
            key = self._key(cursor)
            stop = min(end, (key + 1) * self.width)
            if stop <= cursor:
                key += 1
                stop = min(end, (key + 1) * self.width)
            _add_span(self._bucket(key, cursor), cursor, stop, status)
            cursor = stop
            self._bound()

    def let_go(self, times: Sequence[float], statuses: Sequence[str], count: int) -> None:
        """The first ``count`` transitions leave a history, oldest first: the time each held
        (to the next one's time), and the change into the next one."""
        if not self._keys or times[count] >= (self._keys[-1] + 1) * self.width:
            for index in range(count):
                following = index + 1
                self.span(times[index], times[following], statuses[index])
                self.change(times[following], statuses[index], statuses[following])
            return
        # the common case, transitions of a few seconds: all of them in the last bucket
        bucket, start = self.buckets[-1], self.start
        for index in range(count):
            begin, end, status = times[index], times[index + 1], statuses[index]
            if end > begin and status != "removed":
                start = begin if start is None else min(start, begin)
                _add_span(bucket, begin, end, status)
            counted = CHANGES.get((status, statuses[index + 1]))
            if counted is not None:
                bucket.changes += counted[0]
                bucket.drops += counted[1]
        self.start = start

    def change(self, at: float, before: str, after: str) -> None:
        """The transition from ``before`` to ``after`` at ``at``."""
        counted = CHANGES.get((before, after))
        if counted is not None:
            bucket = self._bucket(self._key(at), at)
            bucket.changes += counted[0]
            bucket.drops += counted[1]
            self._bound()

    def _key(self, at: float) -> int:
        """``at``'s place on the grid, never before the last bucket (times come in order;
        a rounding at a boundary stays in the bucket it is in)."""
        key = int(at // self.width)
        return max(key, self._keys[-1]) if self._keys else key

    def _bucket(self, key: int, at: float) -> _Bucket:
        """The bucket at ``key`` on the grid: the last one, or a new one after it."""
        if not self._keys or self._keys[-1] < key:
            self._keys.append(key)
            self.buckets.append(_Bucket(at, at))
        return self.buckets[-1]

    def _bound(self) -> None:
        while len(self.buckets) > MAX_BUCKETS:
            self.width *= 2
            keys: list[int] = []
            buckets: list[_Bucket] = []
            for key, bucket in zip(self._keys, self.buckets, strict=True):
                if keys and keys[-1] == key // 2:
                    buckets[-1].merge(bucket)
                else:
                    keys.append(key // 2)
                    buckets.append(bucket)
            self._keys, self.buckets = keys, buckets

    def add_to(self, tally: Tally, start: float, width: float, finish: float, closed: bool) -> None:
        """Add what it holds of ``start`` .. ``finish`` to ``tally`` (cells of ``width`` s
        from ``start``); ``closed``: a change at ``finish`` itself counts too (the window
        goes on past where the summary ends, and the change into what is held is here)."""
        first = max(0, bisect_right(self._keys, int(start // self.width)) - 1)
        for bucket in self.buckets[first:]:
            if bucket.lo > finish or (bucket.lo == finish and not closed):
                break
            covered = bucket.hi - bucket.lo
            begin, end = max(bucket.lo, start), min(bucket.hi, finish)
            if covered > 0 and end > begin and bucket.known > 0:
                tally.add(
                    (begin - start) / width,
                    (end - start) / width,
                    bucket.known / covered,
                    bucket.ready / covered,
                    bucket.worst,
                )
            middle = (bucket.lo + bucket.hi) / 2
            if start <= middle < finish or (closed and middle == finish):
                tally.count((middle - start) / width, bucket.changes, bucket.drops)
