"""A rollout read line by line, each of its steps checked once: the one driver of "read a
rollout, check each step".

``envtui check`` writes what it gives, the follower's events (:mod:`envtui.rollout.emit`)
turn it into events, and a thread's summary
(:mod:`envtui.incidents.thread_summary`) folds it. Each of them used to make its own reader,
pick the profile, build the checker lazily and add the thread's findings and the cut-off
note at the end; all of that is here, once.

The checker is made when the first step needs it, with the profile given or the one the
rollout's ``cli_version`` calls for. It is made again when the rollout names another
profile than the one it was made with, and, for a followed rollout given live connection
events, before each line's steps (its timeline is read when it is made); what the
thread's earlier steps showed (its selection) goes on.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from envtui.rollout.check import RolloutChecker, cut_off_note, thread_findings
from envtui.rollout.reader import RolloutReader
from envtui.rollout.records import RolloutInfo, RolloutStep
from envtui.rollout.settled import SettledSteps
from envtui.rollout.state import BaselineLookup
from envtui.steps.report import StepReport
from envtui.steps.tools import ToolSpec
from envtui.steps.values import Finding
from envtui.vocabulary.profiles import Profile

if TYPE_CHECKING:  # the event models are pydantic, which ``envtui sessions`` does not load
    from envtui.vocabulary.events import Event

ConnectionEvents: TypeAlias = "Callable[[], Sequence[Event]]"
"""The connection events seen so far, for the stale-available rule (a live source's)."""


class CheckedStep(NamedTuple):
    """A step as the reader cut it, and its check."""

    step: RolloutStep
    report: StepReport


@dataclass
class Ending:
    """What the whole thread says once its last step is checked."""

    findings: list[Finding]
    """The thread's own findings (see :func:`~envtui.rollout.check.thread_findings`)."""
    notes: list[str] = field(default_factory=list)
    """Everything a check says about what it could not do or read, the cut-off note last."""
    cut_off: str | None = None
    """What to say of a last turn that was cut off; None when it was not."""
    profile: Profile = Profile.CODEX_0171


class LineChecked(NamedTuple):
    """One line read: the steps it settled, checked, and the broken lines seen with it."""

    checked: list[CheckedStep]
    broken_lines: list[int]


class CheckedSteps:
    """One rollout, line by line; each step comes out once, with its check.

    ``settled``: a step comes out as soon as its context is recorded, not only once it is
    over (what a follower shows; see :mod:`envtui.rollout.settled`). ``events`` are a
    recorded connection stream; ``connection_events`` a live source's, read again before
    each line's steps. ``notes`` are said before the checker's own (a caller's notes on
    what it was given). ``diffs=False``: context mismatches carry no unified diff (for a
    caller that keeps only the findings' codes and messages).
    """

    def __init__(
        self,
        baseline: BaselineLookup | None = None,
        *,
        profile: Profile | None = None,
        events: Sequence[Event] | None = None,
        connection_events: ConnectionEvents | None = None,
        tools: list[ToolSpec] | None = None,
        notes: Sequence[str] = (),
        settled: bool = False,
        diffs: bool = True,
    ) -> None:
        self.reader = RolloutReader(baseline)
        self._diffs = diffs
        self._settled = SettledSteps(self.reader) if settled else None
        self._profile = profile
        self._events = events
        self._connection_events = connection_events
        self._tools = tools
        self._given_notes = list(notes)
        self._profile_note: str | None = None
        self._checker: RolloutChecker | None = None

    @property
    def info(self) -> RolloutInfo:
        """What the file said so far."""
        return self.reader.info

    @property
    def checker(self) -> RolloutChecker | None:
        """The checker once a step needed one (what it holds of the whole thread so far)."""
        return self._checker

    def read_line(self, number: int, text: str) -> list[CheckedStep]:
        """Read line ``number`` (1-based); the steps it completed (or settled), checked."""
        if self._settled is not None:
            return self._checked(self._settled.read_line(number, text))
        return self._checked(list(self.reader.read_line(number, text)))

    def read_line_problems(self, number: int, text: str) -> LineChecked:
        """:meth:`read_line`, with the broken lines found since the last call."""
        checked = self.read_line(number, text)
        broken = self._settled.take_broken() if self._settled is not None else []
        return LineChecked(checked, broken)

    def finish(self) -> list[CheckedStep]:
        """The file ends here (it is not followed): its last step, as it is."""
        if self._settled is not None:
            return self._checked(self._settled.finish())
        return self._checked(self.reader.finish())

    def open_step(self) -> CheckedStep | None:
        """The step still being written, checked as it stands (on a copy of the reader)."""
        steps = copy.deepcopy(self.reader).finish() if self.reader.step_open else []
        return self._checked(steps[-1:])[0] if steps else None

    def ending(self, *, written: bool = False) -> Ending:
        """The thread's findings and the check's notes; ``written``: the file is still being
        written, so a last turn without an end is running, not cut off."""
        checker = self._checker_now(new_line=False)
        info = self.info
        notes = [*([self._profile_note] if self._profile_note else []), *self._given_notes]
        notes += checker.notes(info) + read_notes(info)
        cut_off = None
        if info.last_turn(written=written) == ("interrupted", True):
            cut_off = cut_off_note(info.turns)
            notes.append(cut_off)
        return Ending(thread_findings(checker), notes, cut_off, checker.profile)

    def _checked(self, steps: Sequence[RolloutStep]) -> list[CheckedStep]:
        if not steps:
            return []
        checker = self._checker_now(new_line=True)
        return [CheckedStep(step, checker.check(step)) for step in steps]

    def _checker_now(self, *, new_line: bool) -> RolloutChecker:
        before = self._checker
        profile = self._profile or self.info.default_profile()[0]
        live = new_line and self._connection_events is not None
        if before is not None and not live and before.profile is profile:
            return before
        if before is None and self._profile is None:
            self._profile_note = self.info.default_profile()[1]
        events = self._connection_events() if self._connection_events else self._events
        self._checker = RolloutChecker(profile, events=events, tools=self._tools, diffs=self._diffs)
        if before is not None:  # what the thread's earlier steps showed goes on
            self._checker.selected = before.selected
        return self._checker


def read_notes(info: RolloutInfo) -> list[str]:
    """What a check says of the lines it could not read."""
    notes = []
    if info.bad_line_count:
        notes.append(f"{info.bad_line_count} broken line(s) skipped: {info.bad_lines[:10]}")
    if info.unknown_items:
        count = sum(info.unknown_items.values())
        notes.append(f"{count} unknown item(s) skipped: {', '.join(sorted(info.unknown_items))}")
    return notes
