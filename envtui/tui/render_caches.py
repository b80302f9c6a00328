"""The one place envtui bounds a cache Rich keeps for every process: the split segments.

Rich remembers the two halves of every segment it splits at a cell (``Segment._split_cells``),
16,384 of them. Textual splits each line of a frame where widgets overlap, and the
dashboard's lines change every second (the clock, "3 s ago", step numbers): every split of
a line with a character outside Rich's fast path (``→``, ``…``, ``⚠``) is new and kept, so
the cache fills over most of an hour, about 10 MB of halves and the segments they were cut
from, though only the last few frames' splits are ever asked for again. The function is
pure, so a smaller bound only costs a split done twice.

Rich has no public setting for the size; :func:`bound_split_cells` raises at once if a Rich
release renames or reshapes it (its unit test then fails loudly), rather than letting the
bound silently go.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from rich.segment import Segment

SPLIT_CELLS = "_split_cells"
SPLIT_CELLS_KEPT = 2_048
"""A few frames' worth of splits: a 120x40 dashboard asks for some hundreds a frame."""


def _cached() -> Any:
    """Rich's cached split, as the class keeps it (a classmethod over an ``lru_cache``)."""
    held = Segment.__dict__.get(SPLIT_CELLS)
    function = getattr(held, "__func__", None)
    if not isinstance(held, classmethod) or not hasattr(function, "cache_info"):
        raise RuntimeError(f"Rich's Segment has no cached {SPLIT_CELLS} classmethod any more")
    return function


def bound_split_cells(kept: int = SPLIT_CELLS_KEPT) -> None:
    """Keep at most ``kept`` split segments (idempotent: a second call sets a new bound)."""
    cached = _cached()
    if cached.cache_info().maxsize == kept:
        return
    split: Callable[[type[Segment], Segment, int], tuple[Segment, Segment]]
    split = cached.__wrapped__
    bounded: Any = lru_cache(maxsize=kept)(split)
    setattr(Segment, SPLIT_CELLS, classmethod(bounded))


def split_cells_fill() -> tuple[int, int | None]:
    """(how many splits are kept now, the bound) for tests and benchmarks."""
    info = _cached().cache_info()
    return info.currsize, info.maxsize
