"""Reading JSON inputs named on the command line, with errors that name file and field."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

STDIN = "-"


class InputError(Exception):
    """A problem with one input: ``source`` is the file name (``<stdin>`` for ``-``)."""

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.message = message


def display_name(path: str) -> str:
    """How an input is named in messages."""
    return "<stdin>" if path == STDIN else path


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_json(path: str) -> Any:
    """Parse the JSON file at ``path`` (``-`` for standard input) or raise :class:`InputError`."""
    source = display_name(path)
    try:
        data = sys.stdin.buffer.read() if path == STDIN else Path(path).read_bytes()
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"not UTF-8 (invalid byte at offset {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            source, f"line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}"
        ) from None
    except ValueError as exc:  # NaN and Infinity, which Python's json would accept
        raise InputError(source, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise InputError(source, "invalid JSON: nested too deeply") from None
