"""The one adapter between a followed rollout and the rollout reader: lines in, settled steps out.

A follower feeds each new complete line once and gets back the steps that became settled
with it (their context recorded, or closed by a later step or the end of their turn), each
exactly once, numbered from 1 across the whole file. Only those new steps are then
checked; nothing already read is read, cut into steps or checked again.

It drives the reader's line-by-line ``_Reader.feed`` and keeps the reader's memory bounded
by handing on the steps it has closed: the reader numbers a new step by the length of its
list, so the list is emptied and the open step renumbered to match, and the numbers given
out stay the file's own. This is the only module that knows those internals; a reader
that itself streams steps replaces the body of :class:`RolloutSteps`, not its callers.
"""

from __future__ import annotations

import dataclasses

from envtui.profiles import Profile
from envtui.steps.rollout import RolloutStep, _Reader


class RolloutSteps:
    """One rollout file, read incrementally; steps come out once each, settled."""

    def __init__(self) -> None:
        self._reader = _Reader()
        self._handed_on = 0  # closed steps taken out of the reader's list so far
        self._last = 0  # the number of the last step given out

    @property
    def thread_id(self) -> str | None:
        return self._reader.rollout.thread_id

    def profile(self) -> Profile:
        """The profile the recorded ``cli_version`` calls for (codex-0.171 when unknown)."""
        return self._reader.rollout.default_profile()[0]

    def feed(self, number: int, text: str) -> list[RolloutStep]:
        """Read line ``number`` (1-based); the steps that are settled now and were not before."""
        self._reader.feed(number, text)
        return self._take(include_open=True)

    def finish(self) -> list[RolloutStep]:
        """The file ends here (it is not followed): its last step is given out as it is."""
        self._reader.end_turn(complete=False)
        return self._take(include_open=False)

    def take_problems(self) -> tuple[list[int], list[str]]:
        """The lines that were not JSON and the reader's notes, since the last call."""
        rollout = self._reader.rollout
        bad, notes = list(rollout.bad_lines), list(rollout.notes)
        rollout.bad_lines.clear()
        rollout.notes.clear()
        rollout.unknown_items.clear()  # counted nowhere while following: not kept either
        return bad, notes

    @property
    def has_problems(self) -> bool:
        rollout = self._reader.rollout
        return bool(rollout.bad_lines or rollout.notes or rollout.unknown_items)

    def _take(self, *, include_open: bool) -> list[RolloutStep]:
        reader = self._reader
        closed = reader.rollout.steps
        step = reader.step
        if not closed and (step is None or step.world_state_line is None or not include_open):
            return []  # most lines: nothing closed, nothing newly settled
        out = [self._given(step) for step in closed if step.number + self._handed_on > self._last]
        self._last = max([self._last, *(s.number for s in out)])
        self._handed_on += len(closed)
        if reader.step is not None:
            reader.step.number -= len(closed)  # the reader counts from its (now empty) list
        closed.clear()
        if (
            include_open
            and step is not None
            and step.world_state_line is not None
            and step.number + self._handed_on > self._last
        ):
            # Shown once its context is recorded, with the tools offered so far, as a whole
            # re-read of the file would show it at this point.
            out.append(self._given(step, tools_now=True))
            self._last = out[-1].number
        return out

    def _given(self, step: RolloutStep, *, tools_now: bool = False) -> RolloutStep:
        return dataclasses.replace(
            step,
            number=step.number + self._handed_on,
            calls=list(step.calls),
            tools=self._reader.current_tools() if tools_now else step.tools,
        )
