"""The event vocabulary and its JSONL codec."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from envtui.vocabulary.events import (
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


def test_a_time_without_a_utc_offset_is_taken_as_utc() -> None:
    line = (
        '{"id":"","msg":{"type":"environment_status","environment_id":"a","kind":"local",'
        '"status":"unavailable","next_retry_at":"2026-11-30T12:00:09"},"at":"2026-11-30T12:00:01"}'
    )
    event = decode_event(line)
    assert event.at == datetime(2026, 11, 30, 12, 0, 1, tzinfo=UTC)
    assert isinstance(event.msg, EnvironmentStatus)
    assert event.msg.next_retry_at == datetime(2026, 11, 30, 12, 0, 9, tzinfo=UTC)
    # built in code, too: every time an event holds can be compared with an aware one
    built = thread_event(WarningMessage(message="m"), at=datetime(2026, 1, 1))
    assert built.at == datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("at", "message"),
    [
        ("0001-01-01T00:00:00+14:00", "at: time out of range: 0001-01-01T00:00:00+14:00"),
        ("9999-12-31T23:59:59-14:00", "at: time out of range: 9999-12-31T23:59:59-14:00"),
        ("x" * 10_000, "at: not an ISO time: '" + "x" * 79 + "…'"),
    ],
)
def test_a_time_that_cannot_be_placed_in_utc_is_a_bad_line(at: str, message: str) -> None:
    line = f'{{"id":"","msg":{{"type":"warning","message":"m"}},"at":"{at}"}}'
    (error,) = decode_lines(["", line])
    assert error == DecodeError(line=2, message=message)


def test_a_line_nested_too_deeply_or_too_long_is_a_bad_line_and_the_rest_is_read() -> None:
    import io

    from envtui.vocabulary.limits import bounded_lines

    good = '{"id":"","msg":{"type":"warning","message":"m"}}'
    deep = '{"id":"","msg":{"type":"x","v":' + "[" * 5000 + "]" * 5000 + "}}"
    stream = io.StringIO("\n".join([deep, "x" * 20_000, good]))
    results = list(decode_lines(bounded_lines(stream, 12_000)))
    assert results[0] == DecodeError(1, "invalid JSON: nested deeper than 100 levels")
    assert results[1] == DecodeError(2, "line over 12000 bytes; skipped")
    assert isinstance(results[2], Event)


def _sample(annotation: object) -> object:
    """A value of a required field's type: the first of a Literal's, else a str or an int."""
    from typing import Literal, get_args, get_origin

    if get_origin(annotation) is Literal:
        return get_args(annotation)[0]
    return "x" if annotation is str else 1


def test_an_event_holds_each_message_as_its_own_class_or_as_unknown() -> None:
    from envtui.vocabulary.events import KNOWN_MESSAGES

    for kind, cls in KNOWN_MESSAGES.items():
        fields = cls.model_fields.items()
        required = {name: _sample(f.annotation) for name, f in fields if f.is_required()}
        msg = cls.model_validate({"type": kind, **required})
        assert type(Event(id="", msg=msg).msg) is cls, kind
        assert type(Event(id="", msg=msg.model_dump()).msg) is cls, kind
    unknown = UnknownMessage(type="environment_status", raw={"type": "environment_status"})
    assert Event(id="", msg=unknown).msg is unknown  # named like a known one, still kept whole
    raw = {"type": "turn_diff", "raw": {"type": "turn_diff", "unified_diff": ""}}
    assert type(Event(id="", msg=raw).msg) is UnknownMessage
    with pytest.raises(ValueError, match="environment_id"):
        Event(id="", msg={"type": "environment_connected"})  # its own class says what is missing


def test_a_line_of_each_known_type_reads_as_its_message_read_alone() -> None:
    """A line is read in one pass (the event and its message together): the message it
    gives is the one its object gives read alone, with the same fields given."""
    import json

    from envtui.vocabulary.events import KNOWN_MESSAGES, decode_message

    for kind, cls in KNOWN_MESSAGES.items():
        fields = cls.model_fields.items()
        required = {name: _sample(f.annotation) for name, f in fields if f.is_required()}
        raw = {"type": kind, **required}
        for at in (None, "2026-11-30T12:00:01", "2026-11-30T13:00:01+01:00"):
            line = json.dumps({"id": "7", "msg": raw} | ({"at": at} if at else {}))
            event, alone = decode_event(line), decode_message(raw)
            assert type(event.msg) is cls, kind
            assert event.msg == alone, kind
            assert event.msg.model_fields_set == alone.model_fields_set, kind
            assert event.at == (datetime(2026, 11, 30, 12, 0, 1, tzinfo=UTC) if at else None)
            assert event.model_fields_set == ({"id", "msg", "at"} if at else {"id", "msg"})


@pytest.mark.parametrize(
    ("msg", "at", "message"),
    [
        ('{"type":"environment_connected"}', '"yesterday"', "msg.environment_id: Field required"),
        ('{"type":"environment_connected","environment_id":"a"}', "7", "at: expected an ISO"),
        ('{"type":"environment_connected","environment_id":"a"}', '"x"', "at: not an ISO time"),
        ('{"type":["environment_status"]}', '"x"', "msg.type: expected a string"),
        ('{"type":"warning","message":"m"}', '"0001-01-01T00:00+14:00"', "at: time out of"),
    ],
)
def test_a_line_wrong_in_more_than_one_way_names_its_message_first(
    msg: str, at: str, message: str
) -> None:
    with pytest.raises(ValueError, match=f"^{message}"):
        decode_event(f'{{"id":"","msg":{msg},"at":{at}}}')
