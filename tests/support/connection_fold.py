"""Every connection event folded at once, up to a time: the plain fold that
:class:`envtui.steps.connection.ConnectionTimeline` (a cursor over the same changes, for a
rollout's steps in time order) is compared with. The product reads each change through
:func:`envtui.vocabulary.events.connection_change` as it comes."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from envtui.vocabulary.events import Event, connection_change
from envtui.vocabulary.terms import ConnectionState


def connection_states(
    events: Iterable[Event], until: datetime | None = None
) -> dict[str, ConnectionState]:
    """The latest connection state per environment, from events at or before ``until``.

    An event without a time counts as before any ``until``; ``until`` None takes them all.
    """
    if until is not None and until.utcoffset() is None:
        until = until.replace(tzinfo=UTC)  # as every event time is: comparable, never a crash
    state: dict[str, ConnectionState] = {}
    for event in events:
        if until is not None and event.at is not None and event.at > until:
            continue
        change = connection_change(event.msg)
        if change is not None:
            state[change[0]] = change[1]
    return state
