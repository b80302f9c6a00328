"""The bound on Textual's private DataTable caches: set where envtui sets it, and loud when
a Textual release renames what it sets."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from envtui.tui.upstream.table_caches import CELL_CACHE, ROW_CACHES, bound_caches, cache_fill


def test_the_bound_reaches_every_cache_textual_keeps_for_a_table() -> None:
    table: DataTable[object] = DataTable()
    bound_caches(table, cells=7, rows=3)
    assert getattr(table, CELL_CACHE).maxsize == 7
    assert [getattr(table, name).maxsize for name in ROW_CACHES] == [3, 3, 3]
    assert cache_fill(table) == dict.fromkeys((CELL_CACHE, *ROW_CACHES), 0)


def test_a_cache_that_is_gone_upstream_is_an_error_not_a_silent_no_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table: DataTable[object] = DataTable()
    monkeypatch.delattr(table, CELL_CACHE)
    with pytest.raises(RuntimeError, match="no _cell_render_cache"):
        bound_caches(table, cells=7, rows=3)
