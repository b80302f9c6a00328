"""A captured step as events: the step record, then one event per finding."""

from __future__ import annotations

from envtui.events import Event, FindingReported, StepRecorded, StepTool, thread_event
from envtui.steps.capture import StepContext
from envtui.steps.model import Finding


def finding_event(finding: Finding) -> FindingReported:
    return FindingReported(
        code=finding.code,
        severity=finding.severity,
        step=finding.step,
        tool=finding.tool,
        environment_id=finding.environment_id,
        message=finding.message,
    )


def step_events(step: StepContext, *, thread: str | None = None) -> list[Event]:
    record = StepRecorded(
        step=step.number,
        thread=thread,
        text=step.full_text,
        diff=step.diff_text,
        snapshot=step.section,
        patch=step.patch,
        tools=[StepTool(name=t.name, environment_id=t.environment_id) for t in step.tools],
        notes=[note.text for note in step.notes],
    )
    events = [thread_event(record, at=step.at)]
    events += [thread_event(finding_event(f), at=step.at) for f in step.findings]
    return events
