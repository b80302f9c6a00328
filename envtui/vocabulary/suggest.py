""" "Did you mean …" for a word typed wrong: a config key, a command, a flag, a binding id.

One rule for all of them (:func:`difflib.get_close_matches`, the nearest one, if near
enough), so every typo reads the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """``did you mean 'x'?`` for the nearest of ``choices``, or None when none is near, or
    when ``word`` is one of them (then it is misplaced, not mistyped)."""
    known = set(choices)
    if word in known:
        return None
    near = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f"did you mean {near[0]!r}?" if near else None
