"""The one place envtui sets Textual's private DataTable caches, and reads how full they are.

DataTable keeps 10,000 rendered cells and 1,000 rows and lines, keyed by the table's
update count: cells redrawn every second fill them for most of an hour, and the
dashboard's memory grows all that time, though only a few screens' worth is ever drawn
again. Textual has no public setting for their size, so this module names the private
caches once; :func:`bound_caches` raises at once if a Textual release renames them (the
unit test of this module fails loudly), rather than letting the bound silently go.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

CELL_CACHE = "_cell_render_cache"
ROW_CACHES = ("_row_render_cache", "_line_cache", "_row_renderable_cache")


def _cache(table: DataTable[Any], name: str) -> object:
    cache = getattr(table, name, None)
    if cache is None or not hasattr(cache, "maxsize"):
        raise RuntimeError(f"Textual's DataTable has no {name} with a maxsize any more")
    return cache


def bound_caches(table: DataTable[Any], *, cells: int, rows: int) -> None:
    """Keep at most ``cells`` rendered cells and ``rows`` rendered rows and lines."""
    _cache(table, CELL_CACHE).maxsize = cells  # type: ignore[attr-defined]
    for name in ROW_CACHES:
        _cache(table, name).maxsize = rows  # type: ignore[attr-defined]


def cache_fill(table: DataTable[Any]) -> dict[str, int]:
    """How many entries each bounded cache holds now (for tests and benchmarks)."""
    return {name: len(_cache(table, name)) for name in (CELL_CACHE, *ROW_CACHES)}  # type: ignore[arg-type]
