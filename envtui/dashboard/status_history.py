"""Each environment's status over time: its transitions, bounded, and what they add up to.

The question an operator asks after a drop is "how often, since when, for how long?": a
status alone answers "now". :class:`StatusHistory` keeps an environment's transitions
(a bounded count, the oldest leave first) dated by the events that carried them, never by
when they arrived, so a replay or a rollout rebuilds the same history as the live run.
Strips, availability and flaps are computed from it for any window, pure and headless:
the table draws them, the history screen lays them side by side, tests check them.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from envtui.vocabulary.events import LiveState

DEFAULT_TRANSITIONS = 500
"""Transitions each environment keeps (the config's ``status_history``)."""
STRIP_CELLS = 10
STRIP_INTERVAL = timedelta(seconds=30)
"""The table's strip: ten cells of 30 s, the last five minutes."""
SEVERITY: dict[str, int] = {"ready": 0, "starting": 1, "unavailable": 2}
"""Which status a cell shows when several held in its interval: the worst, so a drop of a
second is never drawn over by the ready around it."""

Cell = LiveState | Literal["unknown"]
HistoryState = LiveState | Literal["removed"]
"""What a transition enters: a status, or out of the selection (drawn as not known)."""


@dataclass(frozen=True)
class Transition:
    """The environment entered ``status`` at ``at``."""

    at: datetime
    status: HistoryState


@dataclass(frozen=True)
class Window:
    """What a window of a history adds up to, computed in one pass."""

    cells: list[Cell]
    """One status per interval, oldest first: the worst that held in it."""
    availability: float | None
    """The share of the known part spent ready; None if no part is known."""
    flaps: int
    """How many times it left ready (a drop, however short)."""


class StatusHistory:
    """One environment's transitions, oldest first, at most ``limit``."""

    def __init__(self, limit: int = DEFAULT_TRANSITIONS) -> None:
        self.limit = limit
        self.transitions: list[Transition] = []
        """Oldest first, in time order: a window is found by bisection, so a strip costs
        the transitions inside it, not the whole history."""
        self._times: list[float] = []  # the transitions' times as POSIX seconds
        self._cached: tuple[tuple[int, float, int, float], _Tally] | None = None
        self.dropped = 0
        """Transitions pushed out by the bound: the history is complete when this is 0."""

    def record(self, status: HistoryState, at: datetime | None) -> bool:
        """Note ``status`` at ``at``; True when it is a transition (the status changed).

        A status without a time is dated like the last one (it cannot be placed better);
        an event older than the last transition (sources interleave) is placed at the last
        transition's time, so the history stays in time order.
        """
        last = self.transitions[-1] if self.transitions else None
        if last is not None and last.status == status:
            return False
        when = at if at is not None else (last.at if last is not None else None)
        if when is None:
            return False
        if last is not None and when < last.at:
            when = last.at
        self.transitions.append(Transition(when, status))
        self._times.append(when.timestamp())
        if len(self.transitions) > self.limit:
            del self.transitions[0], self._times[0]
            self.dropped += 1
        return True

    def status_at(self, when: datetime) -> LiveState | None:
        """The status at ``when``; None before the first transition held, or while the
        environment was out of the selection."""
        index = bisect_right(self._times, when.timestamp())
        status = self.transitions[index - 1].status if index else None
        return None if status == "removed" else status

    def window(self, end: datetime, cells: int, interval: timedelta) -> Window:
        """The ``cells`` intervals before ``end``: each one's worst status (any moment of
        it, so a drop of a second is never drawn over by the ready around it; "unknown"
        before the first transition), the share spent ready, and the drops."""
        width = interval.total_seconds()
        return self._window(end.timestamp() - width * cells, width, cells, cells).done()

    def recent(self, now: datetime, cells: int, interval: timedelta) -> Window:
        """The last minutes up to ``now`` as the table's strip shows them: ``cells - 1``
        whole intervals aligned on the clock (kept until a transition comes or the clock
        passes the next boundary) and the interval under way, up to ``now``. A second
        later only that last interval is computed again, so a strip per row per second
        costs the transitions of the last interval, not those of the whole window."""
        width = interval.total_seconds()
        moment = now.timestamp()
        boundary = (moment // width) * width
        key = (len(self._times) + self.dropped, boundary, cells, width)
        if self._cached is None or self._cached[0] != key:
            start = boundary - width * (cells - 1)
            self._cached = (key, self._window(start, width, cells - 1, cells - 1))
        whole = self._cached[1]
        under_way = self._window(boundary, width, 1, max(moment - boundary, 1e-3) / width)
        return whole.joined(under_way).done()

    def _window(self, start: float, width: float, cells: int, length: float) -> _Tally:
        """The tally from ``start`` over ``length`` cells (fractional) of ``width`` s."""
        finish = start + width * length
        index = bisect_right(self._times, start)
        current: HistoryState | None = self.transitions[index - 1].status if index else None
        tally = _Tally(["unknown"] * cells)
        cursor = 0.0
        while index < len(self._times) and self._times[index] < finish:
            moment, status = (self._times[index] - start) / width, self.transitions[index].status
            if current is not None:
                tally.paint(cursor, moment, current)
            tally.flaps += current == "ready" and status not in ("ready", "removed")
            cursor, current = moment, status
            index += 1
        if current is not None:
            tally.paint(cursor, length, current)
        return tally

    def strip(
        self, end: datetime, cells: int = STRIP_CELLS, interval: timedelta = STRIP_INTERVAL
    ) -> list[Cell]:
        """One status per interval, oldest first, the last ending at ``end``."""
        return self.window(end, cells, interval).cells

    def availability(self, start: datetime, end: datetime) -> float | None:
        """The share of the known part of ``start``..``end`` spent ready."""
        return self.window(end, 1, end - start).availability if end > start else None

    def flaps(self, start: datetime, end: datetime) -> int:
        """How many times it left ready within ``start``..``end``."""
        return self.window(end, 1, end - start).flaps if end > start else 0


@dataclass
class _Tally:
    """A window being added up: cells painted, time known and ready (in cells), drops."""

    cells: list[Cell]
    known: float = 0.0
    ready: float = 0.0
    flaps: int = 0

    def paint(self, begin: float, finish: float, status: HistoryState) -> None:
        """``status`` held from cell position ``begin`` to ``finish`` (fractional); out of
        the selection is not known, as before the first transition."""
        if finish <= begin or status == "removed":
            return
        self.known += finish - begin
        if status == "ready":
            self.ready += finish - begin
        severity = SEVERITY[status]
        last = min(len(self.cells) - 1, int(finish - 1e-9))
        for cell in range(max(0, int(begin)), last + 1):
            shown = self.cells[cell]
            if shown == "unknown" or SEVERITY[shown] < severity:
                self.cells[cell] = status

    def joined(self, after: _Tally) -> _Tally:
        return _Tally(
            self.cells + after.cells,
            self.known + after.known,
            self.ready + after.ready,
            self.flaps + after.flaps,
        )

    def done(self) -> Window:
        share = self.ready / self.known if self.known > 0 else None
        return Window(list(self.cells), share, self.flaps)


def strip_end(now: datetime, latest: datetime | None, window: timedelta) -> datetime:
    """Where a strip ends: now, unless the events stopped longer ago than the window (a
    finished replay or rollout), then at the last event, so its last minutes are shown."""
    if latest is not None and now - latest > window:
        return latest
    return now
