"""The bounds on Rich's cache of split segments and Textual's cache of styles written as
ANSI codes: set where the app sets them, held however many new segments are split or
styles written, and loud when a Rich or Textual release reshapes what they set."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from envtui.tui.app import EnvTuiApp
from envtui.tui.upstream import render_caches
from envtui.tui.upstream.render_caches import (
    ANSI_STYLES_KEPT,
    SPLIT_CELLS_KEPT,
    ansi_styles_fill,
    bound_ansi_styles,
    bound_split_cells,
    split_cells_fill,
)


@pytest.fixture
def rich_bound() -> Iterator[None]:
    """Whatever a test sets, the app's own bound afterwards."""
    yield
    bound_split_cells(SPLIT_CELLS_KEPT)
    bound_ansi_styles(ANSI_STYLES_KEPT)


def test_the_app_bounds_the_split_segments_rich_keeps() -> None:
    EnvTuiApp(None)
    assert split_cells_fill()[1] == SPLIT_CELLS_KEPT


def test_the_app_bounds_the_styles_textual_keeps_as_ansi_codes() -> None:
    EnvTuiApp(None)
    assert ansi_styles_fill()[1] == ANSI_STYLES_KEPT


@pytest.mark.usefixtures("rich_bound")
def test_writing_many_new_styles_keeps_no_more_than_the_bound_and_the_same_codes() -> None:
    def written(style: Style) -> str:
        return Strip.render_ansi(style, ColorSystem.TRUECOLOR)

    styles = [
        Style(color=f"#{n:06x}", bold=n % 2 == 0, meta={"@click": f"row({n})"}) for n in range(500)
    ]
    unbounded = [written(style) for style in styles[:5]]
    bound_ansi_styles(50)
    assert [written(style) for style in styles[:5]] == unbounded
    uncached = Strip.render_ansi.__wrapped__  # what the codes are, cache or none
    for style in styles:  # a style new at every frame, as the dashboard's mouse actions make
        assert written(style) == uncached(Strip, style, ColorSystem.TRUECOLOR)
    assert ansi_styles_fill() == (50, 50)


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


def test_a_style_cache_reshaped_upstream_is_an_error_not_a_silent_no_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Strip, render_caches.ANSI_STYLES, classmethod(lambda cls, s, c: ""))
    with pytest.raises(RuntimeError, match="no cached render_ansi"):
        bound_ansi_styles()
