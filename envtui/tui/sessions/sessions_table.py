"""The sessions table: one row per thread, kept by thread id, updated cell by cell.

A poll that changed nothing touches nothing here. A changed thread updates the cells of
its own row whose text changed (found by key, as the environments table does), a new one
is added, a gone one removed, and the rows are sorted again only when an order changed:
the table is never rebuilt for a poll. The clock moves only the ``written`` column, and
:meth:`SessionsTable.tick` redraws it for the rows on screen, and only where its text
changed: 10,000 rows off screen cost nothing each second. A key that moves the cursor
draws the two rows it moved between, and one more when the table scrolls: the other
lines on screen are kept (see :mod:`envtui.tui.upstream.cursor_lines`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.geometry import Region
from textual.strip import Strip

from envtui.incidents.fleet_rows import families, needs_you_first
from envtui.incidents.fleet_rows import matches as state_matches
from envtui.incidents.thread_summary import ThreadSummary
from envtui.tui.format import matches
from envtui.tui.sessions.sessions_format import (
    SESSION_COLUMNS,
    TIMED,
    columns,
    filter_text,
    host_values,
    nested,
    session_values,
    short_id,
    sort_value,
    written_text,
)
from envtui.tui.upstream.cursor_lines import draw_ahead, keep_lines_across_cursor_moves
from envtui.tui.widgets import IdCell, KeyedTable

KEYS = tuple(key for key, _, _ in SESSION_COLUMNS)
"""The columns of the table of one tree (the quick look)."""


class SessionsTable(KeyedTable):
    """See the module. ``enter`` opens the thread under the cursor (the footer says so)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "open", key_display="enter", id="open"),
    ]

    def __init__(
        self,
        *,
        state_of: Callable[[ThreadSummary], tuple[str, str | None]] | None = None,
        **kwargs: Any,
    ) -> None:
        """``state_of``: each row's live state and name, shown with its host (the table of
        configured hosts); None: none of these columns."""
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        keep_lines_across_cursor_moves(self)  # a key that scrolls draws one new row
        self.state_of = state_of
        self.columns_shown = columns(state_of is not None)
        self.keys = tuple(key for key, _, _ in self.columns_shown)
        self.filter = ""
        self.state_filter = "all"
        """Codex's filters: all, needs you, working, idle (see ``fleet_rows.FILTERS``)."""
        self.sort_key = "written"
        self.sort_reverse = False
        self.styles_for: dict[str, str] = {}
        self._shown: dict[str, dict[str, str]] = {}  # the text of each row's cells
        self._order: dict[str, Any] = {}  # each row's sort value
        self._place: dict[str, tuple[int, int]] = {}  # each row's position and depth
        self._drawing_style: Style | None = None  # the table's style while it draws

    @property
    def rich_style(self) -> Style:
        """Textual asks for it once a line, and works it out from every ancestor's styles
        each time: while the table draws, it is worked out once."""
        if self._drawing_style is not None:
            return self._drawing_style
        return super().rich_style

    def render_lines(self, crop: Region) -> list[Strip]:
        self._drawing_style = super().rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._drawing_style = None

    def watch_cursor_coordinate(self, old: Coordinate, new: Coordinate) -> None:
        super().watch_cursor_coordinate(old, new)
        if new.row != old.row:
            self.call_after_refresh(self._draw_ahead, new.row, 1 if new.row > old.row else -1)

    def _draw_ahead(self, row: int, step: int) -> None:
        """Once the key is on screen, the cells the next one the same way shows (unless
        another key came first)."""
        if self.cursor_row == row and self.is_mounted:
            draw_ahead(self, step)

    def on_mount(self) -> None:
        for key, label, width in self.columns_shown:
            self.add_column(label, key=key, width=width)

    def sync(
        self,
        threads: Mapping[str, ThreadSummary],
        changed: set[str] | None,
        gone: set[str],
        now: datetime,
    ) -> None:
        """Apply a poll: ``changed`` None means every thread (a filter or sort changed)."""
        selected = self.selected_id()
        resort = changed is None
        for thread_id in threads if changed is None else changed:
            summary = threads.get(thread_id)
            if summary is None:
                gone = gone | {thread_id}
                continue
            values = session_values(summary, now)
            first = 0
            if self.state_of is not None:
                state, name = self.state_of(summary)
                if not state_matches(state, self.state_filter):
                    gone = gone | {thread_id}
                    continue
                values.update(host_values(summary, state, name))
                first = needs_you_first(state) * (-1 if self.sort_reverse else 1)
            if self.filter and not matches(filter_text(summary, values), self.filter):
                gone = gone | {thread_id}
                continue
            values["thread"] = nested(values["thread"], self._place.get(thread_id, (0, 0))[1])
            order = (first, sort_value(summary, self.sort_key))  # who waits on you first
            resort |= self._order.get(thread_id) != order
            self._order[thread_id] = order
            self._show(thread_id, values)
        for thread_id in gone & self._shown.keys():
            self.remove_row(thread_id)
            del self._shown[thread_id]
            self._order.pop(thread_id, None)
            resort = True  # a parent gone: its sub-agents move
        if resort:
            self._group(threads)
            self.sort("thread", key=self._sort_key)
        self.select(selected)

    def _group(self, threads: Mapping[str, ThreadSummary]) -> None:
        """Every row's place: sorted, then each sub-agent under its parent (see
        ``fleet_rows.families``); a row whose depth changed is drawn again."""
        rows = [threads[key] for key in self._shown if key in threads]
        rows.sort(key=lambda row: (self._order[row.key], row.key), reverse=self.sort_reverse)
        place = {row.key: (i, depth) for i, (row, depth) in enumerate(families(rows))}
        for key, (_, depth) in place.items():
            if self._place.get(key, (0, 0))[1] != depth:
                shown = self._shown[key]
                shown["thread"] = nested(short_id(threads[key].thread_id), depth)
                self.update_cell(key, "thread", self._cell(key, "thread", shown))
        self._place = place

    def _sort_key(self, cell: IdCell) -> tuple[int, str]:
        return (self._place.get(cell.row_key, (0, 0))[0], cell.row_key)

    def _show(self, thread_id: str, values: dict[str, str]) -> None:
        """Add the row, or redraw just the cells whose text changed."""
        shown = self._shown.get(thread_id)
        if shown is None:
            self.add_row(*(self._cell(thread_id, key, values) for key in self.keys), key=thread_id)
        else:
            for key in self.keys:
                if shown[key] != values[key]:
                    self.update_cell(thread_id, key, self._cell(thread_id, key, values))
        self._shown[thread_id] = values

    def _cell(self, thread_id: str, key: str, values: dict[str, str]) -> Text:
        options: dict[str, Any] = {"no_wrap": True, "overflow": "ellipsis"}
        if key == "live" and values[key]:
            options["style"] = self.styles_for.get("live", "")
        elif key == "incidents" and values[key]:
            options["style"] = self.styles_for.get("unavailable", "")
        if key == "thread":
            return IdCell(values[key], thread_id, **options)
        return Text(values[key], **options)

    def tick(self, threads: Mapping[str, ThreadSummary], now: datetime) -> None:
        """The clock moved: the timed cells of the rows on screen, where their text changed."""
        top = int(self.scroll_y)
        for index in range(top, min(self.row_count, top + self.size.height)):
            thread_id = self.coordinate_to_cell_key(Coordinate(index, 0)).row_key.value
            summary = threads.get(thread_id) if thread_id is not None else None
            shown = self._shown.get(thread_id) if thread_id is not None else None
            if summary is None or shown is None or thread_id is None:
                continue
            for key in TIMED:
                text = written_text(summary, now)
                if shown[key] != text:
                    shown[key] = text
                    self.update_cell(thread_id, key, self._cell(thread_id, key, shown))

    def restyle(self) -> None:
        """The theme changed: every cell again, in the new colours (at the next sync)."""
        self._shown = {key: dict.fromkeys(self.keys, "") for key in self._shown}

    def select(self, thread_id: str | None) -> None:
        """Keep the cursor on the same thread after rows moved."""
        if thread_id is None or thread_id not in self._shown:
            return
        index = self.get_row_index(thread_id)
        if index != self.cursor_row:
            self.move_cursor(row=index, animate=False, scroll=False)

    def shown_ids(self) -> list[str]:
        """The thread ids in the order they are drawn."""
        return [str(row.key.value) for row in self.ordered_rows]
