"""Reading a Codex rollout as it is written: one sampling step at a time, in bounded memory.

A rollout (``CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<thread id>.jsonl``) holds one JSON
object per line. :class:`RolloutReader` is fed complete lines, in order, and hands back
each step as soon as a later line shows it is over; it keeps only the step being read and
the state the next one needs (the world state, the tool list), never the steps before.

What a step holds (:class:`RolloutStep`):

* **its blocks**: every ``<environment_context>`` the request carried, each with the
  snapshots it was diffed between (:class:`ContextBlock`). A block is a user message
  followed by the ``world_state`` item Codex persists after it; a ``world_state`` with no
  message is a block Codex did not send; a compaction's replacement history (0.171) holds
  the full block the next request gets, paired with the full ``world_state`` after it.
* **its time**: when the request went out, that is the last request-side item recorded
  before the model's output (the user message, or the tool output the request carries),
  not the ``turn_context``, which Codex writes before a turn's readiness work.
* its tools (``additional_tools`` items, replaced by namespace and name) and the calls
  the model made in answer.

A fork (0.171) starts with patches whose baseline lives in the parent's rollout; a
``baseline`` callback, given by whoever can read files, returns the parent's world state at
the fork's ordinal. A broken line, or an item of an unknown type, is counted and reported,
never fatal. A rollout holds no selection order, no connection state and no record of
where a call ran; the checks that need those say so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from envtui.rollout.items import (
    MODEL_OUTPUT,
    TOOL_OUTPUT,
    calls_from,
    context_text,
    parse_time,
    replacement_context,
    session_source,
    text_of,
)
from envtui.rollout.lines import (
    IGNORED,
    TOOLS_TYPE,
    TURN_ABORTED,
    TURN_END,
    TURN_START,
    Item,
    item_of,
    parse_item,
    parse_line,
)
from envtui.rollout.records import ContextBlock, RolloutInfo, RolloutStep
from envtui.rollout.state import BaselineLookup, ForkOrigin, WorldReplay
from envtui.rollout.tool_lines import tools_of_line
from envtui.steps.tools import ToolSpec, tool_groups

MAX_UNKNOWN_KINDS = 100
"""How many distinct unknown item types are counted by name (the rest only if seen)."""


class RolloutReader:
    """Feed complete lines in order; get each step back once it is over. See the module."""

    def __init__(self, baseline: BaselineLookup | None = None) -> None:
        self.info = RolloutInfo()
        self.world = WorldReplay()
        self._baseline = baseline
        self._tools: dict[tuple[str | None, str], list[ToolSpec]] = {}
        self._tool_list: list[ToolSpec] | None = None
        self._step: RolloutStep | None = None
        self._sent = False  # the current step carries something the model is sent
        self._answered = False  # the model produced output in the current step
        self._after_tool_output = False  # the next model output answers a new request
        self._open_block: ContextBlock | None = None  # a message awaiting its world_state
        self._pending: ContextBlock | None = None  # a compaction's block, for the next step
        self._compacted = False  # the next full world_state is the compaction's baseline
        self.before_compaction: Any = None  # the section a compaction cleared, until restated
        self.latest_time: str | None = None  # the timestamp of the latest item read in full
        self._request_time: str | None = None
        self._turn = 0
        self._turn_steps = 0
        self._in_turn = False
        self._done: list[RolloutStep] = []

    def read_line(self, number: int, raw: str) -> Sequence[RolloutStep]:
        """Read line ``number``; the steps it completed (usually none, at most two)."""
        self.info.lines = number
        item = parse_item(raw)
        if item is None:
            if raw.strip():
                self.info.bad_line(number)
        else:
            if item.timestamp is not None:
                self.latest_time = item.timestamp
            self._read_item(number, item)
        if not self._done:
            return ()
        done, self._done = self._done, []
        return done

    def skip_line(self, number: int, raw: str) -> None:
        """A line of a part of the file nobody needs step by step: only what it does to the
        state the next steps need (the world state, the tool list); never cut into steps."""
        try:
            value = parse_line(raw)
        except (ValueError, RecursionError):
            self.info.bad_line(number)
            return
        item = item_of(value)
        if item is None or not isinstance(value.get("payload"), dict):
            return  # nothing a skipped line of another shape could change
        if item.kind == "world_state":
            if self.world.read_item(item.payload, number, self.info.fork) is None:
                self.info.bad_line(number)
        elif item.kind == "compacted":
            self.skip_compaction()
        elif item.kind == "response_item" and item.inner == TOOLS_TYPE:
            self._tools_recorded(number, item.payload.get("tools"))

    def skip_tools_line(self, number: int, raw: str) -> None:
        """An ``additional_tools`` line of a skipped part. Threads of the same Codex and
        tools write the same line, so its tools are parsed once for all of them."""
        groups = tools_of_line(raw)
        if groups is None:
            self.skip_line(number, raw)  # not of the shape expected: read it the usual way
            return
        self._tools.update(groups)
        self._tool_list = None

    def skip_compaction(self) -> None:
        """A compaction in a skipped part: the world state is cleared until it is restated."""
        self._clear_world()

    def _clear_world(self) -> None:
        section = self.world.section()
        if section is not None:
            self.before_compaction = section
        self.world.reset()

    def latest_section(self) -> Any:
        """The section of the latest world state known: after a compaction and before the
        full restatement Codex writes with the next request, the one the compaction cleared."""
        section = self.world.section()
        return section if section is not None else self.before_compaction

    @property
    def step_open(self) -> bool:
        """Whether :meth:`finish` may hand back a step: one is being read, or a block waits."""
        return self._step is not None or (self._pending is not None and self._pending.paired)

    def peek(self) -> RolloutStep | None:
        """The step being read, as :meth:`finish` would hand it back now, without closing it.

        A follower shows a step as soon as its context is recorded, while the model may
        still be answering; later lines of the same step do not change what was shown.
        """
        step = self._step
        if step is None:
            return None
        at, section = step.at, step.section
        if not self._answered:
            at, section = parse_time(self._request_time), self.world.section()
        return dataclasses.replace(
            step,
            at=at,
            section=section,
            tools=self._current_tools(),
            blocks=list(step.blocks),
            calls=list(step.calls),
            notes=list(step.notes),
        )

    def finish(self) -> list[RolloutStep]:
        """The end of the file as it is now: the open step, not known to be complete."""
        if self._pending is not None and self._pending.paired:
            self._request_item(self.info.lines)
        self._end_turn(complete=False)
        done, self._done = self._done, []
        return done

    # --- steps ------------------------------------------------------------------------------

    def _open_step(self, line: int) -> RolloutStep:
        self._close_step()
        self.info.steps += 1
        self._step = RolloutStep(self.info.steps, self._turn, line)
        self._sent = self._answered = self._after_tool_output = False
        self._turn_steps += 1
        return self._step

    def _close_step(self, *, complete: bool = True) -> None:
        step, self._step = self._step, None
        self._open_block = None
        if step is None:
            return
        if not (self._sent or self._answered or step.blocks):
            self.info.steps -= 1  # only a turn_context: no request was made (a compaction)
            self._turn_steps -= 1
            return
        step.complete = complete
        step.tools = self._current_tools()
        if not self._answered:
            step.at = parse_time(self._request_time)
            step.section = self.world.section()
        self._done.append(step)

    def _current_tools(self) -> list[ToolSpec] | None:
        if self._tool_list is None and self._tools:
            self._tool_list = [tool for group in self._tools.values() for tool in group]
        return self._tool_list

    def _request_evidence(self, line: int, *, opens_after_model: bool) -> RolloutStep:
        """A sign of a model request; after the model has answered in this step, a new step."""
        if self._step is None or (opens_after_model and self._answered):
            return self._open_step(line)
        return self._step

    def _request_item(self, line: int) -> RolloutStep:
        """Something the next request carries: its step, which takes any pending block."""
        step = self._request_evidence(line, opens_after_model=True)
        self._sent = True
        self._take_pending(step)
        return step

    def _take_pending(self, step: RolloutStep) -> None:
        if self._pending is not None and self._pending.paired:
            step.blocks.insert(0, self._pending)  # in the history, before what is appended
            self._pending = None

    def _start_turn(self) -> None:
        self._end_turn()
        self._turn += 1
        self._turn_steps = 0
        self._in_turn = True

    def _end_turn(self, *, complete: bool = True) -> None:
        self._close_step(complete=complete)
        if self._in_turn and self._turn_steps == 0:
            self.info.turns_without_step += 1
        self._in_turn = False

    # --- one item, by its type ---------------------------------------------------------------

    def _read_item(self, number: int, item: Item) -> None:
        handler = _HANDLERS.get(item.kind)
        if handler is None:
            if item.kind in IGNORED:
                self.info.items += 1
            else:
                self._unknown(item.kind)
            return
        self.info.items += 1
        try:
            request_side = handler(self, number, item.payload)
        except RecursionError:
            self.info.bad_line(number)
            return
        if request_side and item.timestamp is not None:
            self._request_time = item.timestamp  # the request is not sent before it

    def _unknown(self, kind: str) -> None:
        unknown = self.info.unknown_items
        if len(unknown) < MAX_UNKNOWN_KINDS or kind in unknown:
            unknown[kind[:100]] += 1

    def _on_event(self, number: int, payload: dict[str, Any]) -> bool:
        event = payload.get("type")
        if event == TURN_START:
            self.info.turns += 1
            self.info.turn_end = None
            self._start_turn()
        elif isinstance(event, str) and event in TURN_END:
            self.info.turn_end = "interrupted" if event == TURN_ABORTED else "completed"
            self._end_turn()
        return False

    def _on_response(self, number: int, payload: dict[str, Any]) -> bool:
        kind = payload.get("type")
        if not isinstance(kind, str):
            return False
        if kind == TOOLS_TYPE:
            self._tools_recorded(number, payload.get("tools"))
        elif kind == "message":
            role = payload.get("role")
            if role == "assistant":
                self._model_output(number, payload)
                return False
            text = context_text(payload)
            if text is not None:
                self._context_message(number, text)
            elif role == "user":
                self._request_item(number)
        elif kind in MODEL_OUTPUT:
            self._model_output(number, payload)
            return False
        elif kind in TOOL_OUTPUT:
            self._after_tool_output = True
        return True

    def _on_turn_context(self, number: int, payload: dict[str, Any]) -> bool:
        self._request_evidence(number, opens_after_model=False)
        return True

    def _on_session(self, number: int, payload: dict[str, Any]) -> bool:
        if self.info.thread_id is not None:
            return False  # a 0.150 fork repeats its parent's session_meta: the first names it
        self.info.thread_id = text_of(payload.get("id")) or ""
        self.info.cli_version = text_of(payload.get("cli_version"))
        self.info.cwd = text_of(payload.get("cwd"))
        self.info.started = parse_time(payload.get("timestamp"))
        self.info.fork = ForkOrigin.from_meta(payload)
        self.info.source, self.info.parent_thread_id = session_source(payload.get("source"))
        if self.info.fork is not None and self._baseline is not None:
            world, note = self._baseline(self.info.fork)
            self.world.adopt(world)
            self.info.fork.baseline_note = note
        return False

    def _tools_recorded(self, line: int, entries: Any) -> None:
        if self._step is not None and self._answered:
            self._open_step(line)
        self._tools.update(tool_groups(entries if isinstance(entries, list) else []))
        self._tool_list = None

    def _context_message(self, line: int, text: str) -> None:
        step = self._request_item(line)
        section = self.world.section()
        block = ContextBlock(text, line, "message", previous=section, current=section)
        step.blocks.append(block)
        self._open_block = block

    def _on_compacted(self, line: int, payload: dict[str, Any]) -> bool:
        has_block, text = replacement_context(payload.get("replacement_history"))
        self._clear_world()
        self._compacted = True
        self._pending = ContextBlock(text, line, "compaction") if has_block else None
        return True

    def _on_world_state(self, line: int, payload: dict[str, Any]) -> bool:
        """A world_state item: the next snapshot, paired with the block it records."""
        change = self.world.read_item(payload, line, self.info.fork)
        if change is None:
            self.info.bad_line(line)
            return True
        previous, current, unchecked = change
        baseline_after_compaction = self._compacted and payload.get("full") is True
        self._compacted = False
        if baseline_after_compaction and (self._open_block is None or self._open_block.paired):
            if self._pending is not None:
                self._pending.current, self._pending.world_state_line = current, line
                self._pending.paired = True
            return True
        step = self._request_evidence(line, opens_after_model=True)
        block = self._open_block
        if block is None or block.paired:
            block = ContextBlock(None, None, "world_state")
            step.blocks.append(block)
        block.previous, block.current = previous, current
        block.world_state_line, block.paired, block.unchecked = line, True, unchecked
        if unchecked is not None:
            step.notes.append(f"context not checked: {unchecked}")
        return True

    def _model_output(self, line: int, payload: dict[str, Any]) -> None:
        if self._step is None or self._after_tool_output:
            self._open_step(line)
        step = self._step
        assert step is not None
        self._take_pending(step)
        if not self._answered:
            step.at = parse_time(self._request_time)
            step.section = self.world.section()
        step.calls.extend(calls_from(payload))
        self._answered = True
        self._after_tool_output = False


_HANDLERS: dict[str, Callable[[RolloutReader, int, dict[str, Any]], bool]] = {
    "response_item": RolloutReader._on_response,
    "event_msg": RolloutReader._on_event,
    "world_state": RolloutReader._on_world_state,
    "turn_context": RolloutReader._on_turn_context,
    "compacted": RolloutReader._on_compacted,
    "session_meta": RolloutReader._on_session,
}
"""The reader's handler for each line type; each says whether its line is request-side
(whether its time dates the next request)."""


HEAD_LINES = 1000
"""Lines of a file read to tell whether it is a rollout: Codex's first line is its
``session_meta``, so a rollout has an item long before this."""


def is_rollout_item(raw: str) -> bool:
    """Whether the line is an item of a type Codex writes."""
    item = parse_item(raw)
    return item is not None and (item.kind in _HANDLERS or item.kind in IGNORED)


def not_a_rollout(lines: Iterable[str], *, head: int = HEAD_LINES) -> str | None:
    """Why ``lines`` (a file's) are no Codex rollout: no item in the first ``head`` lines,
    or none at all (an empty file); None when one of them is an item.

    A README, an ``envtui events`` stream or a random JSON file would otherwise be read as
    a rollout with every line skipped: a check that passes on garbage.
    """
    count = 0
    for count, line in enumerate(lines, start=1):
        if is_rollout_item(line):
            return None
        if count >= head:
            break
    return no_item_reason(count, head=head)


def no_item_reason(lines: int, *, head: int = HEAD_LINES) -> str:
    """What to say of a file whose first ``lines`` lines (all of it, below ``head``) hold
    no rollout item."""
    if lines == 0:
        return "not a Codex rollout: it is empty"
    if lines >= head:
        return f"not a Codex rollout: none of its first {head} lines is a rollout item"
    return "not a Codex rollout: no line is a rollout item"
