"""A captured step as events: the step record, then one event per finding of its check.

(A rollout's steps become events in :mod:`envtui.rollout.emit` through the same record and
finding events, with its recorded table's changes between them.)"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from envtui.steps.capture import StepContext
from envtui.steps.tools import ToolSpec
from envtui.steps.unchecked import CONTEXT_CODES, EXECUTION_CODE, unchecked_codes
from envtui.steps.values import Finding
from envtui.vocabulary.events import (
    Event,
    FindingReported,
    StepRecorded,
    StepTool,
    thread_event,
)
from envtui.vocabulary.incident_messages import VocabularyMessage


def finding_event(finding: Finding) -> FindingReported:
    return FindingReported(**finding.as_fields())


def step_tools(tools: Sequence[ToolSpec]) -> list[StepTool]:
    """The tools a step offered, as its record names them."""
    return [StepTool(name=t.name, environment_id=t.environment_id) for t in tools]


@dataclass(frozen=True)
class StepTexts:
    """What a step's record says of its context: the full render, the block sent (None:
    nothing), the snapshot and its patch against the previous step (None: not known)."""

    text: str | None
    diff: str | None
    snapshot: dict[str, Any] | None
    patch: dict[str, Any] | None = None


def step_record(
    number: int,
    texts: StepTexts,
    *,
    thread: str | None,
    tools: Sequence[ToolSpec] | None,
    notes: list[str],
    unchecked: list[str],
    findings: Sequence[Finding],
) -> StepRecorded:
    """The one place a step's record is built, for a live step and a rollout's alike."""
    return StepRecorded(
        step=number,
        thread=thread,
        text=texts.text,
        diff=texts.diff,
        snapshot=texts.snapshot,
        patch=texts.patch,
        tools=step_tools(tools) if tools is not None else None,
        notes=notes,
        unchecked=unchecked,
        findings=len(findings),
    )


def record_events(
    record: StepRecorded,
    findings: Sequence[Finding],
    at: datetime | None,
    changes: Sequence[VocabularyMessage] = (),
) -> list[Event]:
    """A step's events in their order: its record, the environments table's changes (a
    rollout's recorded table; a live step's statuses come from the environments), then one
    event per finding."""
    events: list[Event] = [thread_event(record, at=at)]
    events += [thread_event(change, at=at) for change in changes]
    events += [thread_event(finding_event(f), at=at) for f in findings]
    return events


def step_events(
    step: StepContext,
    *,
    thread: str | None = None,
    executed: Sequence[Finding] | None = None,
) -> list[Event]:
    """The step's record and its findings, for a live step.

    ``executed`` is the check of where the previous step's calls ran, done just before
    this step was captured (None: no calls ran, so that rule was not evaluated); its
    findings follow this step's own. A live step never compares its context with Codex's.
    """
    findings = [*step.findings, *(executed or ())]
    not_run = [*CONTEXT_CODES, *([EXECUTION_CODE] if executed is None else [])]
    texts = StepTexts(step.full_text, step.diff_text, step.section, step.patch)
    record = step_record(
        step.number,
        texts,
        thread=thread,
        tools=step.tools,
        notes=[note.text for note in step.notes],
        unchecked=unchecked_codes(step.notes, not_run),
        findings=findings,
    )
    return record_events(record, findings, step.at)
