"""How much envtui takes from anything outside it, and the readers that keep to it.

Every read from a file, an SSH host, an exec-server or an app-server has a size limit, and
every JSON document a depth limit, so no input can make envtui buffer gigabytes or recurse
until Python gives up. A limit that is hit is an error in words a person reads ("probe
output over 1 MiB", "nested deeper than 100 levels"), reported like any other bad input.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

KIB = 1024
MIB = 1024 * KIB

MAX_INPUT_FILE = 64 * MIB
"""A JSON or TOML file named on the command line or found in a config folder."""
MAX_LINE = 16 * MIB
"""One line of an event file, one JSON-RPC message from an exec-server or app-server."""
MAX_PROBE_OUTPUT = 1 * MIB
"""What an SSH host may answer to the probe (a shell path and a directory)."""
MAX_JSON_DEPTH = 100
"""Nesting of any JSON envtui reads; real documents nest fewer than 20 levels."""


def size_text(size: int) -> str:
    """``1 MiB``, ``64 KiB``, ``100 bytes``: a limit as people say it."""
    for unit, name in ((MIB, "MiB"), (KIB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"


class TooLargeError(ValueError):
    """Something from outside was larger than envtui takes: ``"probe output over 1 MiB"``."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what} over {size_text(limit)}")
        self.limit = limit


def read_bounded(stream: IO[bytes], limit: int, what: str = "input") -> bytes:
    """All of ``stream``, or :class:`TooLargeError` once it holds more than ``limit`` bytes."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(what, limit)
    return data


def read_file_bounded(path: str | Path, limit: int = MAX_INPUT_FILE) -> bytes:
    """The bytes of ``path``; OSError as ``open`` raises it, :class:`TooLargeError` if larger."""
    with open(path, "rb") as handle:
        return read_bounded(handle, limit, "the file is")


def read_text_bounded(path: str | Path, limit: int = MAX_INPUT_FILE) -> str:
    """:func:`read_file_bounded` decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_file_bounded(path, limit).decode("utf-8")


class JsonInputError(ValueError):
    """JSON envtui does not take; ``line`` and ``column`` when the parser knew them."""

    def __init__(self, reason: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.column = column

    def describe(self) -> str:
        """``line 3, column 7: invalid JSON: Expecting value`` (without a position if unknown)."""
        where = f"line {self.line}, column {self.column}: " if self.line is not None else ""
        return f"{where}invalid JSON: {self.reason}"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
"""One decoder for every document: ``json.loads`` with an option builds a new one per call."""
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
"""Its C scanner: a document that starts with its value and ends with it (or with
whitespace) is parsed without the decoder's Python wrappers; anything else goes through
the decoder, which says exactly where the text went wrong."""


def load_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse strict JSON: no NaN or Infinity, no integer over 4300 digits, bounded nesting.

    Raises :class:`JsonInputError` for every way the text is not such JSON.
    """
    if not isinstance(text, str):  # as json.loads reads bytes: UTF-8, -16 or -32
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    try:
        if text.startswith("\ufeff"):  # as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value = _decode(text)
    except json.JSONDecodeError as exc:
        raise JsonInputError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsonInputError(f"nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # NaN, Infinity, an integer of thousands of digits
        raise JsonInputError(str(exc)) from None
    # nesting deeper than the limit needs more brackets than it, each closed again: a
    # document shorter than twice the limit, or with fewer (nearly every one), is not
    # walked (brackets inside strings count too, which only makes the walk run needlessly)
    if (
        len(text) > 2 * max_depth
        and text.count("[") + text.count("{") > max_depth
        and nesting_exceeds(value, max_depth)
    ):
        raise JsonInputError(f"nested deeper than {max_depth} levels")
    return value


def _decode(text: str) -> Any:
    """``_DECODER.decode(text)``, its common case faster: one JSONL line, a value then a
    newline at most."""
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:  # leading whitespace, or no value: the decoder knows which
        return _DECODER.decode(text)
    if end != len(text) and text[end:].strip(" \t\n\r"):
        return _DECODER.decode(text)  # raises "Extra data" at its place
    return value


def nesting_exceeds(value: object, limit: int) -> bool:
    """Whether lists and objects in ``value`` nest deeper than ``limit``; no recursion."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def load_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, with every way it can fail as one ValueError.

    Besides its own decode errors, tomllib gives up on tables or arrays nested thousands deep
    (RecursionError) and on integers of thousands of digits; both are bad input too.
    tomllib is imported here, when a TOML file is read: ``envtui render`` reads none.
    """
    import tomllib

    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


@dataclass(frozen=True)
class LineTooLong:
    """A line over the limit, skipped without being held in memory."""

    limit: int

    def __str__(self) -> str:
        return f"line over {size_text(self.limit)}; skipped"


def bounded_lines(stream: IO[str], limit: int = MAX_LINE) -> Iterator[str | LineTooLong]:
    """The lines of ``stream``; a line longer than ``limit`` characters is a :class:`LineTooLong`.

    Memory stays within ``limit`` whatever the stream holds, even a single endless line.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        whole = len(line) <= limit or (len(line) == limit + 1 and line.endswith("\n"))
        if whole:
            yield line
            continue
        while line and not line.endswith("\n"):  # skip the rest of the long line
            line = stream.readline(limit)
        yield LineTooLong(limit)
