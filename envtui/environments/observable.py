"""A value that changes over time, with subscribers that see every change exactly once.

Codex's listener waits for the next *change* of an environment's connection state and
never reports the value it finds when it subscribes. A subscription here starts empty and
queues every later change, so a quick disconnect-and-reconnect is seen as two events, not
collapsed into one.

Who reads the queues: :class:`~envtui.environments.manager.EnvironmentManager` subscribes
to each environment's connection state and reads it in its forwarding task, which turns
every change into one connection event (and the status board's view of it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Subscription(Generic[T]):
    """The changes of one :class:`Observable` after the moment of subscribing."""

    def __init__(self, source: Observable[T]) -> None:
        self._source = source
        self._queue: asyncio.Queue[T] = asyncio.Queue()

    def _push(self, value: T) -> None:
        self._queue.put_nowait(value)

    async def next(self) -> T:
        return await self._queue.get()

    def pending(self) -> int:
        return self._queue.qsize()

    def close(self) -> None:
        self._source._subscribers.discard(self)

    def __aiter__(self) -> AsyncIterator[T]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[T]:
        while True:
            yield await self.next()


class Observable(Generic[T]):
    """Holds the current value; :meth:`set` notifies subscribers only when it changes."""

    def __init__(self, value: T) -> None:
        self._value = value
        self._subscribers: set[Subscription[T]] = set()

    @property
    def value(self) -> T:
        return self._value

    def set(self, value: T) -> bool:
        """Store ``value``; True (and subscribers told) when it differs from the current one."""
        if value == self._value:
            return False
        self._value = value
        for subscriber in list(self._subscribers):
            subscriber._push(value)
        return True

    def subscribe(self) -> Subscription[T]:
        subscription = Subscription(self)
        self._subscribers.add(subscription)
        return subscription

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)
