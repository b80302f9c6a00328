"""Each environment's status over time: its transitions, bounded, and what they add up to.

The question an operator asks after a drop is "how often, since when, for how long?": a
status alone answers "now". :class:`StatusHistory` keeps an environment's transitions
(a bounded count, the oldest leave first) dated by the events that carried them, never by
when they arrived, so a replay or a rollout rebuilds the same history as the live run.
Strips, availability and flaps are computed from it for any window, pure and headless:
the table draws them, the history screen lays them side by side, tests check them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from envtui.events import LiveState

DEFAULT_TRANSITIONS = 500
"""Transitions each environment keeps (the config's ``status_history``)."""
STRIP_CELLS = 10
STRIP_INTERVAL = timedelta(seconds=30)
"""The table's strip: ten cells of 30 s, the last five minutes."""
SEVERITY: dict[str, int] = {"ready": 0, "starting": 1, "unavailable": 2}
"""Which status a cell shows when several held in its interval: the worst, so a drop of a
second is never drawn over by the ready around it."""

Cell = LiveState | Literal["unknown"]


@dataclass(frozen=True)
class Transition:
    """The environment entered ``status`` at ``at``."""

    at: datetime
    status: LiveState


class StatusHistory:
    """One environment's transitions, oldest first, at most ``limit``."""

    def __init__(self, limit: int = DEFAULT_TRANSITIONS) -> None:
        self.transitions: deque[Transition] = deque(maxlen=limit)
        self.dropped = 0
        """Transitions pushed out by the bound: the history is complete when this is 0."""

    def record(self, status: LiveState, at: datetime | None) -> bool:
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
        if len(self.transitions) == self.transitions.maxlen:
            self.dropped += 1
        self.transitions.append(Transition(when, status))
        return True

    def status_at(self, when: datetime) -> LiveState | None:
        """The status at ``when``; None before the first transition held."""
        found: LiveState | None = None
        for transition in self.transitions:
            if transition.at > when:
                break
            found = transition.status
        return found

    def segments(self, start: datetime, end: datetime) -> list[tuple[datetime, datetime, Cell]]:
        """The window cut into (from, to, status) pieces; "unknown" before the first."""
        pieces: list[tuple[datetime, datetime, Cell]] = []
        current: Cell = self.status_at(start) or "unknown"
        cursor = start
        for transition in self.transitions:
            if transition.at <= start:
                continue
            if transition.at >= end:
                break
            pieces.append((cursor, transition.at, current))
            cursor, current = transition.at, transition.status
        pieces.append((cursor, end, current))
        return [piece for piece in pieces if piece[1] > piece[0]]

    def strip(
        self, end: datetime, cells: int = STRIP_CELLS, interval: timedelta = STRIP_INTERVAL
    ) -> list[Cell]:
        """One status per interval, oldest first, the last ending at ``end``: the worst
        status that held in it (any moment of it), "unknown" before the first transition."""
        start = end - interval * cells
        out: list[Cell] = ["unknown"] * cells
        for begin, finish, status in self.segments(start, end):
            if status == "unknown":
                continue
            first = int((begin - start) / interval)
            last = min(cells - 1, int((finish - start - timedelta(microseconds=1)) / interval))
            for index in range(max(0, first), last + 1):
                shown = out[index]
                if shown == "unknown" or SEVERITY[status] > SEVERITY[shown]:
                    out[index] = status
        return out

    def availability(self, start: datetime, end: datetime) -> float | None:
        """The share of the known part of the window spent ready; None if none is known."""
        known = ready = 0.0
        for begin, finish, status in self.segments(start, end):
            if status == "unknown":
                continue
            seconds = (finish - begin).total_seconds()
            known += seconds
            if status == "ready":
                ready += seconds
        return ready / known if known > 0 else None

    def flaps(self, start: datetime, end: datetime) -> int:
        """How many times it left ready within the window (a drop, however short)."""
        count = 0
        previous = self.status_at(start)
        for transition in self.transitions:
            if start < transition.at <= end:
                if previous == "ready" and transition.status != "ready":
                    count += 1
                previous = transition.status
        return count


def strip_end(now: datetime, latest: datetime | None, window: timedelta) -> datetime:
    """Where a strip ends: now, unless the events stopped longer ago than the window (a
    finished replay or rollout), then at the last event, so its last minutes are shown."""
    if latest is not None and now - latest > window:
        return latest
    return now
