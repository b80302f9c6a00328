"""Reconnect backoff: doubling, capped, jittered, reset after success."""

from __future__ import annotations

import pytest

from envtui.environments.backoff import Backoff


def test_doubles_up_to_the_cap_with_jitter_in_the_upper_half() -> None:
    low = Backoff(1, 60, rng=lambda: 0.0)
    high = Backoff(1, 60, rng=lambda: 1.0)
    assert [low.next_delay() for _ in range(8)] == [0.5, 1, 2, 4, 8, 16, 30, 30]
    assert [high.next_delay() for _ in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]


def test_reset_starts_again_from_the_initial_delay() -> None:
    backoff = Backoff(1, 60, rng=lambda: 1.0)
    for _ in range(5):
        backoff.next_delay()
    backoff.reset()
    assert backoff.next_delay() == 1


def test_real_jitter_stays_in_bounds() -> None:
    backoff = Backoff(0.2, 3)
    for _ in range(50):
        base = backoff.base()
        assert base / 2 <= backoff.next_delay() <= base


def test_rejects_nonsense_bounds() -> None:
    with pytest.raises(ValueError, match="backoff"):
        Backoff(5, 1)
