"""The bound on Rich's cache of split segments: set where the app sets it, held however
many new segments are split, and loud when a Rich release reshapes what it sets."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style

from envtui.tui import render_caches
from envtui.tui.app import EnvTuiApp
from envtui.tui.render_caches import SPLIT_CELLS_KEPT, bound_split_cells, split_cells_fill


@pytest.fixture
def rich_bound() -> Iterator[None]:
    """Whatever a test sets, the app's own bound afterwards."""
    yield
    bound_split_cells(SPLIT_CELLS_KEPT)


def test_the_app_bounds_the_split_segments_rich_keeps() -> None:
    EnvTuiApp(None)
    assert split_cells_fill()[1] == SPLIT_CELLS_KEPT


@pytest.mark.usefixtures("rich_bound")
def test_splitting_many_new_lines_keeps_no_more_than_the_bound() -> None:
    bound_split_cells(50)
    style = Style(bold=True)
    for n in range(500):  # a line new every second, with a character Rich measures slowly
        line = f"12:00:{n:04d} build starting → unavailable {n} s ago…"
        left, right = Segment(line, style).split_cells(8)
        assert (left.text, right.text) == (line[:8], line[8:])
    assert split_cells_fill() == (50, 50)


@pytest.mark.usefixtures("rich_bound")
def test_a_split_is_the_same_through_the_bounded_cache() -> None:
    segment = Segment("wide 日本語 text", Style(italic=True))
    before = segment.split_cells(6)  # through the cut of a wide character
    bound_split_cells(3)
    Segment._split_cells.cache_clear()
    after = segment.split_cells(6)
    assert after == before
    assert [part.cell_length for part in after] == [6, segment.cell_length - 6]


def test_a_cache_reshaped_upstream_is_an_error_not_a_silent_no_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Segment, render_caches.SPLIT_CELLS, classmethod(lambda cls, s, c: (s, s)))
    with pytest.raises(RuntimeError, match="no cached _split_cells"):
        bound_split_cells()
