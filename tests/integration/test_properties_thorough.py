"""The context engine's properties (tests/unit/test_properties.py) with four times the
examples: the unit suite keeps its quick count, the full run gets the thorough one.

Each test here runs the unit test's own body (``.hypothesis.inner_test``) on the unit
test's own strategies, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

import tests.unit.test_properties as unit

from envtui.context import EnvironmentsState

THOROUGH = settings(max_examples=400, deadline=None)


def body(test: Callable[..., None]) -> Callable[..., None]:
    """The unit test's own body, without its ``@given``."""
    inner: Callable[..., None] = test.hypothesis.inner_test  # type: ignore[attr-defined]
    return inner


@THOROUGH
@given(unit.states())
def test_full_render_round_trips_thoroughly(state: EnvironmentsState) -> None:
    body(unit.test_full_render_is_well_formed_xml_that_round_trips)(state)


@THOROUGH
@given(unit.states(), st.none() | unit.states())
def test_diff_round_trips_thoroughly(
    current: EnvironmentsState, previous: EnvironmentsState | None
) -> None:
    body(unit.test_diff_is_well_formed_xml_that_round_trips)(current, previous)


@THOROUGH
@given(unit.JSON_VALUES, unit.JSON_VALUES.filter(lambda v: v is not None))
def test_the_patch_gives_the_current_value_thoroughly(previous: Any, current: Any) -> None:
    body(unit.test_applying_the_patch_gives_the_current_value)(previous, current)


@settings(max_examples=500, deadline=None)
@given(unit.sequences())
@example([unit._ONE, unit._TWO])
@example([unit._TWO, unit._ONE, unit._TWO])
def test_a_reader_of_the_diffs_ends_with_the_last_state_thoroughly(
    sequence: list[EnvironmentsState],
) -> None:
    body(unit.test_a_reader_of_the_diffs_ends_with_the_last_state)(sequence)
