"""What one rollout item says: a context block, the model's tool calls, a version, a time.

Pure functions over one parsed JSON value each, safe on any input: a rollout is written by
another program and may be cut short, edited or hostile, so a field of the wrong type is
treated as absent, never trusted. Every scan here is linear in the size of its input.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from envtui.steps.values import ToolCall

CONTEXT_OPEN = "<environment_context>"
CONTEXT_KIND = "environments.environment_context"
"""The ``content_item_kinds`` entry of a message that carries the environments block."""

MODEL_OUTPUT = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "reasoning", "web_search_call"}
)
TOOL_OUTPUT = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)

_ENVIRONMENT_LINE = re.compile(r"^\*\*\* Environment ID:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_CALL_START = re.compile(r"\b([a-z][a-z0-9_]*)[ \t\r\n]*\([ \t\r\n]*\{")
_CALL_END = re.compile(r"\}[ \t\r\n]*\)")
_LITERAL_ID = re.compile(r"""\benvironment_id\s*:\s*(["'])([^"'\\\n]+)\1""")
_VERSION = re.compile(r"(\d{1,9})\.(\d{1,9})")


def text_of(value: Any) -> str | None:
    """``value`` if it is a string."""
    return value if isinstance(value, str) else None


def context_text(payload: dict[str, Any]) -> str | None:
    """The ``<environment_context>`` text of a user message, if it carries one."""
    if payload.get("role") != "user":
        return None
    content = payload.get("content")
    if not isinstance(content, list):
        return None
    for part in content:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and text.startswith(CONTEXT_OPEN):
            return text
    return None


def session_source(source: Any) -> tuple[str | None, str | None]:
    """Who started a thread, from its ``session_meta`` ``source`` (``"cli"``, ``"exec"``,
    or ``{"subagent": {"thread_spawn": {"parent_thread_id": …}}}``; ``subAgent`` as the
    app-server spells it), and a spawned sub-agent's parent thread."""
    if isinstance(source, str):
        return source, None
    if not isinstance(source, dict) or len(source) != 1:
        return None, None
    kind, detail = next(iter(source.items()))
    if kind not in ("subagent", "subAgent"):
        return text_of(kind), None
    spawn = detail.get("thread_spawn") if isinstance(detail, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return "subagent", text_of(parent)


def replacement_context(history: Any) -> tuple[bool, str | None]:
    """The block in a compaction's replacement history: (whether it has one, its text).

    Codex 0.171 puts the environments block the model gets next into the history that
    replaces the compacted one; 0.150 puts none there and re-sends it with the next turn.
    """
    if not isinstance(history, list):
        return False, None
    for item in history:
        if isinstance(item, dict) and item.get("type") == "message":
            text = context_text(item)
            if text is not None:
                return True, text
    return False, None


def _literal_environment(arguments: str) -> str | None:
    literal = _LITERAL_ID.search(arguments)
    return literal.group(2) if literal else None


def code_mode_calls(source: str) -> Iterator[tuple[str, str | None]]:
    """The nested calls ``name({...})`` of a code-mode ``exec`` cell: name, literal id.

    Best effort, and linear: every call start and every ``})`` are found in one pass each,
    and a call's arguments run to the first ``})`` after its brace, as a lazy pattern would
    take them, without rescanning the rest of the cell for each start.
    """
    ends = [match.span() for match in _CALL_END.finditer(source)]
    end_starts = [start for start, _ in ends]
    position = 0
    for start in _CALL_START.finditer(source):
        if start.start() < position:
            continue
        index = bisect.bisect_left(end_starts, start.end())
        if index == len(ends):
            return  # no call after this one can be closed either
        close_start, close_end = ends[index]
        yield start.group(1), _literal_environment(source[start.end() : close_start])
        position = close_end


def _function_environment(raw_arguments: Any) -> str | None:
    if not isinstance(raw_arguments, str):
        return None
    try:
        arguments = json.loads(raw_arguments)
    except (ValueError, RecursionError):
        return None
    value = arguments.get("environment_id") if isinstance(arguments, dict) else None
    return value if isinstance(value, str) else None


def calls_from(payload: dict[str, Any]) -> list[ToolCall]:
    """The tool calls in one model output item, with the environment each one names."""
    kind, name = payload.get("type"), payload.get("name")
    call_id = text_of(payload.get("call_id"))
    if kind == "function_call" and isinstance(name, str):
        environment = _function_environment(payload.get("arguments"))
        return [ToolCall(name, environment, call_id=call_id)]
    if kind == "custom_tool_call" and isinstance(name, str):
        text = text_of(payload.get("input")) or ""
        if name == "apply_patch":
            match = _ENVIRONMENT_LINE.search(text)
            return [ToolCall(name, match.group(1) if match else None, call_id=call_id)]
        if name == "exec":  # code mode: nested calls, literal environment ids (best effort)
            return [ToolCall(n, env, call_id=call_id) for n, env in code_mode_calls(text)]
        return [ToolCall(name, call_id=call_id)]
    if kind == "local_shell_call":
        return [ToolCall("local_shell", call_id=call_id)]
    return []


def version_tuple(version: str | None) -> tuple[int, int] | None:
    """``"0.171.0"`` → ``(0, 171)``; None when there is no leading ``MAJOR.MINOR``."""
    match = _VERSION.match(version) if version else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 timestamp as an aware time (a time without an offset counts as UTC)."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
