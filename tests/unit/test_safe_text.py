"""The one sanitiser: every invisible or terminal-active character is shown, in text and JSON."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envtui.vocabulary import safe_text
from envtui.vocabulary.events import (
    EnvironmentStatus,
    WarningMessage,
    decode_event,
    encode_event,
    thread_event,
)
from envtui.vocabulary.safe_text import dumps_json_line, for_terminal, one_line

INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
HANGUL_FILLERS = "\u115f\u1160\u3164\uffa0"
HOSTILE = (
    "\x1b]2;TITLE\x07\x1b]52;c;Q0xJUA==\x07\x1b[31m\x1b[2J\x9b31m\u202eevil\u200b\u2066"
    "\U000e0041\ufeff\ud800[bold red]x[/]"
)


def invisible_characters() -> list[str]:
    """Every character of the running Python's Unicode database that draws nothing or acts."""
    return [
        chr(code)
        for code in range(sys.maxunicode + 1)
        if (unicodedata.category(chr(code)) in INVISIBLE_CATEGORIES or chr(code) in HANGUL_FILLERS)
        and chr(code) not in "\t\n"
    ]


def test_every_control_format_surrogate_and_separator_character_is_shown() -> None:
    characters = invisible_characters()
    assert len(characters) > 2000  # C0, C1, the format characters and 2048 surrogates
    shown = for_terminal("".join(characters))
    assert all(c.isascii() and c.isprintable() for c in shown)
    assert for_terminal("é日本𝄞 tab\tand\nnewline") == "é日本𝄞 tab\tand\nnewline"


def test_the_escapes_say_which_character_it_was() -> None:
    assert for_terminal("\x1b]2;x\x07") == "\\x1b]2;x\\x07"
    assert for_terminal("\x9b\u202e\u200b\U000e0041") == "\\x9b\\u202e\\u200b\\U000e0041"
    assert one_line("a\nb\tc\x1b") == "a b c\\x1b"


def test_json_keeps_every_value_and_writes_no_invisible_character_raw() -> None:
    # lone surrogates one by one: JSON has no way to keep a high one next to a low one apart
    loose = [c for c in invisible_characters() if unicodedata.category(c) != "Cs"]
    value = {"k" + HOSTILE: ["".join(loose), HOSTILE, "\ud800", "x\udfffy", 1, None]}
    line = dumps_json_line(value)
    assert line.isascii() or all(unicodedata.category(c) not in INVISIBLE_CATEGORIES for c in line)
    assert "\n" not in line
    assert json.loads(line) == value
    line.encode("utf-8")  # lone surrogates are escaped, so the line is always valid UTF-8


def test_json_of_ascii_text_writes_del_and_c0_controls_escaped() -> None:
    line = dumps_json_line({"a": "x\x7fy\x1b[2J", "b": ["\x00", "plain"]})
    assert line == '{"a":"x\\u007fy\\u001b[2J","b":["\\u0000","plain"]}'


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_json_line_is_json_dumps_compact_with_each_invisible_character_escaped(
    value: object,
) -> None:
    compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert dumps_json_line(value) == safe_text._UNSAFE.sub(safe_text._json_escape, compact)


@settings(max_examples=100, deadline=None)
@given(st.text())
def test_any_text_is_inert_and_keeps_its_value_in_json(text: str) -> None:
    assert "\x1b" not in for_terminal(text)
    assert not any(unicodedata.category(c) in INVISIBLE_CATEGORIES - {"Cc"} for c in one_line(text))
    assert json.loads(dumps_json_line(text)) == text


@pytest.mark.parametrize("field", ["environment_id", "kind", "shell", "shell_path", "cwd", "error"])
def test_an_encoded_event_is_safe_on_a_terminal_and_decodes_to_the_same_event(field: str) -> None:
    values = {"environment_id": "e", "kind": "exec-server", "status": "unavailable"}
    values[field] = HOSTILE
    event = thread_event(EnvironmentStatus.model_validate(values))
    line = encode_event(event)
    assert not any(unicodedata.category(c) in INVISIBLE_CATEGORIES for c in line)
    line.encode("utf-8")
    assert decode_event(line) == event


def test_connection_events_stay_byte_for_byte_codexs() -> None:
    from envtui.vocabulary.events import EnvironmentConnected

    line = encode_event(thread_event(EnvironmentConnected(environment_id="build")))
    assert line == '{"id":"","msg":{"type":"environment_connected","environment_id":"build"}}'
    warning = encode_event(thread_event(WarningMessage(message="日本 é")))
    assert warning == '{"id":"","msg":{"type":"warning","message":"日本 é"}}'
