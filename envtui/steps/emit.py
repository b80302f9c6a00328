"""A captured step as events: the step record, then one event per finding of its check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envtui.steps.capture import StepContext
from envtui.steps.unchecked import CONTEXT_CODES, EXECUTION_CODE, unchecked_codes
from envtui.steps.values import Finding
from envtui.vocabulary.events import (
    LOCAL_ID,
    EnvironmentStatus,
    Event,
    FindingReported,
    LiveState,
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


RECORDED_STATUS: dict[str, LiveState] = {
    "available": "ready",
    "starting": "starting",
    "failed": "unavailable",
}
"""A snapshot's status in the dashboard's words: available is ready, failed unavailable."""


def recorded_statuses(section: Any, step: int) -> dict[str, EnvironmentStatus]:
    """Each environment as a rollout's snapshot recorded it at ``step`` (not a live status).

    The primary is the one the snapshot flags (or the only one, when it is available);
    an entry of a shape Codex does not write is left out.
    """
    entries = section.get("environments") if isinstance(section, dict) else None
    if not isinstance(entries, dict):
        return {}
    statuses: dict[str, EnvironmentStatus] = {}
    for env_id, entry in entries.items():
        raw = entry.get("status") if isinstance(entry, dict) else None
        status = RECORDED_STATUS.get(raw) if isinstance(raw, str) else None
        if status is None or not isinstance(entry, dict):
            continue
        shell, cwd, error = (entry.get(k) for k in ("shell", "cwd", "error"))
        primary = entry.get("is_primary") is True or (len(entries) == 1 and status == "ready")
        statuses[env_id] = EnvironmentStatus(
            environment_id=env_id,
            kind="local" if env_id == LOCAL_ID else "remote",
            status=status,
            primary=primary,
            shell=shell if isinstance(shell, str) else None,
            cwd=cwd if isinstance(cwd, str) else None,
            error=error if isinstance(error, str) and status == "unavailable" else None,
            recorded_step=step,
        )
    return statuses
