"""Which rules a step could not run: the finding codes it can neither raise nor clear.

A step says which rules it did *not* evaluate (``StepRecorded.unchecked``), so that a rule
that was skipped (no tool list, no connection state, no snapshot) is never taken for a
condition that went away (:mod:`envtui.incidents.coverage` reads it that way). The rules
say why they skipped with a typed :class:`~envtui.steps.values.Note`; this module is the
one table from those note codes to the finding codes they silence.
"""

from __future__ import annotations

from collections.abc import Iterable

from envtui.steps.rules import CALL_CODES, TOOL_CODES
from envtui.steps.values import Note, NoteCode

ENVIRONMENT_ID_CODES = frozenset({"missing-environment-id", "unexpected-environment-id"})
CONTEXT_CODES = frozenset({"context-mismatch"})
RULE_CODES = TOOL_CODES | CALL_CODES | {"stale-available", "primary-mismatch"}
"""Every code the per-step rules raise (the context check and the thread's aside)."""

SILENCED_BY: dict[NoteCode, frozenset[str]] = {
    "tool-rules-skipped": TOOL_CODES,
    "stale-available-unchecked": frozenset({"stale-available"}),
    "tool-parameter-unknown": ENVIRONMENT_ID_CODES,
    "rules-not-run": RULE_CODES,
    "context-unchecked": CONTEXT_CODES,
}
"""The finding codes a step cannot evaluate when one of its rules adds this note."""

EXECUTION_CODE = "execution-routed-elsewhere"
"""Known only once a step's calls ran somewhere: a rollout never records where, and a
live step's calls run after the step is recorded (its next step carries that check)."""


def unchecked_codes(notes: Iterable[Note], *also: Iterable[str]) -> list[str]:
    """The sorted finding codes the notes silence, with ``also`` (codes a source knows it
    never evaluates, such as where calls ran)."""
    codes: set[str] = set()
    for note in notes:
        codes |= SILENCED_BY.get(note.code, frozenset())
    for more in also:
        codes.update(more)
    return sorted(codes)
