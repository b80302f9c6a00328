"""What ``envtui check`` remembers between steps of a rollout, so equal work is done once.

A rollout whose primary moves at every step goes back and forth between a few snapshots:
each step restates one of them as a new object. Restoring it, rendering its block and
diffing that with what Codex wrote give what they gave the last time the same snapshot
came, so the last few answers are kept, each with what it was worked out from. The caches
are small and bounded; an answer is reused only for a snapshot equal to its own in every
value, type and key order.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from envtui.context.model import EnvironmentsState
from envtui.context.snapshot import restore_snapshot

KEPT = 4
"""How many answers each cache keeps: a step's two blocks' snapshots, and a spare."""

T = TypeVar("T")


def same_json(a: Any, b: Any) -> bool:
    """Whether two parsed JSON values are the same: equal, of the same types, their keys in
    the same order (``1`` is not ``true``; ``{"a", "b"}`` is not ``{"b", "a"}``). Their
    ``repr`` tells all of that for JSON's types, at C speed."""
    return a is b or (_equal(a, b) and written(a) == written(b))


def same_json_as(a: Any, a_written: str | None, b: Any) -> bool:
    """:func:`same_json`, with ``a``'s ``repr`` (from :func:`written`) made once before."""
    return a is b or (_equal(a, b) and a_written is not None and a_written == written(b))


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except RecursionError:  # nested deeper than anything Codex writes: not worth knowing
        return False


def written(value: Any) -> str | None:
    """``repr(value)``, which tells JSON values apart; None when too deep to write."""
    try:
        return repr(value)
    except RecursionError:
        return None


class Recent(Generic[T]):
    """The last :data:`KEPT` answers, each under the key it was worked out from."""

    def __init__(self) -> None:
        self._entries: list[tuple[tuple[Any, ...], T]] = []
        self._answers: dict[tuple[Any, ...], tuple[T]] = {}

    def get(self, key: tuple[Any, ...]) -> tuple[T] | None:
        """The answer for a key the same, part by part, as ``key`` (objects by identity,
        strings and None by value), in a 1-tuple; None if there is none."""
        return self._answers.get(_same_key(key))

    def put(self, key: tuple[Any, ...], answer: T) -> T:
        self._entries = [*self._entries[1 - KEPT :], (key, answer)]  # holds the key's objects
        self._answers = {_same_key(k): (a,) for k, a in self._entries}
        return answer


def _same_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """``key`` with each object but a string or None put as its id (a key's objects are held
    while it is kept, so no other object has that id meanwhile)."""
    return tuple([part if part is None or type(part) is str else id(part) for part in key])


class Restorer:
    """Restores each recorded snapshot once: the last few are remembered, and a snapshot
    the same as one of them (as :func:`same_json` tells) gets the same state object."""

    def __init__(self) -> None:
        self._cache: list[_Restored] = []  # newest last

    def __call__(self, raw: Any) -> EnvironmentsState | None:
        if raw is None:
            return None
        for entry in reversed(self._cache):
            if entry.raw is raw:
                return entry.state
        same = next((e for e in reversed(self._cache) if e.same_as(raw)), None)
        if same is None:
            same = _Restored(raw, restore_snapshot(raw))
        else:  # kept under this object too, found by identity next time
            same = _Restored(raw, same.state, same.written)
        self._cache = [*self._cache[1 - KEPT :], same]
        return same.state


class _Restored:
    """A snapshot as recorded, its state, and its ``repr`` once it is needed."""

    __slots__ = ("raw", "state", "written")

    def __init__(self, raw: Any, state: EnvironmentsState | None, written: str | None = None):
        self.raw, self.state, self.written = raw, state, written

    def same_as(self, raw: Any) -> bool:
        """:func:`same_json` of this snapshot and ``raw``, this one's ``repr`` made once."""
        if not _equal(self.raw, raw):
            return False
        if self.written is None:
            self.written = written(self.raw)
        return self.written is not None and self.written == written(raw)
