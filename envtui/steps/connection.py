"""Connection state at a moment, for steps taken in time order: a fold with a cursor.

``stale-available`` compares what a request told the model with the connection state at
the moment the request was sent. Checking a long rollout asks that at every step, in
(nearly) increasing time; folding every event again each time would make the check
quadratic, so the events are sorted once and a cursor moves forward. An earlier moment
than the last one asked starts the fold again (rare: clocks are monotonic in a rollout).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from envtui.vocabulary.terms import ConnectionState

if TYPE_CHECKING:
    from envtui.vocabulary.events import Event

_BEGINNING = datetime.min.replace(tzinfo=UTC)
_END = datetime.max.replace(tzinfo=UTC)


def _aware(when: datetime | None) -> datetime:
    """A time to sort by: none is before all; one without an offset counts as UTC."""
    if when is None:
        return _BEGINNING
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


class ConnectionTimeline:
    """The latest connection state per environment at or before a moment."""

    def __init__(self, events: Iterable[Event]) -> None:
        from envtui.vocabulary.events import connection_change  # a timeline has events

        changes = []
        for event in events:
            change = connection_change(event.msg)
            if change is not None:
                changes.append((_aware(event.at), change))
        changes.sort(key=lambda item: item[0])  # stable: same-time events keep their order
        self._changes = changes
        self._next = 0
        self._last = _BEGINNING
        self._state: dict[str, ConnectionState] = {}

    def at(self, when: datetime | None) -> dict[str, ConnectionState]:
        """The state at ``when``; None (a step of unknown time) takes every event."""
        until = _aware(when) if when is not None else None
        if until is not None and until < self._last:
            self._next, self._state = 0, {}
        changes = self._changes
        while self._next < len(changes) and (until is None or changes[self._next][0] <= until):
            environment, state = changes[self._next][1]
            self._state[environment] = state
            self._next += 1
        self._last = until if until is not None else _END
        return dict(self._state)
