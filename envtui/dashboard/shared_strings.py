"""One string for the same words while they keep coming, in a table of bounded size.

The log keeps ten thousand lines and most are repeats (a host that keeps failing, a
finding raised at every step), so a repeat should cost no copy. ``sys.intern`` did that,
but Python's table of interned strings never shrinks: every distinct line and every second
of the clock went into it, and the table doubled in the middle of a long run (a single
allocation of 2 MB, kept for good). Here the table is the dashboard's own: when it is full
it is emptied, its memory freed, and the next repeats are shared anew.
"""

from __future__ import annotations

RECENT_WORDS = 4_096
"""Distinct strings kept for sharing: more than a screen of log lines comes again within."""


class RecentStrings:
    """``shared(words)`` gives the one string kept for ``words``, kept if it is new."""

    __slots__ = ("_kept", "_size")

    def __init__(self, size: int = RECENT_WORDS) -> None:
        self._kept: dict[str, str] = {}
        self._size = size

    def __call__(self, words: str) -> str:
        kept = self._kept
        found = kept.get(words)
        if found is None:
            if len(kept) >= self._size:
                kept.clear()  # frees the table; what the rows hold is theirs
            kept[words] = found = words
        return found

    def __len__(self) -> int:
        return len(self._kept)
