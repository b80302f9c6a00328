"""One way to say how long: the two largest whole units, or the largest alone in brief."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.scenarios.scripted_stream import at

from envtui.dashboard.log_fold import FoldedLog
from envtui.dashboard.log_lines import log_entry
from envtui.tui.format import relative
from envtui.vocabulary.events import WarningMessage, thread_event
from envtui.vocabulary.terms import duration_words


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0, "0 s"),
        (-5, "0 s"),
        (45.9, "45 s"),
        (60, "1 min"),
        (200, "3 min 20 s"),
        (180, "3 min"),
        (3599, "59 min 59 s"),
        (3600, "1 h"),
        (2 * 3600 + 5 * 60 + 59, "2 h 5 min"),
        (86400, "1 d"),
        (86400 + 3 * 3600 + 59 * 60, "1 d 3 h"),
    ],
)
def test_a_duration_is_its_two_largest_units_a_zero_second_left_out(
    seconds: float, words: str
) -> None:
    assert duration_words(seconds) == words


def test_brief_keeps_the_largest_unit_alone() -> None:
    assert duration_words(2 * 3600 + 5 * 60, brief=True) == "2 h"
    assert duration_words(86400 + 3 * 3600, brief=True) == "1 d"
    assert duration_words(200, brief=True) == "3 min"


def test_relative_times_say_the_brief_words_with_their_direction() -> None:
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    assert relative(now - timedelta(hours=2, minutes=5), now) == "2 h ago"
    assert relative(now + timedelta(seconds=5), now) == "in 5 s"
    assert relative(now, now) == "now"


def test_a_folded_log_line_says_its_span_in_the_same_words() -> None:
    warning = WarningMessage(message="disk almost full")
    log = FoldedLog(limit=100)
    _, lines = log.add([log_entry(thread_event(warning, at=at(s))) for s in (0, 200, 3725)])
    assert lines == ["13:02:05 \N{MULTIPLICATION SIGN}3 warning disk almost full · over 1 h 2 min"]
