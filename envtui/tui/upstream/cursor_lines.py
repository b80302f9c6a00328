"""The one place envtui changes how Textual's DataTable remembers its drawn lines: with a
row cursor, a line is drawn again when the cursor came to or left its own row, not
whenever the cursor moved.

Textual keys each drawn line by the whole cursor and hover coordinates, so a key that moves
the cursor forgets every line of the table. Moving past the last row on screen scrolls
the table by a row, and then every row on screen (45 in a 50-line terminal) is drawn
again from its cells: about 1 ms a row of 13 columns on a busy 2-core machine, three
frames and more for one ``down``, whatever the number of rows. With a row cursor a line
looks the same wherever the cursor is, but on its own row (the same for the hover), so
:class:`CursorRowLines` keys it by that instead; a scroll then draws one new row and the
two the cursor moved between. Every other part of the key, and every time Textual clears
the cache (new rows, cells, widths, styles), is Textual's own: the cache is only ever as
fresh as Textual's. :func:`keep_lines_across_cursor_moves` raises at once if a Textual
release renames the cache; the unit test of this module fails loudly if it changes the
key, rather than letting every line be drawn again silently.

The rows the cursor reaches are drawn from their cells, each cell by Rich (a fraction of a
millisecond a cell); :func:`draw_ahead`, called once the screen is painted, draws the
cells the next key in the same direction needs into Textual's cell cache, so that key
only puts cached cells together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.cache import LRUCache
from textual.coordinate import Coordinate
from textual.strip import Strip
from textual.widgets import DataTable

LINE_CACHE = "_line_cache"
KEY_LENGTH = 11
"""Textual's line key: ``(y, x1, x2, width, cursor, hover, base style, cursor type,
hover shown, update count, pseudo classes)``."""
CURSOR, HOVER, CURSOR_TYPE = 4, 5, 7


class CursorRowLines(LRUCache[tuple[Any, ...], Strip]):
    """Textual's line cache of ``table``, the cursor and hover reduced to "on this line's
    row or not" when the cursor is a row cursor (see the module)."""

    def __init__(self, table: DataTable[Any], maxsize: int) -> None:
        super().__init__(maxsize)
        self._table = table
        self._last: tuple[tuple[Any, ...], tuple[Any, ...]] = ((), ())

    def _own_row(self, key: tuple[Any, ...]) -> tuple[Any, ...]:
        """The key with the cursor and hover as flags for the row drawn on line ``key[0]``."""
        if key is self._last[0]:
            return self._last[1]  # looked up, then stored, with the one key
        if len(key) != KEY_LENGTH or key[CURSOR_TYPE] != "row":
            return key
        row_key, _ = self._table._get_offsets(key[0])
        row = self._table._row_locations.get(row_key)  # None: the header
        index = -1 if row is None else row
        flags = (key[CURSOR].row == index, key[HOVER].row == index)
        own = (*key[:CURSOR], *flags, *key[HOVER + 1 :])
        self._last = (key, own)
        return own

    def set(self, key: tuple[Any, ...], value: Strip) -> None:
        super().set(self._own_row(key), value)

    __setitem__ = set

    def get(self, key: tuple[Any, ...], default: Any = None) -> Any:
        return super().get(self._own_row(key), default)

    def __getitem__(self, key: tuple[Any, ...]) -> Strip:
        return super().__getitem__(self._own_row(key))

    def __contains__(self, key: tuple[Any, ...]) -> bool:
        return super().__contains__(self._own_row(key))

    def discard(self, key: tuple[Any, ...]) -> None:
        super().discard(self._own_row(key))

    def clear(self) -> None:
        super().clear()
        self._last = ((), ())


def keep_lines_across_cursor_moves(table: DataTable[Any]) -> None:
    """Give ``table`` a :class:`CursorRowLines` as big as the line cache it had."""
    cache = getattr(table, LINE_CACHE, None)
    if not isinstance(cache, LRUCache):
        raise RuntimeError(f"Textual's DataTable has no {LINE_CACHE} LRUCache any more")
    setattr(table, LINE_CACHE, CursorRowLines(table, cache.maxsize))


def draw_ahead(table: DataTable[Any], step: int) -> None:
    """Render the cells the next key moving a row cursor ``step`` (1 down, -1 up) rows
    will show into Textual's cell cache: the next row with the cursor on it, the cursor's
    row without it, and the row after the next without it (a key that scrolls brings it
    on screen)."""
    if table.cursor_type != "row" or not table.row_count:
        return
    row, column = table.cursor_coordinate
    style, hover = table.rich_style, table.hover_coordinate
    # the cells are kept under the focus state they are drawn in: the present one, as
    # Textual's own drawing takes it (focus may have moved since the last paint)
    table._pseudo_class_state = table.get_pseudo_class_state()
    ahead = row + step
    for index in (ahead, row, ahead + step):
        if 0 <= index < table.row_count and 0 <= ahead < table.row_count:
            row_key = table._row_locations.get_key(index)
            if row_key is not None:
                at = Coordinate(ahead, column)
                table._render_line_in_row(row_key, 0, style, at, hover)


def watch_row_draws(table: DataTable[Any], drawn: Callable[[int], None]) -> None:
    """Tell ``drawn`` the index of every row whose cells ``table`` draws from here on (-1:
    the header), for the tests that count them; the product never calls it."""
    original = table._get_row_renderables

    def renderables(index: int) -> Any:
        drawn(index)
        return original(index)

    setattr(table, "_get_row_renderables", renderables)  # noqa: B010 (a private method)
