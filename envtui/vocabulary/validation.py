"""Turning a pydantic validation failure into the one line a person reads.

Config files, Codex's environments.toml, theme files, state documents and event lines are
all validated with pydantic, and all report the same way: the **first** error, at a key
path written as the person wrote it (``environments[0].port``), with the words pydantic
gives or the reader's own for a few error types. One helper does that for every reader,
so a fix to how errors read reaches every input at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field, ValidationError

MAX_SECONDS = 86_400.0
"""The longest timeout, interval or backoff a file may ask for: one day. Every wait in envtui
has a bound, and a timestamp computed from it must stay in range."""

Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)]
"""A duration in seconds: positive, finite, at most :data:`MAX_SECONDS`."""


def key_path(loc: Iterable[Any]) -> str:
    """``['environments', 0, 'port']`` → ``environments[0].port``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass(frozen=True)
class FirstError:
    """The first of a validation failure's errors, ready to print."""

    loc: list[Any]
    """Where, with the steps the person did not write (union tags) left out."""
    message: str
    kind: str
    """pydantic's error type, such as ``extra_forbidden`` or ``missing``."""
    input: Any
    more: int
    """How many further errors there were."""

    @property
    def key(self) -> str:
        return key_path(self.loc)


def first_error(
    exc: ValidationError,
    *,
    messages: Mapping[str, str] | None = None,
    hidden: Callable[[int, Any, Any], bool] | None = None,
) -> FirstError:
    """The first error of ``exc``.

    ``messages`` replaces pydantic's words for the given error types (for example
    ``{"extra_forbidden": "unknown key"}``); a ``value_error`` loses pydantic's "Value
    error, " prefix, so a validator's own sentence is shown as written. ``hidden(index,
    part, previous)`` says which location steps to leave out (the member names pydantic
    adds for a discriminated union, which nobody typed).
    """
    return every_error(exc, messages=messages, hidden=hidden)[0]


def every_error(
    exc: ValidationError,
    *,
    messages: Mapping[str, str] | None = None,
    hidden: Callable[[int, Any, Any], bool] | None = None,
) -> list[FirstError]:
    """Each error of ``exc`` as :func:`first_error` reads the first: a reader can prefer one
    that says more (a mistyped key over the required key it stands for)."""
    errors = exc.errors(include_url=False)
    read = []
    for error in errors:
        raw = list(error["loc"])
        loc = [
            part
            for index, part in enumerate(raw)
            if hidden is None or not hidden(index, part, raw[index - 1] if index else None)
        ]
        kind = str(error["type"])
        message = str(error["msg"])
        if messages is not None and kind in messages:
            message = messages[kind]
        elif kind == "value_error":
            message = message.removeprefix("Value error, ")
        read.append(FirstError(loc, message, kind, error.get("input"), len(errors) - 1))
    return read
