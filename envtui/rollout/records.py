"""What the rollout reader hands back: the steps it cut, their blocks, and the file's info.

Plain values with no reading logic, so that the check, the follower and the sessions view
can hold them without the reader that made them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from envtui.rollout.items import version_tuple
from envtui.rollout.state import ForkOrigin
from envtui.steps.tools import ToolSpec
from envtui.steps.values import ToolCall
from envtui.vocabulary.profiles import Profile

KEPT_LINE_NUMBERS = 20
"""How many broken or unknown lines are named by number; the rest are only counted."""

BlockSource = Literal["message", "compaction", "world_state"]
TurnEnd = Literal["completed", "interrupted"]
TurnState = Literal["completed", "interrupted", "running"]


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
    items: int = 0
    """Lines that are items of a type Codex writes (a file without one is no rollout)."""
    bad_line_count: int = 0
    bad_lines: list[int] = field(default_factory=list)  # the first KEPT_LINE_NUMBERS
    unknown_items: Counter[str] = field(default_factory=Counter)
    turns_without_step: int = 0
    steps: int = 0
    cli_version: str | None = None
    thread_id: str | None = None
    cwd: str | None = None  # the session_meta's
    started: datetime | None = None  # the session_meta's timestamp
    turns: int = 0  # turn starts read (a skipped part of a file is not counted here)
    fork: ForkOrigin | None = None
    source: str | None = None  # who started the thread: cli, vscode, exec, subagent, …
    parent_thread_id: str | None = None  # a sub-agent's parent, from its session_meta source
    notes: list[str] = field(default_factory=list)
    turn_end: TurnEnd | None = None
    """How the last turn read ended (``task_complete``, ``turn_aborted``); None while it has
    no end in the file, or before any turn."""

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

    def last_turn(self, *, written: bool) -> tuple[TurnState, bool] | None:
        """The last turn's state, and whether it was cut off; None before any turn.

        A turn with no end in the file is running while the file is still ``written``;
        once nothing writes it, it was cut off: the app-server was killed (SIGKILL, or
        SIGTERM for 0.150) before it could write ``turn_aborted``. Codex itself calls such a
        turn interrupted when the thread is resumed, and so does envtui.
        """
        if not self.turns:
            return None
        if self.turn_end is not None:
            return self.turn_end, False
        return ("running", False) if written else ("interrupted", True)

    def summary(self, profile: Profile, *, written: bool = False) -> dict[str, Any]:
        """The rollout in a few values; ``written``: the file is still being written (its
        last turn, if it has no end yet, is running rather than cut off)."""
        turn = self.last_turn(written=written)
        return {
            "lines": self.lines,
            "bad_lines": self.bad_lines,
            "unknown_items": sum(self.unknown_items.values()),
            "turns_without_step": self.turns_without_step,
            "cli_version": self.cli_version,
            "profile": profile.value,
            "last_turn": turn[0] if turn is not None else None,
            "last_turn_cut_off": turn[1] if turn is not None else False,
        }
