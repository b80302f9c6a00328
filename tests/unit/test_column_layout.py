"""Which columns the environments table keeps at each width (pure: no screen)."""

from __future__ import annotations

from envtui.tui.format import column_layout

LONG_ERROR = 150  # a host key mismatch with its fingerprint


def keys(width: int, error: int) -> list[str]:
    return [key for key, _, _ in column_layout(width, {"id": 6, "cwd": 25, "error": error})]


def widths(width: int, error: int) -> dict[str, int]:
    return {key: n for key, _, n in column_layout(width, {"id": 6, "cwd": 25, "error": error})}


def test_a_narrow_table_gives_the_error_the_room_before_the_history() -> None:
    assert keys(80, 50) == ["primary", "status", "id", "error"]  # the strip gives way
    assert widths(80, 50)["error"] >= 50  # read whole
    assert "strip" in keys(80, 30)  # a short error leaves it room


def test_one_long_error_does_not_push_the_history_out_of_a_wide_table() -> None:
    for width in (120, 140, 160):
        kept = keys(width, LONG_ERROR)
        assert {"strip", "avail", "changed", "error"} <= set(kept), (width, kept)
        assert sum(widths(width, LONG_ERROR).values()) + 2 * len(kept) <= width


def test_a_very_wide_table_shows_the_long_error_whole_beside_the_history() -> None:
    shown = widths(250, LONG_ERROR)
    assert shown["error"] >= 120  # the most an error column takes before the leftover
    assert {"strip", "avail", "flaps", "cwd", "changed"} <= set(shown)
