"""The one place envtui bounds the caches Rich and Textual keep for every process: Rich's
split segments, Textual's ANSI codes per style, and Textual's background styles, which hold
on to ended apps' widgets.

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

Textual writes a style as ANSI codes through ``Strip.render_ansi``, an ``lru_cache`` of
16,384 styles. The dashboard makes new styles as it runs (a style carries the mouse
actions and offsets of what it is drawn on), about 75 a minute in the demo, each kept with
its codes: the cache grows for hours, about 2 MB an hour of styles only the frame they
were drawn in asked for. :func:`bound_ansi_styles` keeps the last 1,024 (a frame draws a
few hundred).

Textual caches ``StylesCache.get_inner_outer`` (two background styles) in an ``lru_cache``
of 1,024 entries on the method, so each widget's styles cache is in a key, and with it the
widget's rendered lines. A dashboard alone never notices: its widgets live as long as it
does. A process that runs a dashboard per browser tab (:mod:`envtui.tui.web.tab_host`) kept
each closed tab's lines until newer keys pushed them out: about 1.3 MB per tab opened and
closed, 14 MB more after each ten (measured). :func:`forget_ended_widgets` empties that
cache when a tab ends (the tabs still open compute their two styles again), and raises at
once if a Textual release renames or reshapes it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.segment import Segment
from textual._styles_cache import StylesCache
from textual.strip import Strip

SPLIT_CELLS = "_split_cells"
SPLIT_CELLS_KEPT = 2_048
"""A few frames' worth of splits: a 120x40 dashboard asks for some hundreds a frame."""


ANSI_STYLES = "render_ansi"
ANSI_STYLES_KEPT = 1_024
"""A few frames' worth of styles written as ANSI codes."""


def _cached(owner: type, name: str) -> Any:
    """The ``lru_cache`` behind a cached classmethod, as the class keeps it."""
    held = owner.__dict__.get(name)
    function = getattr(held, "__func__", None)
    if not isinstance(held, classmethod) or not hasattr(function, "cache_info"):
        raise RuntimeError(f"{owner.__name__} has no cached {name} classmethod any more")
    return function


def _bound(owner: type, name: str, kept: int) -> None:
    """The classmethod cached again with at most ``kept`` answers (idempotent)."""
    cached = _cached(owner, name)
    if cached.cache_info().maxsize == kept:
        return
    bounded: Any = lru_cache(maxsize=kept)(cached.__wrapped__)
    setattr(owner, name, classmethod(bounded))


def bound_split_cells(kept: int = SPLIT_CELLS_KEPT) -> None:
    """Keep at most ``kept`` split segments (a second call sets a new bound)."""
    _bound(Segment, SPLIT_CELLS, kept)


def split_cells_fill() -> tuple[int, int | None]:
    """(how many splits are kept now, the bound) for tests and benchmarks."""
    info = _cached(Segment, SPLIT_CELLS).cache_info()
    return info.currsize, info.maxsize


def bound_ansi_styles(kept: int = ANSI_STYLES_KEPT) -> None:
    """Keep at most ``kept`` styles' ANSI codes (a second call sets a new bound)."""
    _bound(Strip, ANSI_STYLES, kept)


def ansi_styles_fill() -> tuple[int, int | None]:
    """(how many styles' codes are kept now, the bound) for tests and benchmarks."""
    info = _cached(Strip, ANSI_STYLES).cache_info()
    return info.currsize, info.maxsize


INNER_OUTER = "get_inner_outer"


def forget_ended_widgets() -> None:
    """Empty Textual's cache of background styles, which keeps ended apps' widgets alive."""
    cached = getattr(StylesCache, INNER_OUTER, None)
    if not callable(getattr(cached, "cache_clear", None)):
        raise RuntimeError(f"Textual's StylesCache has no cached {INNER_OUTER} any more")
    cached.cache_clear()  # type: ignore[union-attr]
