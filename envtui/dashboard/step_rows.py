"""A step as the dashboard keeps it, and as it exports it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from envtui.vocabulary.events import FindingReported


@dataclass
class StepRow:
    """One step as the dashboard keeps it: the store's row for a ``StepRecorded`` event.

    ``tools`` is flattened to ``(name, environment_id parameter)`` pairs, which is all the
    tools panel draws; ``findings`` collects the step's findings as they arrive.
    """

    number: int
    at: datetime | None
    thread: str | None
    text: str | None
    diff: str | None
    snapshot: dict[str, Any] | None
    patch: dict[str, Any] | None
    tools: list[tuple[str, str]] | None
    notes: list[str]
    findings: list[FindingReported] = field(default_factory=list)

    @property
    def current_date(self) -> str | None:
        value = (self.snapshot or {}).get("current_date")
        return value if isinstance(value, str) else None

    @property
    def timezone(self) -> str | None:
        value = (self.snapshot or {}).get("timezone")
        return value if isinstance(value, str) else None


def step_export(step: StepRow) -> dict[str, Any]:
    """A step as the dashboard exports it: JSON-ready, the tools as objects again.

    Pure, so the export's content is tested without a screen; the screen writes the file.
    """
    return {
        "step": step.number,
        "thread": step.thread,
        "context": step.text,
        "diff": step.diff,
        "snapshot": step.snapshot,
        "patch": step.patch,
        "tools": [{"name": name, "environment_id": parameter} for name, parameter in step.tools]
        if step.tools is not None
        else None,
        "findings": [finding.model_dump(mode="json") for finding in step.findings],
    }
