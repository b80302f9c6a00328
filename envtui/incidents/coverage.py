"""Whether a step's coverage lets an incident resolve: a condition goes away only when a
later step evaluated its rule and did not raise it.

A step lists the finding codes it could not evaluate (:mod:`envtui.steps.unchecked`); a
step that skipped a rule says nothing about that rule's incidents, which stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterable

from envtui.steps.rules import THREAD_CODES


def evaluated(code: str, unchecked: Iterable[str] | None) -> bool:
    """Whether a step with these ``unchecked`` codes evaluated ``code``'s rule.

    A finding of the whole thread (``selected-never-resolved``) is never evaluated per
    step. ``unchecked`` None is a step recorded before steps said so: read as every per-step
    rule having run, which is what envtui's own steps did then.
    """
    if code in THREAD_CODES:
        return False
    return unchecked is None or code not in unchecked
