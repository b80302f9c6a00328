"""Reading a Codex rollout file: world-state snapshots, context messages, tools, calls, steps.

A rollout (``CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<thread id>.jsonl``) holds one JSON
object per line. envtui reads the ``session_meta`` (``cli_version``), ``world_state``
items (a full baseline, then merge patches applied in order; a compaction clears the
baseline), user messages that carry an ``<environment_context>`` block, ``additional_tools``
items and the model's tool calls, and cuts them into steps, one per sampling request. A
line that is not JSON, or an item of a type envtui does not know, is counted and reported,
never fatal. A rollout holds no selection order, no connection state and no record of where
a call ran; the checks that need those say so.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from envtui.context import SECTION_ID
from envtui.context.patch import apply_world_patch, remove_null_object_fields
from envtui.profiles import Profile
from envtui.steps.model import ToolCall
from envtui.steps.tools import ToolSpec, tool_groups

CONTEXT_OPEN = "<environment_context>"
KNOWN_LINE_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "world_state", "turn_context", "compacted"}
)
MODEL_OUTPUT = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "reasoning", "web_search_call"}
)
TOOL_OUTPUT = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)
TURN_START = "task_started"
TURN_END = frozenset({"task_complete", "turn_aborted", "turn_complete"})
_ENVIRONMENT_LINE = re.compile(r"^\*\*\* Environment ID:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_CODE_MODE_CALL = re.compile(r"\b([a-z][a-z0-9_]*)\s*\(\s*\{(.*?)\}\s*\)", re.DOTALL)
_LITERAL_ID = re.compile(r"""\benvironment_id\s*:\s*(["'])([^"'\\]+)\1""")


@dataclass
class RolloutStep:
    number: int
    turn: int
    first_line: int
    at: datetime | None = None
    context_text: str | None = None
    context_line: int | None = None
    world_state_line: int | None = None
    previous_section: Any = None
    section: Any = None
    has_baseline: bool = False  # False: diffed against nothing (first or after compaction)
    unchecked: str | None = None  # why the context cannot be checked, if it cannot
    tools: list[ToolSpec] | None = None
    calls: list[ToolCall] = field(default_factory=list)
    complete: bool = False  # a later step or the end of its turn follows it in the file


@dataclass
class Rollout:
    lines: int = 0
    bad_lines: list[int] = field(default_factory=list)
    unknown_items: list[tuple[int, str]] = field(default_factory=list)
    turns_without_step: int = 0
    cli_version: str | None = None
    thread_id: str | None = None
    steps: list[RolloutStep] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def default_profile(self) -> tuple[Profile, str | None]:
        """0.171 or later → codex-0.171; earlier → codex-0.150; unknown → codex-0.171, noted."""
        version = _version_tuple(self.cli_version)
        if version is None:
            return Profile.CODEX_0171, "no cli_version recorded: checked as codex-0.171"
        return (Profile.CODEX_0171 if version >= (0, 171) else Profile.CODEX_0150), None

    def summary(self, profile: Profile) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "bad_lines": self.bad_lines,
            "unknown_items": len(self.unknown_items),
            "turns_without_step": self.turns_without_step,
            "cli_version": self.cli_version,
            "profile": profile.value,
        }


def _version_tuple(version: str | None) -> tuple[int, ...] | None:
    if not version:
        return None
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def context_text(payload: dict[str, Any]) -> str | None:
    """The ``<environment_context>`` text of a user message, if it carries one."""
    if payload.get("role") != "user":
        return None
    for part in payload.get("content") or []:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and text.startswith(CONTEXT_OPEN):
            return text
    return None


def calls_from(payload: dict[str, Any]) -> list[ToolCall]:
    """The tool calls in one model output item, with the environment each one names."""
    kind, name, call_id = payload.get("type"), payload.get("name"), payload.get("call_id")
    if kind == "function_call" and isinstance(name, str):
        environment = None
        try:
            arguments = json.loads(payload.get("arguments") or "{}")
        except (TypeError, ValueError):
            arguments = {}
        if isinstance(arguments, dict) and isinstance(arguments.get("environment_id"), str):
            environment = arguments["environment_id"]
        return [ToolCall(name, environment, call_id=call_id)]
    if kind == "custom_tool_call" and isinstance(name, str):
        raw_input = payload.get("input")
        text = raw_input if isinstance(raw_input, str) else ""
        if name == "apply_patch":
            match = _ENVIRONMENT_LINE.search(text)
            return [ToolCall(name, match.group(1) if match else None, call_id=call_id)]
        if name == "exec":  # code mode: nested calls, literal environment ids (best effort)
            nested = []
            for call in _CODE_MODE_CALL.finditer(text):
                literal = _LITERAL_ID.search(call.group(2))
                nested.append(
                    ToolCall(call.group(1), literal.group(2) if literal else None, call_id=call_id)
                )
            return nested
        return [ToolCall(name, call_id=call_id)]
    if kind == "local_shell_call":
        return [ToolCall("local_shell", call_id=call_id)]
    return []


class _Reader:
    def __init__(self) -> None:
        self.rollout = Rollout()
        self.world: dict[str, Any] | None = None
        self.tools: dict[tuple[str | None, str], list[ToolSpec]] = {}
        self.tools_recorded = False
        self.step: RolloutStep | None = None
        self.last: Literal["request", "model", "tool_output"] | None = None
        self.step_answered = False  # the model produced output in the current step
        self.turn = 0
        self.turn_steps = 0
        self.in_turn = False
        self.when: datetime | None = None

    # --- steps -----------------------------------------------------------------------------

    def _section(self) -> Any:
        return self.world.get(SECTION_ID) if self.world is not None else None

    def open_step(self, line: int) -> RolloutStep:
        self.close_step()
        number = len(self.rollout.steps) + 1
        self.step = RolloutStep(number, self.turn, line, at=self.when)
        self.step.previous_section = self._section()
        self.step.section = self._section()
        self.step.has_baseline = self.world is not None
        self.last = "request"
        self.step_answered = False
        self.turn_steps += 1
        return self.step

    def close_step(self, *, complete: bool = True) -> None:
        if self.step is not None:
            self.step.complete = complete
            self.step.tools = self.current_tools()
            self.rollout.steps.append(self.step)
            self.step = None

    def current_tools(self) -> list[ToolSpec] | None:
        if not self.tools_recorded:
            return None
        return [tool for group in self.tools.values() for tool in group]

    def request_evidence(self, line: int, *, opens_after_model: bool) -> RolloutStep:
        """A sign of a model request; after the model has answered in this step, a new step."""
        if self.step is None or (opens_after_model and self.step_answered):
            return self.open_step(line)
        return self.step

    def end_turn(self, *, complete: bool = True) -> None:
        self.close_step(complete=complete)
        if self.in_turn and self.turn_steps == 0:
            self.rollout.turns_without_step += 1
        self.in_turn = False

    # --- items -----------------------------------------------------------------------------

    def feed(self, number: int, raw: str) -> None:
        self.rollout.lines = number
        if not raw.strip():
            return
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            self.rollout.bad_lines.append(number)
            return
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            self.rollout.bad_lines.append(number)
            return
        kind = item["type"]
        payload = item.get("payload") if isinstance(item.get("payload"), dict) else {}
        timestamp = item.get("timestamp")
        if isinstance(timestamp, str):
            with contextlib.suppress(ValueError):
                self.when = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
        if kind not in KNOWN_LINE_TYPES:
            self.rollout.unknown_items.append((number, kind))
            return
        getattr(self, f"_on_{kind}")(number, payload)

    def _on_session_meta(self, number: int, payload: dict[str, Any]) -> None:
        version = payload.get("cli_version")
        self.rollout.cli_version = version if isinstance(version, str) else None
        thread = payload.get("id")
        self.rollout.thread_id = thread if isinstance(thread, str) else None

    def _on_event_msg(self, number: int, payload: dict[str, Any]) -> None:
        event = payload.get("type")
        if event == TURN_START:
            self.end_turn()
            self.turn += 1
            self.turn_steps = 0
            self.in_turn = True
        elif event in TURN_END:
            self.end_turn()

    def _on_turn_context(self, number: int, payload: dict[str, Any]) -> None:
        self.request_evidence(number, opens_after_model=False)

    def _on_compacted(self, number: int, payload: dict[str, Any]) -> None:
        self.world = None  # the next context is a full restatement

    def _on_world_state(self, number: int, payload: dict[str, Any]) -> None:
        step = self.request_evidence(number, opens_after_model=True)
        state = payload.get("state")
        if not isinstance(state, dict):
            self.rollout.bad_lines.append(number)
            return
        step.previous_section = self._section()
        if payload.get("full") is True:
            self.world = remove_null_object_fields(state)
            step.has_baseline = False
        elif self.world is None:
            step.unchecked = f"line {number}: a world_state patch with no baseline is ignored"
            self.rollout.notes.append(step.unchecked)
            return
        else:
            self.world = apply_world_patch(self.world, state)
            step.has_baseline = True
        step.world_state_line = number
        step.section = self._section()
        step.at = self.when

    def _on_response_item(self, number: int, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "additional_tools":
            if self.step is not None and self.step_answered:
                self.open_step(number)
            entries = payload.get("tools")
            self.tools.update(tool_groups(entries if isinstance(entries, list) else []))
            self.tools_recorded = True
            return
        if kind == "message":
            text = context_text(payload)
            if text is not None:
                step = self.request_evidence(number, opens_after_model=True)
                step.context_text, step.context_line = text, number
                step.at = self.when  # the moment the model was told
            elif payload.get("role") == "assistant":
                self._model_output(number, payload)
            return
        if kind in MODEL_OUTPUT:
            self._model_output(number, payload)
        elif kind in TOOL_OUTPUT:
            self.last = "tool_output"

    def _model_output(self, number: int, payload: dict[str, Any]) -> None:
        if self.step is None or self.last == "tool_output":
            self.open_step(number)
        assert self.step is not None
        self.step.calls.extend(calls_from(payload))
        self.last = "model"
        self.step_answered = True


def read_rollout_lines(lines: Iterable[str]) -> Rollout:
    reader = _Reader()
    for number, line in enumerate(lines, start=1):
        reader.feed(number, line)
    reader.end_turn(complete=False)  # the file may still grow: its last step is not known complete
    return reader.rollout


def read_rollout(path: Path) -> Rollout:
    """Read a rollout file; raises OSError when it cannot be read at all."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        return read_rollout_lines(handle)
