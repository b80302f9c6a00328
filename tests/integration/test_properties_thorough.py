"""The unit suite's property tests with their thorough counts: the context engine's
(tests/unit/test_properties.py, 400 examples), the documents' checks against the schema
(test_documents.py, 300 mutations) and the incident fold (test_incidents.py, 160 streams).
The unit suite keeps a quick count for the inner loop, the full run gets this one.

Each test here runs the unit test's own body (``.hypothesis.inner_test``) on the unit
test's own strategies, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

import tests.unit.test_documents as documents
import tests.unit.test_incidents as incidents
import tests.unit.test_properties as unit
from tests.support.data.mutations import fuzz_settings

from envtui.context.model import EnvironmentsState

THOROUGH = settings(max_examples=400, deadline=None)
THOROUGH_FOLDS = settings(max_examples=160, deadline=None)


def body(test: Callable[..., None]) -> Callable[..., None]:
    """The unit test's own body, without its ``@given``."""
    inner: Callable[..., None] = test.hypothesis.inner_test  # type: ignore[attr-defined]
    return inner


def fold_streams(max_size: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The incident fold's thorough count, given streams of up to ``max_size`` steps as the
    unit test's are."""
    streams = st.lists(incidents.steps(), max_size=max_size)
    return lambda test: THOROUGH_FOLDS(given(streams)(test))


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


@fuzz_settings("ENVTUI_FUZZ_EXAMPLES", 300)
@given(data=st.data())
def test_mutated_documents_get_the_same_answer_thoroughly(data: st.DataObject) -> None:
    body(documents.test_mutated_documents_get_the_same_answer)(data)


@fold_streams(max_size=25)
def test_one_incident_per_episode_thoroughly(stream: list[incidents.Step]) -> None:
    body(incidents.test_one_incident_per_episode_with_its_steps_and_resolution)(stream)


@fold_streams(max_size=25)
def test_acknowledgement_never_hides_a_new_episode_thoroughly(
    stream: list[incidents.Step],
) -> None:
    body(incidents.test_acknowledgement_never_hides_a_new_episode)(stream)


@fold_streams(max_size=20)
def test_an_old_recording_folds_to_the_same_incidents_thoroughly(
    stream: list[incidents.Step],
) -> None:
    body(incidents.test_an_old_recording_folds_to_the_same_incidents)(stream)
