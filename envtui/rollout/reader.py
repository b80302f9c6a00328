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
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from envtui.rollout.items import (
    calls_from,
    parse_time,
    replacement_context,
    text_of,
    version_tuple,
)
from envtui.rollout.lines import dispatch
from envtui.rollout.state import BaselineLookup, ForkOrigin, WorldReplay
from envtui.steps.tools import ToolSpec, tool_groups
from envtui.steps.values import ToolCall
from envtui.vocabulary.profiles import Profile

KEPT_LINE_NUMBERS = 20
"""How many broken or unknown lines are named by number; the rest are only counted."""

BlockSource = Literal["message", "compaction", "world_state"]


@dataclass
class ContextBlock:
    """One block the model was (or was not) sent, and the snapshots it was diffed between.

    ``previous`` None is Codex's ``Absent``/``Unknown``: the block is a full restatement.
    ``current`` is the section the block states; ``paired`` says whether a ``world_state``
    item of its own recorded it (a message without one restates an unchanged state).
    """

    text: str | None
    line: int | None
    source: BlockSource
    previous: Any = None
    current: Any = None
    world_state_line: int | None = None
    paired: bool = False
    unchecked: str | None = None


@dataclass
class RolloutStep:
    number: int
    turn: int
    first_line: int
    at: datetime | None = None  # when the request was sent
    blocks: list[ContextBlock] = field(default_factory=list)
    section: Any = None  # the environments snapshot at the request
    tools: list[ToolSpec] | None = None
    calls: list[ToolCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    complete: bool = False  # a later step or the end of its turn follows it in the file

    @property
    def context_text(self) -> str | None:
        """The last block Codex sent at this step (the one the model read last)."""
        return next((b.text for b in reversed(self.blocks) if b.text is not None), None)

    @property
    def world_state_line(self) -> int | None:
        return next((b.world_state_line for b in reversed(self.blocks) if b.paired), None)


@dataclass
class RolloutInfo:
    """What the whole file says: its identity, and what could not be read (bounded)."""

    lines: int = 0
    bad_line_count: int = 0
    bad_lines: list[int] = field(default_factory=list)  # the first KEPT_LINE_NUMBERS
    unknown_items: Counter[str] = field(default_factory=Counter)
    turns_without_step: int = 0
    steps: int = 0
    cli_version: str | None = None
    thread_id: str | None = None
    fork: ForkOrigin | None = None
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.notes and len(self.notes) < KEPT_LINE_NUMBERS:
            self.notes.append(text)

    def bad_line(self, number: int) -> None:
        self.bad_line_count += 1
        if len(self.bad_lines) < KEPT_LINE_NUMBERS:
            self.bad_lines.append(number)

    def default_profile(self) -> tuple[Profile, str | None]:
        """0.171 or later → codex-0.171; earlier → codex-0.150; unknown → codex-0.171, noted."""
        version = version_tuple(self.cli_version)
        if version is None:
            return Profile.CODEX_0171, "no cli_version recorded: checked as codex-0.171"
        return (Profile.CODEX_0171 if version >= (0, 171) else Profile.CODEX_0150), None

    def summary(self, profile: Profile) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "bad_lines": self.bad_lines,
            "unknown_items": sum(self.unknown_items.values()),
            "turns_without_step": self.turns_without_step,
            "cli_version": self.cli_version,
            "profile": profile.value,
        }


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
        self._request_time: str | None = None
        self._turn = 0
        self._turn_steps = 0
        self._in_turn = False
        self._done: list[RolloutStep] = []

    def feed(self, number: int, raw: str) -> Sequence[RolloutStep]:
        """Read line ``number``; the steps it completed (usually none, at most two)."""
        self.info.lines = number
        dispatch(self, number, raw)
        if not self._done:
            return ()
        done, self._done = self._done, []
        return done

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
        self.end_turn(complete=False)
        done, self._done = self._done, []
        return done

    # --- steps ------------------------------------------------------------------------------

    def open_step(self, line: int) -> RolloutStep:
        self.close_step()
        self.info.steps += 1
        self._step = RolloutStep(self.info.steps, self._turn, line)
        self._sent = self._answered = self._after_tool_output = False
        self._turn_steps += 1
        return self._step

    def close_step(self, *, complete: bool = True) -> None:
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

    def request_evidence(self, line: int, *, opens_after_model: bool) -> RolloutStep:
        """A sign of a model request; after the model has answered in this step, a new step."""
        if self._step is None or (opens_after_model and self._answered):
            return self.open_step(line)
        return self._step

    def _request_item(self, line: int) -> RolloutStep:
        """Something the next request carries: its step, which takes any pending block."""
        step = self.request_evidence(line, opens_after_model=True)
        self._sent = True
        self._take_pending(step)
        return step

    def _take_pending(self, step: RolloutStep) -> None:
        if self._pending is not None and self._pending.paired:
            step.blocks.insert(0, self._pending)  # in the history, before what is appended
            self._pending = None

    def start_turn(self) -> None:
        self.end_turn()
        self._turn += 1
        self._turn_steps = 0
        self._in_turn = True

    def end_turn(self, *, complete: bool = True) -> None:
        self.close_step(complete=complete)
        if self._in_turn and self._turn_steps == 0:
            self.info.turns_without_step += 1
        self._in_turn = False

    # --- what the line handlers call --------------------------------------------------------

    def seen_request_side(self, timestamp: str | None) -> None:
        """A request-side item was recorded at ``timestamp``: the request is not before it."""
        if timestamp is not None:
            self._request_time = timestamp

    def session(self, payload: dict[str, Any]) -> None:
        if self.info.thread_id is not None:
            return  # a 0.150 fork repeats its parent's session_meta: the first one names it
        self.info.thread_id = text_of(payload.get("id")) or ""
        self.info.cli_version = text_of(payload.get("cli_version"))
        self.info.fork = ForkOrigin.from_meta(payload)
        if self.info.fork is not None and self._baseline is not None:
            world, note = self._baseline(self.info.fork)
            self.world.adopt(world)
            self.info.fork.baseline_note = note

    def tools_recorded(self, line: int, entries: Any) -> None:
        if self._step is not None and self._answered:
            self.open_step(line)
        self._tools.update(tool_groups(entries if isinstance(entries, list) else []))
        self._tool_list = None

    def context_message(self, line: int, text: str) -> None:
        step = self._request_item(line)
        section = self.world.section()
        block = ContextBlock(text, line, "message", previous=section, current=section)
        step.blocks.append(block)
        self._open_block = block

    def user_message(self, line: int) -> None:
        self._request_item(line)

    def tool_output(self) -> None:
        self._after_tool_output = True

    def compacted(self, line: int, payload: dict[str, Any]) -> None:
        has_block, text = replacement_context(payload.get("replacement_history"))
        self.world.reset()
        self._compacted = True
        self._pending = ContextBlock(text, line, "compaction") if has_block else None

    def world_state(self, line: int, payload: dict[str, Any]) -> None:
        """A world_state item: the next snapshot, paired with the block it records."""
        change = self.world.apply(payload, line, self.info.fork)
        if change is None:
            self.info.bad_line(line)
            return
        previous, current, unchecked = change
        baseline_after_compaction = self._compacted and payload.get("full") is True
        self._compacted = False
        if baseline_after_compaction and (self._open_block is None or self._open_block.paired):
            if self._pending is not None:
                self._pending.current, self._pending.world_state_line = current, line
                self._pending.paired = True
            return
        step = self.request_evidence(line, opens_after_model=True)
        block = self._open_block
        if block is None or block.paired:
            block = ContextBlock(None, None, "world_state")
            step.blocks.append(block)
        block.previous, block.current = previous, current
        block.world_state_line, block.paired, block.unchecked = line, True, unchecked
        if unchecked is not None:
            step.notes.append(f"context not checked: {unchecked}")

    def model_output(self, line: int, payload: dict[str, Any]) -> None:
        if self._step is None or self._after_tool_output:
            self.open_step(line)
        step = self._step
        assert step is not None
        self._take_pending(step)
        if not self._answered:
            step.at = parse_time(self._request_time)
            step.section = self.world.section()
        step.calls.extend(calls_from(payload))
        self._answered = True
        self._after_tool_output = False


@dataclass
class Rollout:
    """A whole rollout read at once: its info and every step (for callers that keep them)."""

    info: RolloutInfo
    steps: list[RolloutStep]

    @property
    def thread_id(self) -> str | None:
        return self.info.thread_id

    @property
    def bad_lines(self) -> list[int]:
        return self.info.bad_lines

    @property
    def lines(self) -> int:
        return self.info.lines

    def default_profile(self) -> tuple[Profile, str | None]:
        return self.info.default_profile()


def read_rollout_lines(lines: Iterable[str], *, baseline: BaselineLookup | None = None) -> Rollout:
    """Every step of ``lines``; the last one is not known complete (the file may grow)."""
    reader = RolloutReader(baseline)
    steps: list[RolloutStep] = []
    for number, line in enumerate(lines, start=1):
        steps += reader.feed(number, line)
    steps += reader.finish()
    return Rollout(reader.info, steps)


def read_rollout(path: Path, *, baseline: BaselineLookup | None = None) -> Rollout:
    """Read a rollout file; raises OSError when it cannot be read at all."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        return read_rollout_lines(handle, baseline=baseline)
