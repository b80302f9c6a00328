"""A followed rollout's steps, each given out once, as soon as it is settled.

A follower feeds each new complete line once and gets back the steps that became settled
with it, each exactly once: a step is settled when its context is recorded (its
``world_state`` paired with the block the model was sent) or when it is over (a later step
or the end of its turn follows it). Only those new steps are then checked; nothing already
read is read, cut into steps or checked again.

The streaming :class:`~envtui.rollout.reader.RolloutReader` hands back each step once it is
over; a step whose context is recorded but whose model is still answering is taken with
:meth:`~envtui.rollout.reader.RolloutReader.peek`, as a whole re-read of the file would show
it at that moment, and is not given out again when it closes.
"""

from __future__ import annotations

from collections.abc import Iterable

from envtui.rollout.reader import RolloutReader
from envtui.rollout.records import RolloutStep


class SettledSteps:
    """One rollout file's reader, read incrementally; steps come out once each, settled."""

    def __init__(self, reader: RolloutReader) -> None:
        self._reader = reader
        self._last = 0  # the number of the last step given out
        self._bad_seen = 0  # broken lines already reported

    def read_line(self, number: int, text: str) -> list[RolloutStep]:
        """Read line ``number`` (1-based); the steps that are settled now and were not before."""
        out = self._new(self._reader.read_line(number, text))
        open_step = self._reader.peek() if self._reader.step_open else None
        if open_step is not None and open_step.world_state_line is not None:
            out += self._new([open_step])
        return out

    def finish(self) -> list[RolloutStep]:
        """The file ends here (it is not followed): its last step is given out as it is."""
        return self._new(self._reader.finish())

    def take_broken(self) -> list[int]:
        """The broken lines (their numbers, as far as the reader keeps them) since the last
        call."""
        bad = self._reader.info.bad_lines[self._bad_seen :]
        self._bad_seen += len(bad)
        return bad

    def _new(self, steps: Iterable[RolloutStep]) -> list[RolloutStep]:
        fresh = [s for s in steps if s.number > self._last]
        if fresh:
            self._last = fresh[-1].number
        return fresh
