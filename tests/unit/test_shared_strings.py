"""Repeated words share one string, in a table that stays bounded however many come."""

from __future__ import annotations

import sys

from tests.support.scenarios.scripted_stream import at

from envtui.dashboard.log_lines import log_entry
from envtui.dashboard.shared_strings import RecentStrings
from envtui.vocabulary.events import WarningMessage, thread_event


def test_the_same_words_come_back_as_one_string_and_the_table_stays_bounded() -> None:
    shared = RecentStrings(size=3)
    first = shared("".join(["host ", "down"]))
    again = shared("".join(["host", " down"]))
    assert again is first  # equal words, built apart: the one kept string
    for number in range(10):
        shared(f"line {number}")
        assert len(shared) <= 3
    later = shared("".join(["host ", "down"]))
    assert later == first  # after the table was emptied, kept anew


def test_a_long_log_leaves_pythons_interned_strings_alone() -> None:
    words = f"disk {id(object())} almost full"  # no module names these words
    entries = [log_entry(thread_event(WarningMessage(message=words), at=at(n))) for n in range(3)]
    texts = [entry.text for entry in entries]
    assert texts[0] is texts[1] is texts[2]  # the repeats share their line
    assert sys.intern("".join(["warning ", words])) is not texts[0]  # not interned
