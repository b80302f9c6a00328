"""One rollout line into the reader: parse it, check its shape, and call the handler for it.

Anything a line may hold is checked here before it reaches the reader: a line that is not
a JSON object with a string ``type`` is broken; an item of an unknown type is counted;
fields of the wrong type are taken as absent. A value nested deeper than Python can walk
makes the line broken, never the reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from envtui.rollout.items import MODEL_OUTPUT, TOOL_OUTPUT, context_text

if TYPE_CHECKING:
    from envtui.rollout.reader import RolloutReader

TURN_START = "task_started"
TURN_END = frozenset({"task_complete", "turn_aborted", "turn_complete"})
REQUEST_SIDE = frozenset({"world_state", "turn_context", "compacted"})
"""Line types written before the request they belong to is sent."""
IGNORED = frozenset({"token_usage_record"})
"""Line types Codex writes that say nothing about environments (not counted as unknown)."""


_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
"""The C scanner behind ``json.loads``, called without its three Python wrappers: a
rollout is parsed line by line, and those wrappers cost a fifth of the parse."""


def parse_line(raw: str) -> Any:
    """One JSON value filling the line (whitespace around it allowed), as ``json.loads``."""
    text = raw.strip(" \t\r\n")
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        raise ValueError("expecting a JSON value") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


def dispatch(reader: RolloutReader, number: int, raw: str) -> None:
    """Read line ``number`` into ``reader``."""
    try:
        item = parse_line(raw)
    except (ValueError, RecursionError):
        if raw.strip():
            reader.info.bad_line(number)
        return
    kind = item.get("type") if isinstance(item, dict) else None
    if not isinstance(kind, str):
        reader.info.bad_line(number)
        return
    payload = item.get("payload")
    if not isinstance(payload, dict):
        payload = {}
    try:
        request_side = _handle(reader, number, kind, payload)
    except RecursionError:
        reader.info.bad_line(number)
        return
    if request_side:
        timestamp = item.get("timestamp")
        reader.seen_request_side(timestamp if isinstance(timestamp, str) else None)


def _handle(reader: RolloutReader, number: int, kind: str, payload: dict[str, Any]) -> bool:
    """Call the handler; whether the line is request-side (dates the next request)."""
    if kind == "response_item":
        return _response_item(reader, number, payload)
    if kind == "event_msg":
        event = payload.get("type")
        if event == TURN_START:
            reader.start_turn()
        elif isinstance(event, str) and event in TURN_END:
            reader.end_turn()
        return False
    if kind == "world_state":
        reader.world_state(number, payload)
    elif kind == "turn_context":
        reader.request_evidence(number, opens_after_model=False)
    elif kind == "compacted":
        reader.compacted(number, payload)
    elif kind == "session_meta":
        reader.session(payload)
    elif kind in IGNORED:
        return False
    else:
        if len(reader.info.unknown_items) < 100 or kind in reader.info.unknown_items:
            reader.info.unknown_items[kind[:100]] += 1
        return False
    return kind in REQUEST_SIDE


def _response_item(reader: RolloutReader, number: int, payload: dict[str, Any]) -> bool:
    kind = payload.get("type")
    if not isinstance(kind, str):
        return False
    if kind == "additional_tools":
        reader.tools_recorded(number, payload.get("tools"))
    elif kind == "message":
        role = payload.get("role")
        if role == "assistant":
            reader.model_output(number, payload)
            return False
        text = context_text(payload)
        if text is not None:
            reader.context_message(number, text)
        elif role == "user":
            reader.user_message(number)
    elif kind in MODEL_OUTPUT:
        reader.model_output(number, payload)
        return False
    elif kind in TOOL_OUTPUT:
        reader.tool_output()
    return True
