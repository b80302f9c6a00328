"""Capped exponential backoff with jitter, for reconnecting to remote environments.

Every failed attempt doubles the base delay up to the cap; the delay actually waited is
drawn from the upper half of it ("equal jitter"), so hosts that failed together do not
all retry at the same instant, and no retry comes sooner than half the base.
"""

from __future__ import annotations

import random
from collections.abc import Callable


class Backoff:
    def __init__(
        self,
        initial: float = 1.0,
        maximum: float = 60.0,
        *,
        rng: Callable[[], float] = random.random,
    ) -> None:
        if initial <= 0 or maximum < initial:
            raise ValueError("backoff needs 0 < initial <= maximum")
        self.initial = initial
        self.maximum = maximum
        self._rng = rng
        self.attempt = 0

    def base(self) -> float:
        """The capped delay for the current attempt, before jitter."""
        return min(self.maximum, self.initial * 2.0 ** min(self.attempt, 64))

    def next_delay(self) -> float:
        base = self.base()
        self.attempt += 1
        return base / 2 + self._rng() * base / 2

    def reset(self) -> None:
        """A successful connection starts the next failure series from the initial delay."""
        self.attempt = 0
