"""One rollout line, parsed and its shape checked before the reader acts on it.

A line that is not a JSON object with a string ``type`` is broken; a payload that is not
an object is taken as empty; a ``timestamp`` that is not a string as absent. A value
nested deeper than Python can walk makes the line broken, never the reader. Which item
types a line may hold, and which of them date the next request, are named here too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

TURN_START = "task_started"
TURN_ABORTED = "turn_aborted"
TURN_END = frozenset({"task_complete", TURN_ABORTED, "turn_complete"})
REQUEST_SIDE = frozenset({"world_state", "turn_context", "compacted"})
"""Line types written before the request they belong to is sent."""
IGNORED = frozenset({"token_usage_record"})
"""Line types Codex writes that say nothing about environments (not counted as unknown)."""
STATE_TYPES = frozenset({"world_state", "compacted"})
"""Line types whose effect on the world state a skipped part of a file still needs."""
TOOLS_TYPE = "additional_tools"
"""The ``response_item`` that records the tools a request offers."""

_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
"""The C scanner behind ``json.loads``, called without its three Python wrappers: a
rollout is parsed line by line, and those wrappers cost a fifth of the parse."""


def parse_line(raw: str) -> Any:
    """One JSON value filling the line (whitespace around it allowed), as ``json.loads``."""
    value, whole = _scan_whole(raw)
    return value if whole else _parse_stripped(raw)


def _scan_whole(raw: str) -> tuple[Any, bool]:
    """The line's value read in place, and whether it fills the line (whitespace after it
    allowed), as it does unless the line starts with whitespace or is broken."""
    try:
        value, end = _SCAN(raw, 0)
    except (StopIteration, ValueError):
        return None, False  # whitespace first, or not JSON: the full rules tell
    return value, end == len(raw) or not raw[end:].strip(" \t\r\n")


def _parse_stripped(raw: str) -> Any:
    text = raw.strip(" \t\r\n")
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        raise ValueError("expecting a JSON value") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


class Item(NamedTuple):
    """A rollout line of the right shape: its type, its payload, when it was written.
    (A named tuple: one is made for every line, and a tuple is made fastest.)"""

    kind: str
    payload: dict[str, Any]
    timestamp: str | None

    @property
    def inner(self) -> str | None:
        """The payload's own ``type`` (a response item's or an event message's kind)."""
        inner = self.payload.get("type")
        return inner if isinstance(inner, str) else None


def parse_item(raw: str) -> Item | None:
    """The line's item, or None when the line is broken (or blank: ``raw.strip()`` tells).

    :func:`_scan_whole` and :func:`item_of`, written out: every line of a rollout comes here.
    """
    try:
        try:
            value, end = _SCAN(raw, 0)
        except StopIteration:
            value = _parse_stripped(raw)  # whitespace first, or nothing
        else:
            if end != len(raw) and raw[end:].strip(" \t\r\n"):
                return None  # something after the value
    except (ValueError, RecursionError):
        return None
    kind = value.get("type") if type(value) is dict else None
    if type(kind) is not str:
        return item_of(value)  # a subclass of str or dict cannot come from JSON: never here
    payload = value.get("payload")
    timestamp = value.get("timestamp")
    return _new_item(
        Item,
        (
            kind,
            payload if type(payload) is dict else {},
            timestamp if type(timestamp) is str else None,
        ),
    )


def item_of(value: Any) -> Item | None:
    """A parsed line as an item, or None when it is not an object with a string type."""
    kind = value.get("type") if isinstance(value, dict) else None
    if not isinstance(kind, str):
        return None
    payload = value.get("payload")
    timestamp = value.get("timestamp")
    return _new_item(
        Item,
        (
            kind,
            payload if isinstance(payload, dict) else {},
            timestamp if isinstance(timestamp, str) else None,
        ),
    )


_new_item = tuple.__new__
"""What ``Item(...)`` calls, called directly: one item is made for every line."""
