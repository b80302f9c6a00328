"""What a check says: per step (its findings, notes, the rules it could not run) and in all.

One shape for both checks: a rollout's steps checked against Codex's own render and the
rules, and envtui's own engine's steps (``envtui check`` without a rollout). A step's
report also keeps the snapshot it was checked on, so whoever shows the step renders its
full text from that (once, and only when asked) instead of restoring the snapshot again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from envtui.context.model import EnvironmentsState
from envtui.context.render import render_full
from envtui.steps.values import Finding


@dataclass
class StepReport:
    number: int
    turn: int
    line: int | None
    context: str | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unchecked: set[str] = field(default_factory=set)
    """The finding codes whose rules could not run at this step (see ``steps.unchecked``)."""
    state: EnvironmentsState | None = field(default=None, repr=False, compare=False)
    """The environments snapshot the rules ran on (None: none was recorded or restorable)."""

    @cached_property
    def full_text(self) -> str | None:
        """Everything the model knows at the step: the full render of its snapshot."""
        return render_full(self.state) if self.state is not None else None

    def as_json(self) -> dict[str, Any]:
        return {
            "step": self.number,
            "turn": self.turn,
            "line": self.line,
            "context": self.context,
            "findings": [f.code for f in self.findings],
            "notes": self.notes,
        }


@dataclass
class CheckReport:
    steps: list[StepReport]
    findings: list[Finding]
    notes: list[str]
    rollout: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "steps": [s.as_json() for s in self.steps],
            "findings": [f.as_json() for f in self.findings],
            "notes": self.notes,
        }
        if self.rollout is not None:
            data["rollout"] = self.rollout
        return data
