"""A rollout line parsed as ``json.loads`` parses it, whatever whitespace is around it."""

from __future__ import annotations

import json

import pytest

from envtui.rollout.lines import Item, parse_item, parse_line

LINE = '{"type":"event_msg","payload":{"type":"x"},"timestamp":"t"}'


@pytest.mark.parametrize("raw", [LINE, LINE + "\n", LINE + "\r\n", " \t" + LINE + " \n", "7\n"])
def test_a_value_with_whitespace_around_it_is_read_as_json_loads_reads_it(raw: str) -> None:
    assert parse_line(raw) == json.loads(raw)


@pytest.mark.parametrize(
    "raw", ["", "\n", LINE + " x\n", LINE + "{}\n", '{"a":\n', LINE + "\x0b\n"]
)
def test_a_line_that_is_not_one_json_value_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match=r"(?i)expecting|extra data"):
        parse_line(raw)
    assert parse_item(raw) is None


def test_an_item_is_the_line_s_type_payload_and_time() -> None:
    assert parse_item(LINE + "\r\n") == Item("event_msg", {"type": "x"}, "t")
    assert parse_item('{"type":"x","payload":[],"timestamp":3}\n') == Item("x", {}, None)
