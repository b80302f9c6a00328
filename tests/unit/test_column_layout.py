"""Which columns the environments table keeps at each width, and how wide (pure: no screen)."""

from __future__ import annotations

from envtui.tui.format import column_layout

LONG_ERROR = 150  # a host key mismatch with its fingerprint
EVERY = ["primary", "status", "id", "strip", "avail", "flaps", "kind", "cwd", "shell"]
EVERY += ["changed", "error"]


def keys(width: int, error: int) -> list[str]:
    return [key for key, _, _ in column_layout(width, {"id": 6, "cwd": 25, "error": error})]


def widths(width: int, error: int) -> dict[str, int]:
    return {key: n for key, _, n in column_layout(width, {"id": 6, "cwd": 25, "error": error})}


def test_which_columns_show_depends_on_the_width_alone_not_on_the_errors() -> None:
    """A live table with a long error and a rollout's without one have the same columns."""
    for width in range(40, 261, 4):
        assert keys(width, 0) == keys(width, 40) == keys(width, LONG_ERROR), width


def test_at_80_columns_the_strip_stays_beside_the_error() -> None:
    """An 80-column terminal leaves the table 74 cells (its border, a scrollbar)."""
    assert keys(74, LONG_ERROR) == ["primary", "status", "id", "strip", "error"]
    assert widths(74, LONG_ERROR)["error"] == 34  # "connection lost: Connection lost" whole
    assert sum(widths(74, LONG_ERROR).values()) + 2 * 5 == 74  # the row is filled


def test_the_room_left_goes_first_to_the_value_that_needs_least_then_to_the_error() -> None:
    assert keys(136, 40) == EVERY
    short = widths(136, 40)  # 9 to share: the error needs 6 more, the cwd 13
    assert (short["error"], short["cwd"]) == (40, 15)
    long = widths(136, LONG_ERROR)  # the cwd needs less than the error: it has the 9
    assert (long["cwd"], long["error"]) == (21, 34)
    assert sum(long.values()) + 2 * len(long) == 136
    assert widths(156, LONG_ERROR)["cwd"] == 25  # whole, the error has the rest


def test_a_wide_table_shows_every_column_and_gives_the_error_the_rest() -> None:
    shown = widths(250, LONG_ERROR)
    assert list(shown) == EVERY
    assert shown["cwd"] == 25
    assert shown["error"] >= 120
    assert sum(shown.values()) + 2 * len(shown) == 250


def test_id_kind_and_shell_are_as_narrow_as_their_values() -> None:
    laid = column_layout(200, {"id": 30, "kind": 11, "shell": 3, "cwd": 5, "error": 10})
    shown = {key: n for key, _, n in laid}
    assert (shown["id"], shown["kind"], shown["shell"]) == (24, 11, 5)  # at most 24; the label
