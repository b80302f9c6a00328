"""Reading JSON inputs named on the command line, with errors that name file and field."""

from __future__ import annotations

import sys
from typing import Any

from envtui.vocabulary.limits import (
    MAX_INPUT_FILE,
    JsonInputError,
    TooLargeError,
    load_json,
    read_bounded,
    read_file_bounded,
)

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


def read_json(path: str) -> Any:
    """Parse the JSON file at ``path`` (``-`` for standard input) or raise :class:`InputError`.

    At most :data:`~envtui.vocabulary.limits.MAX_INPUT_FILE` bytes are read, so ``/dev/zero`` or an
    endless pipe is an error, not a process that eats all memory.
    """
    source = display_name(path)
    try:
        if path == STDIN:
            data = read_bounded(sys.stdin.buffer, MAX_INPUT_FILE, "the input is")
        else:
            data = read_file_bounded(path)
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    except TooLargeError as exc:
        raise InputError(source, str(exc)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"not UTF-8 (invalid byte at offset {exc.start})") from None
    try:
        return load_json(text)
    except JsonInputError as exc:
        raise InputError(source, exc.describe()) from None
