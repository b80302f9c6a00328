"""The sessions table's lines kept across cursor moves (envtui/tui/upstream/cursor_lines.py):
what is on screen after keys, scrolls, a hover and a changed cell is what the table draws
afresh; a key that scrolls draws three lines anew, not every line on screen (this fails
loudly if a Textual release changes how it keys a line); and a key finds the cells it
shows already drawn."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import DataTable

from tests.support.waiting import pilot_wait_until

from envtui.incidents.thread_summary import ThreadSummary
from envtui.tui.sessions.sessions_table import SessionsTable
from envtui.tui.upstream.cursor_lines import (
    LINE_CACHE,
    keep_lines_across_cursor_moves,
    watch_row_draws,
)
from envtui.tui.upstream.table_caches import cache_fill

pytestmark = pytest.mark.tui

NOW = datetime(2026, 11, 30, 15, 9, 0, tzinfo=UTC)
ROWS = 200


def _threads(steps: int = 3) -> dict[str, ThreadSummary]:
    """ROWS threads, the newest written first, so the order is the index's."""
    threads = {}
    for n in range(ROWS):
        thread_id = f"0199a000-0000-7000-8000-{n:012d}"
        written = NOW - timedelta(minutes=n)
        summary = ThreadSummary(thread_id, f"/t/{n}", last_written=written, steps=steps + n)
        threads[summary.key] = summary
    return threads


class TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SessionsTable(id="t")

    def on_mount(self) -> None:
        self.query_one(SessionsTable).sync(_threads(), None, set(), NOW)


def _table(app: App[None]) -> SessionsTable:
    return app.query_one(SessionsTable)


def _lines(table: DataTable[Any]) -> list[list[Segment]]:
    return [list(table.render_line(y)) for y in range(table.size.height)]


def _afresh(table: DataTable[Any]) -> list[list[Segment]]:
    """Every line as the table draws it with no line, row or cell remembered (Textual
    forgets them all when the stripes are set)."""
    table.zebra_stripes = not table.zebra_stripes
    table.zebra_stripes = not table.zebra_stripes
    return _lines(table)


async def _drawn_ahead(pilot: Pilot[None], table: SessionsTable, calls: list[int]) -> None:
    """Wait until the cells the next key needs are drawn (the screen is painted then)."""
    await pilot_wait_until(
        pilot, lambda: bool(calls) and calls[-1] == table.cursor_row, what="the draw ahead"
    )


def _kept(table: DataTable[Any]) -> int:
    """How many drawn lines the table keeps."""
    return cache_fill(table)[LINE_CACHE]


def _counting_draw_ahead(table: SessionsTable, calls: list[int], inside: list[bool]) -> None:
    original = table._draw_ahead

    def draw_ahead(row: int, step: int) -> None:
        inside[0] = True
        try:
            original(row, step)
        finally:
            inside[0] = False
        calls.append(row)

    table._draw_ahead = draw_ahead  # type: ignore[method-assign]


async def test_what_is_on_screen_after_keys_scrolls_a_hover_and_a_change_is_drawn_afresh() -> None:
    app = TableApp()
    async with app.run_test(size=(100, 16)) as pilot:
        table = _table(app)
        await pilot_wait_until(pilot, lambda: table.row_count == ROWS, what="the rows")
        for key in ["down"] * 20 + ["up"] * 3 + ["pagedown", "down", "home", "down"]:
            await pilot.press(key)
            await pilot.pause()
            shown = _lines(table)
            assert shown == _afresh(table), f"after {key} to row {table.cursor_row}"
        await pilot.hover("#t", offset=(10, 5))
        await pilot.press("down")
        await pilot.pause()
        assert _lines(table) == _afresh(table)
        changed = _threads(steps=7000)
        table.sync(changed, set(changed), set(), NOW)
        await pilot.press("down")
        await pilot.pause()
        shown = _lines(table)
        assert shown == _afresh(table)
        row = table.cursor_row
        assert f" {7000 + row} " in "".join(segment.text for line in shown for segment in line)


async def test_a_key_that_scrolls_draws_three_lines_anew_not_every_line_on_screen() -> None:
    app = TableApp()
    async with app.run_test(size=(100, 24)) as pilot:
        table = _table(app)
        calls: list[int] = []
        _counting_draw_ahead(table, calls, [False])
        await pilot_wait_until(pilot, lambda: table.row_count == ROWS, what="the rows")
        while table.scroll_y == 0:
            await pilot.press("down")
            await _drawn_ahead(pilot, table, calls)
        on_screen, before, scrolled = table.size.height, _kept(table), table.scroll_y
        await pilot.press("down")
        await _drawn_ahead(pilot, table, calls)
        assert table.scroll_y > scrolled
        assert on_screen >= 20
        # the row the cursor left, the row it came to, the row scrolled into view
        assert _kept(table) - before <= 3


async def test_a_key_finds_the_cells_it_shows_drawn_ahead() -> None:
    app = TableApp()
    async with app.run_test(size=(100, 16)) as pilot:
        table = _table(app)
        calls: list[int] = []
        inside = [False]
        _counting_draw_ahead(table, calls, inside)
        await pilot_wait_until(pilot, lambda: table.row_count == ROWS, what="the rows")
        await pilot.press("down")
        await _drawn_ahead(pilot, table, calls)
        drawn: list[int] = []  # rows whose cells a key drew itself (-1: the header)
        watch_row_draws(table, lambda index: None if inside[0] else drawn.append(index))
        by_key = []
        for key in ["down"] * 20 + ["up"] * 5:
            drawn.clear()
            await pilot.press(key)
            await _drawn_ahead(pilot, table, calls)
            by_key.append((key, [row for row in drawn if row >= 0]))
        # the header is drawn again at the first scroll (when its line last changed, the
        # table's cells had not been laid out yet); a key back up finds the rows the cursor
        # passed on its way down
        assert table.scroll_y > 0  # keys that scrolled were among them
        assert by_key == [(key, []) for key, _ in by_key]


def test_a_line_cache_that_is_gone_upstream_is_an_error_not_a_silent_no_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table: DataTable[object] = DataTable()
    monkeypatch.delattr(table, LINE_CACHE)
    with pytest.raises(RuntimeError, match="no _line_cache"):
        keep_lines_across_cursor_moves(table)
