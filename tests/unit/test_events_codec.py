"""The event vocabulary and its JSONL codec."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from envtui.events import (
    DecodeError,
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    UnknownMessage,
    WarningMessage,
    decode_event,
    decode_lines,
    encode_event,
    thread_event,
)


@pytest.mark.parametrize(
    ("msg", "line"),
    [
        (
            EnvironmentConnected(environment_id="build"),
            '{"id":"","msg":{"type":"environment_connected","environment_id":"build"}}',
        ),
        (
            EnvironmentDisconnected(environment_id="build"),
            '{"id":"","msg":{"type":"environment_disconnected","environment_id":"build"}}',
        ),
    ],
)
def test_connection_events_are_byte_compatible_with_codex(
    msg: EnvironmentConnected, line: str
) -> None:
    assert encode_event(thread_event(msg)) == line
    assert decode_event(line) == thread_event(msg)


def test_at_follows_id_and_msg() -> None:
    at = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    line = encode_event(thread_event(EnvironmentConnected(environment_id="b"), at=at))
    assert (
        line
        == '{"id":"","msg":{"type":"environment_connected","environment_id":"b"},"at":"2026-11-30T05:00:00+00:00"}'
    )
    assert decode_event(line).at == at


def test_status_event_round_trips_and_omits_empty_fields() -> None:
    event = Event(
        id="",
        msg=EnvironmentStatus(
            environment_id="a", kind="ssh", status="unavailable", error="refused"
        ),
    )
    line = encode_event(event)
    assert (
        line
        == '{"id":"","msg":{"type":"environment_status","environment_id":"a","kind":"ssh","status":"unavailable","primary":false,"error":"refused"}}'
    )
    assert decode_event(line) == event


def test_unknown_type_is_kept_and_written_back_unchanged() -> None:
    line = '{"id":"7","msg":{"type":"turn_started","turn":{"n":[1,2]},"x":null}}'
    event = decode_event(line)
    assert isinstance(event.msg, UnknownMessage)
    assert event.msg.type == "turn_started"
    assert encode_event(event) == line


def test_bad_lines_carry_their_line_number_and_the_stream_goes_on() -> None:
    lines = [
        '{"id":"","msg":{"type":"environment_connected","environment_id":"a"}}',
        "{not json",
        "",
        '{"id":1,"msg":{"type":"warning","message":"m"}}',
        '{"id":"","msg":{"type":"environment_connected"}}',
        '{"id":"","msg":{"type":"warning","message":"still read"}}',
        '{"id":"","msg":{"type":"environment_connected","environment_id":"a"},"at":"yesterday"}',
        "[1]",
    ]
    results = list(decode_lines(lines))
    errors = [r for r in results if isinstance(r, DecodeError)]
    events = [r for r in results if isinstance(r, Event)]
    assert [(e.line, e.message) for e in errors] == [
        (2, "invalid JSON at column 2: Expecting property name enclosed in double quotes"),
        (4, "id: expected a string"),
        (5, "msg.environment_id: Field required"),
        (7, "at: not an ISO time: 'yesterday'"),
        (8, "expected a JSON object"),
    ]
    assert [type(e.msg) for e in events] == [EnvironmentConnected, WarningMessage]
    assert str(errors[0]).startswith("line 2: ")


def test_known_type_with_an_extra_field_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"msg\.extra: Extra inputs are not permitted"):
        decode_event(
            '{"id":"","msg":{"type":"environment_connected","environment_id":"a","extra":1}}'
        )
