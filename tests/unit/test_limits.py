"""The limits of every input: bounded reads, bounded lines, bounded nesting, in words."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from envtui.vocabulary.limits import (
    KIB,
    MAX_JSON_DEPTH,
    MIB,
    JsonInputError,
    LineTooLong,
    TooLargeError,
    bounded_lines,
    load_json,
    load_toml,
    nesting_exceeds,
    read_bounded,
    read_file_bounded,
    size_text,
)


def test_sizes_read_as_people_say_them() -> None:
    assert [size_text(n) for n in (MIB, 64 * KIB, 16 * MIB, 100)] == [
        "1 MiB",
        "64 KiB",
        "16 MiB",
        "100 bytes",
    ]


def test_an_endless_stream_is_cut_at_the_limit() -> None:
    with open("/dev/zero", "rb") as zero, pytest.raises(TooLargeError) as caught:
        read_bounded(zero, MIB, "probe output")
    assert str(caught.value) == "probe output over 1 MiB"
    assert read_bounded(io.BytesIO(b"x" * 10), 10) == b"x" * 10


def test_a_file_over_the_limit_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (KIB + 1))
    with pytest.raises(TooLargeError, match="over 1 KiB"):
        read_file_bounded(path, KIB)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # a writer that never stops: the read still ends
    os.write(writer, b"x" * (2 * KIB))
    try:
        with pytest.raises(TooLargeError):
            read_file_bounded(fifo, KIB)
    finally:
        os.close(writer)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 100_000, f"nested deeper than {MAX_JSON_DEPTH} levels"),
        ("[" * 101 + "]" * 101, f"nested deeper than {MAX_JSON_DEPTH} levels"),
        ('{"a": NaN}', "NaN is not JSON"),
        ("[Infinity]", "Infinity is not JSON"),
        ("9" * 5000, "Exceeds the limit (4300 digits) for integer string conversion"),
    ],
)
def test_json_that_is_not_plain_data_is_refused(text: str, reason: str) -> None:
    with pytest.raises(JsonInputError) as caught:
        load_json(text)
    assert caught.value.reason.startswith(reason)


def test_json_errors_keep_their_position() -> None:
    with pytest.raises(JsonInputError) as caught:
        load_json('{\n  "a": }')
    assert caught.value.describe() == "line 2, column 8: invalid JSON: Expecting value"
    assert load_json("[" * 100 + "]" * 100) is not None


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    """More brackets than the limit allows nesting for: the document is walked, and the
    brackets inside a string are not nesting."""
    text = '{"a": "' + "[{" * 200 + '", "b": [[1]]}'
    assert load_json(text) == {"a": "[{" * 200, "b": [[1]]}
    assert load_json(text + "\n") == {"a": "[{" * 200, "b": [[1]]}
    with pytest.raises(JsonInputError, match="nested deeper than 3 levels"):
        load_json('{"a": "[[[[[[", "b": [[[1]]]}', max_depth=3)


@pytest.mark.parametrize("limit", [1, 2, 3, 10, 100])
def test_the_shortest_document_nested_one_level_too_deep_is_refused(limit: int) -> None:
    """Only a document with more brackets than twice the limit can nest too deeply; the
    shortest one that does is still found."""
    assert load_json("[" * limit + "]" * limit, max_depth=limit) is not None
    assert load_json('{"a":' * limit + "1" + "}" * limit, max_depth=limit) is not None
    for deep in ("[" * (limit + 1) + "]" * (limit + 1), '{"a":' * limit + "[]" + "}" * limit):
        with pytest.raises(JsonInputError, match=f"nested deeper than {limit} levels"):
            load_json(deep, max_depth=limit)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ('{"a": 1} x', "line 1, column 10: invalid JSON: Extra data"),
        ("  ", "line 1, column 3: invalid JSON: Expecting value"),
        (
            "\ufeff{}",
            "line 1, column 1: invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig)",
        ),
    ],
)
def test_json_errors_are_described_as_json_loads_places_them(text: str, described: str) -> None:
    with pytest.raises(JsonInputError) as caught:
        load_json(text)
    assert caught.value.describe() == described


def test_json_is_read_from_text_or_bytes_with_whitespace_around_it() -> None:
    assert load_json(' {"a": [1]}\n') == {"a": [1]}
    assert load_json('{"a": [1]}'.encode("utf-16")) == {"a": [1]}


def test_nesting_is_measured_without_recursion() -> None:
    deep: object = []
    for _ in range(50_000):
        deep = [deep]
    assert nesting_exceeds(deep, 100)
    assert not nesting_exceeds({"a": [{"b": 1}]}, 3)
    assert nesting_exceeds({"a": [{"b": []}]}, 3)


def test_toml_nested_too_deeply_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        load_toml("a = " + "[" * 50_000 + "]" * 50_000)
    with pytest.raises(ValueError, match="4300 digits"):
        load_toml("a = " + "1" * 5000)


def test_an_overlong_line_is_skipped_and_the_next_ones_are_read() -> None:
    stream = io.StringIO("ok\n" + "x" * 100 + "\nnext\nlast")
    assert list(bounded_lines(stream, 10)) == ["ok\n", LineTooLong(10), "next\n", "last"]
    assert str(LineTooLong(16 * MIB)) == "line over 16 MiB; skipped"
    exact = io.StringIO("x" * 10 + "\n" + "y" * 11)
    assert list(bounded_lines(exact, 10)) == ["x" * 10 + "\n", LineTooLong(10)]


def test_lines_are_cut_from_chunks_and_an_overlong_one_is_refused() -> None:
    from envtui.environments.channels import LineBuffer

    buffer = LineBuffer(10)
    buffer.feed(b'{"a":1}\n{"b"')
    assert buffer.pop() == b'{"a":1}\n'
    assert buffer.pop() is None
    buffer.feed(b":2}\n\n")
    assert [buffer.pop(), buffer.pop(), buffer.pop()] == [b'{"b":2}\n', b"\n", None]
    buffer.feed(b"tail")
    assert buffer.rest() == b"tail"
    with pytest.raises(TooLargeError, match="a line over 10 bytes"):
        buffer.feed(b"x" * 11)
