"""Each environment's status over time: its transitions, bounded, and what they add up to.

The question an operator asks after a drop is "how often, since when, for how long?": a
status alone answers "now". :class:`StatusHistory` keeps an environment's transitions
(a bounded count) dated by the events that carried them, never by when they arrived, so a
replay or a rollout rebuilds the same history as the live run. The oldest leave first, into
a summary of sums per few seconds, so after an hour of a flapping host its first minutes
are still drawn as they were, not as "not known"; memory stays bounded either way.
Strips (per cell: the ready share, the worst status, whether it flapped), availability and
flaps are computed from it for any window, pure and headless: the table draws them, the
history screen lays them side by side, tests check them.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, cast

from envtui.dashboard.status_tally import Cell, Summary, Tally, Window
from envtui.vocabulary.terms import LiveState

__all__ = ["Cell", "StatusHistory", "Transition", "Window", "strip_end"]

LET_GO_TOGETHER = 64
"""Transitions past the bound that wait to be let go together (into the summary, and out
of the lists in one cut): one at a time, each new transition moved every one held. Every
reading lets them go first, so what it reads is as if each had left at once."""
DEFAULT_TRANSITIONS = 500
"""Transitions each environment keeps one by one (the config's ``status_history``); those
it lets go are kept as sums per few seconds (:class:`~envtui.dashboard.status_tally.Summary`)."""
STRIP_CELLS = 10
STRIP_INTERVAL = timedelta(seconds=30)
"""The table's strip: ten cells of 30 s, the last five minutes."""

HistoryState = LiveState | Literal["removed"]
"""What a transition enters: a status, or out of the selection (drawn as not known)."""


@dataclass
class _Scan:
    """A tally being made over the transitions in time order, and where it stands."""

    start: float
    width: float
    tally: Tally
    seen: int
    """Transitions gone through (counting those let go before)."""
    cursor: float
    """Where the last one seen is, in cells from ``start``."""
    current: HistoryState | None
    """What it entered (None: nothing known yet), holding from ``cursor`` on."""
    until: float
    """Up to when (POSIX seconds) it went through the transitions."""


@dataclass(frozen=True, slots=True)
class Transition:
    """The environment entered ``status`` at ``at``."""

    at: datetime
    status: HistoryState


class StatusHistory:
    """One environment's transitions, oldest first, at most ``limit``; and the sums of the
    ones let go, so its whole span stays known."""

    def __init__(self, limit: int = DEFAULT_TRANSITIONS) -> None:
        self.limit = limit
        # The transitions, oldest first, in time order, as three lists side by side (no
        # object per transition: an environment keeps hundreds): a window is found by
        # bisection of the times, so a strip costs the transitions inside it, not all.
        self._ats: list[datetime] = []  # when each came, as its event dated it
        self._times: list[float] = []  # the same as POSIX seconds
        self._statuses: list[HistoryState] = []  # what each entered
        self._cached: tuple[tuple[int, int, float, int, float], Window, float, float] | None = None
        self._under_way: _Scan | None = None  # the strip's interval under way
        self._under_way_dropped = 0  # how many were let go when it was seeded
        self._dropped = 0
        self._summary = Summary()

    @property
    def dropped(self) -> int:
        """Transitions let go by the bound (added to :attr:`summary`): 0, all are held."""
        self._let_go()
        return self._dropped

    @property
    def summary(self) -> Summary:
        """What the let-go transitions added up to, per bucket: before the first one held,
        strips and shares are read from it."""
        self._let_go()
        return self._summary

    @property
    def transitions(self) -> list[Transition]:
        """The transitions held, oldest first."""
        self._let_go()
        pairs = zip(self._ats, self._statuses, strict=True)
        return [Transition(at, status) for at, status in pairs]

    @property
    def held(self) -> int:
        """How many transitions are held (not let go)."""
        self._let_go()
        return len(self._times)

    @property
    def first_at(self) -> datetime | None:
        """The first moment this history knows of (let go or held)."""
        self._let_go()
        if self._summary.start is not None and self._ats:
            return datetime.fromtimestamp(self._summary.start, self._ats[0].tzinfo)
        return self._ats[0] if self._ats else None

    def record(self, status: HistoryState, at: datetime | None) -> bool:
        """Note ``status`` at ``at``; True when it is a transition (the status changed).

        A status without a time is dated like the last one (it cannot be placed better);
        an event older than the last transition (sources interleave) is placed at the last
        transition's time, so the history stays in time order.
        """
        statuses, ats = self._statuses, self._ats
        if statuses and statuses[-1] == status:
            return False
        last_at = ats[-1] if ats else None
        when = at if at is not None else last_at
        if when is None:
            return False
        if last_at is not None and when < last_at:
            when = last_at
        statuses.append(status)
        ats.append(when)
        self._times.append(when.timestamp())
        if len(statuses) > self.limit + LET_GO_TOGETHER:
            self._let_go()
        return True

    def _let_go(self) -> None:
        """The oldest transitions past the bound leave, oldest first: the time each held,
        and the change into the next one, go to the summary."""
        count = len(self._statuses) - self.limit
        if count <= 0:
            return
        self._summary.let_go(self._times, self._statuses, count)
        del self._statuses[:count], self._ats[:count], self._times[:count]
        self._dropped += count

    def status_at(self, when: datetime) -> LiveState | None:
        """The status at ``when``, among the transitions held; None before the first one
        held, or while the environment was out of the selection."""
        self._let_go()
        index = bisect_right(self._times, when.timestamp())
        status = self._statuses[index - 1] if index else None
        return None if status == "removed" else status

    def window(self, end: datetime, cells: int, interval: timedelta) -> Window:
        """The ``cells`` intervals before ``end``: each one's ready share, worst status (any
        moment of it, so a drop of a second is never drawn over by the ready around it; not
        known where nothing was seen) and whether it flapped, the share spent ready, and
        the drops."""
        self._let_go()
        width = interval.total_seconds()
        return self._window(end.timestamp() - width * cells, width, cells, cells).done()

    def recent(self, now: datetime, cells: int, interval: timedelta) -> Window:
        """The last minutes up to ``now`` as the table's strip shows them: ``cells - 1``
        whole intervals aligned on the clock (kept until a transition comes or the clock
        passes the next boundary) and the interval under way, up to ``now``, kept too up to
        its last transition: a second later only what came since is added, so a strip per
        row per second costs the transitions of that second, not those of the window."""
        self._let_go()
        width = interval.total_seconds()
        moment = now.timestamp()
        boundary = (moment // width) * width
        start = boundary - width * (cells - 1)
        # what the whole intervals depend on: the transitions before the boundary (new ones
        # come after it, into the interval under way), and what was let go, if they reach it
        summed = self._dropped if self._times and start < self._times[0] else 0
        before = bisect_left(self._times, boundary) + self._dropped
        key = (before, summed, boundary, cells, width)
        if self._cached is None or self._cached[0] != key:
            whole = self._window(start, width, cells - 1, cells - 1)
            self._cached = (key, whole.done(), sum(whole.known), sum(whole.ready))
        _key, kept, known, ready = self._cached
        under_way = self._under_way_tally(boundary, width, moment)
        cell = under_way.done()
        known, ready = known + under_way.known[0], ready + under_way.ready[0]
        share = min(1.0, ready / known) if known > 1e-9 else None
        return Window(kept.cells + cell.cells, share, kept.flaps + cell.flaps)

    def _under_way_tally(self, boundary: float, width: float, moment: float) -> Tally:
        """The interval under way, from ``boundary`` to ``moment``: scanned once, then each
        call goes on from the last transition it saw (transitions only ever come after the
        last), so a second costs the transitions that came in it."""
        state = self._under_way
        total = len(self._times) + self._dropped
        if (  # again when new, when the clock went back, and when transitions were let go
            # since: the summary sums them per bucket, and the interval under way is then
            # read from it as a fresh count reads it (a change at the boundary included)
            state is None
            or (state.start, state.width) != (boundary, width)
            or self._dropped != self._under_way_dropped
            or moment < state.until
        ):
            state = _Scan(boundary, width, Tally(1), self._dropped, 0.0, None, boundary)
            self._under_way_dropped = self._dropped
            self._seed(state)
        if state.seen < total:
            self._advance(state, moment)
        state.until = max(state.until, moment)
        self._under_way = state
        tally = state.tally.copy()
        if state.current is not None:
            tally.paint(state.cursor, max(moment - boundary, 1e-3) / width, state.current)
        return tally

    def _window(self, start: float, width: float, cells: int, length: float) -> Tally:
        """The tally from ``start`` over ``length`` cells (fractional) of ``width`` s: the
        summary up to the first transition held, the transitions from there."""
        state = _Scan(start, width, Tally(cells), self._dropped, 0.0, None, start)
        finish = start + width * length
        self._seed(state, finish)
        self._advance(state, finish)
        if state.current is not None:
            state.tally.paint(state.cursor, length, state.current)
        return state.tally

    def _seed(self, state: _Scan, finish: float | None = None) -> None:
        """Start ``state`` at its start: the summary's part before the first transition
        held (up to ``finish``), and the status that holds at the start."""
        start, width = state.start, state.width
        if self._dropped and self._times and start < self._times[0]:
            first = self._times[0]
            end = first if finish is None else min(first, finish)
            self._summary.add_to(state.tally, start, width, end, finish is None or first < finish)
        index = bisect_right(self._times, start)
        state.current = self._statuses[index - 1] if index else None
        state.seen = self._dropped + index

    def _advance(self, state: _Scan, finish: float) -> None:
        """Go on with the transitions ``state`` has not seen, up to ``finish``."""
        index = state.seen - self._dropped
        while index < len(self._times) and self._times[index] <= state.start:
            state.current = self._statuses[index]  # came late, at the start: seeds it
            index += 1
        stop = bisect_left(self._times, finish, lo=index)
        state.seen = self._dropped + index
        if stop <= index:
            return
        start, width = state.start, state.width
        times = [(at - start) / width for at in self._times[index:stop]]
        statuses = self._statuses[index:stop]
        walked = state.tally.walk(times, statuses, (0, math.inf, state.cursor, state.current))
        _next, _stop, state.cursor, current = walked
        state.current = cast(HistoryState | None, current)
        state.seen = self._dropped + stop

    def strip(
        self, end: datetime, cells: int = STRIP_CELLS, interval: timedelta = STRIP_INTERVAL
    ) -> list[Cell]:
        """One cell per interval, oldest first, the last ending at ``end``."""
        return self.window(end, cells, interval).cells

    def availability(self, start: datetime, end: datetime) -> float | None:
        """The share of the known part of ``start``..``end`` spent ready."""
        return self.window(end, 1, end - start).availability if end > start else None

    def flaps(self, start: datetime, end: datetime) -> int:
        """How many times it left ready within ``start``..``end``."""
        return self.window(end, 1, end - start).flaps if end > start else 0


def strip_end(now: datetime, latest: datetime | None, window: timedelta) -> datetime:
    """Where a strip ends: now, unless the events stopped longer ago than the window (a
    finished replay or rollout), then at the last event, so its last minutes are shown."""
    if latest is not None and now - latest > window:
        return latest
    return now
