"""The plain words of the vocabulary: reserved ids, the states an environment, a
connection, a finding and a source can be in, and how long something lasted in words.

Kept apart from :mod:`envtui.vocabulary.events` (pydantic models) so that the turn logic
that only names these (selection, the rules, the incident fold) is imported without
pydantic: ``envtui sessions`` indexes a tree without building a single event model.
"""

from __future__ import annotations

from typing import Literal

THREAD_EVENT_ID = ""
"""The ``id`` of thread-level events such as connection changes: no submission caused them."""

LOCAL_ID = "local"
"""The id Codex reserves for the built-in local environment."""

LiveState = Literal["starting", "ready", "unavailable"]
ConnectionState = Literal["connected", "disconnected"]
"""A remote environment's connection, as the latest connection event left it."""
Severity = Literal["info", "warning", "error"]
SourceState = Literal["up", "down", "restarting", "ended"]
"""A source's own state: producing events, stopped with a reason, being restarted, or done
(a replay or a rollout read to its end)."""


DURATION_UNITS = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))
"""The units a duration is said in, the largest first, with their length in seconds."""


def duration_words(seconds: float, *, brief: bool = False) -> str:
    """How long ``seconds`` is, in its two largest whole units (``45 s``, ``3 min 20 s``,
    ``2 h 5 min``, ``1 d 3 h``), a second unit of 0 left out (``3 min``, ``2 h``); ``brief``
    keeps the largest alone, for a column that must stay narrow (``2 h ago``). Less than 0
    is ``0 s``.

    The one way every part says a duration (how long ago, how long an incident lasted or a
    request waited, what a folded log line spans), so the same time reads the same.
    """
    size = max(0, int(seconds))
    index = 0
    while size < DURATION_UNITS[index][1] and index < len(DURATION_UNITS) - 1:
        index += 1
    unit, length = DURATION_UNITS[index]
    amount, rest = divmod(size, length)
    if brief or length == 1:
        return f"{amount} {unit}"
    finer, finer_length = DURATION_UNITS[index + 1]
    part = rest // finer_length
    return f"{amount} {unit} {part} {finer}" if part else f"{amount} {unit}"
