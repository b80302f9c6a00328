"""A captured step as events: the step record, then one event per finding of its check.

(A rollout's steps become events in :mod:`envtui.rollout.emit`, with the same finding
events.)"""

from __future__ import annotations

from collections.abc import Sequence

from envtui.steps.capture import StepContext
from envtui.steps.unchecked import CONTEXT_CODES, EXECUTION_CODE, unchecked_codes
from envtui.steps.values import Finding
from envtui.vocabulary.events import (
    Event,
    FindingReported,
    StepRecorded,
    StepTool,
    thread_event,
)


def finding_event(finding: Finding) -> FindingReported:
    return FindingReported(
        code=finding.code,
        severity=finding.severity,
        step=finding.step,
        tool=finding.tool,
        environment_id=finding.environment_id,
        message=finding.message,
    )


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
    record = StepRecorded(
        step=step.number,
        thread=thread,
        text=step.full_text,
        diff=step.diff_text,
        snapshot=step.section,
        patch=step.patch,
        tools=[StepTool(name=t.name, environment_id=t.environment_id) for t in step.tools],
        notes=[note.text for note in step.notes],
        unchecked=unchecked_codes(step.notes, not_run),
        findings=len(findings),
    )
    events = [thread_event(record, at=step.at)]
    events += [thread_event(finding_event(f), at=step.at) for f in findings]
    return events
