"""A rollout read line by line as the events a source emits: each step once it is settled,
checked, then its record, the environments table it recorded, and its findings, in that
order (what envtui's own engine emits for a live step).

The table is the step's snapshot as recorded, not a live status: each environment is
emitted when it first appears or changes, and removed when a later snapshot no longer
names it, so a followed rollout sends only what changed. Reading the file (bytes, offsets,
a file that was replaced) is the source's business; this is everything after a line.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from envtui.rollout.checked import CheckedStep, CheckedSteps, ConnectionEvents
from envtui.rollout.recorded import recorded_environments
from envtui.rollout.records import RolloutStep
from envtui.rollout.state import BaselineLookup
from envtui.steps.emit import StepTexts, finding_event, record_events, step_record
from envtui.steps.report import StepReport
from envtui.vocabulary.events import (
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    WarningMessage,
    thread_event,
)
from envtui.vocabulary.profiles import Profile


class LineEvents(NamedTuple):
    """One line's events, and the numbers of the broken lines read with it (for the source
    to warn about, in its own words)."""

    events: list[Event]
    broken_lines: list[int]


class RolloutEvents:
    """One rollout, line by line, into events; a settled step comes out once, checked."""

    def __init__(
        self,
        baseline: BaselineLookup | None = None,
        *,
        profile: Profile | None = None,
        connection_events: ConnectionEvents | None = None,
    ) -> None:
        """``profile`` None: the one the rollout's ``cli_version`` calls for."""
        self.steps = CheckedSteps(
            baseline, profile=profile, connection_events=connection_events, settled=True
        )
        self._table = RecordedTable()

    def read_line(self, number: int, text: str) -> LineEvents:
        """Read line ``number``; the events of the steps it settled, and its broken lines."""
        checked, broken = self.steps.read_line_problems(number, text)
        return LineEvents(self._events(checked), broken)

    def finish(self) -> list[Event]:
        """The file ends here (it is not followed): its last step, as it is, then the
        findings of the whole thread (see :func:`~envtui.rollout.check.thread_findings`)."""
        events = self._events(self.steps.finish())
        ending = self.steps.ending(written=False)
        events += [thread_event(finding_event(f), at=None) for f in ending.findings]
        if ending.cut_off is not None:
            notice = WarningMessage(message=ending.cut_off, severity="info")
            events.append(thread_event(notice, at=None))
        return events

    def _events(self, checked: list[CheckedStep]) -> list[Event]:
        thread = self.steps.info.thread_id
        events: list[Event] = []
        for step, report in checked:
            events += self._table.step_events(step, report, thread)
        return events


class RecordedTable:
    """The environments the last emitted step recorded, to emit only what changed."""

    def __init__(self) -> None:
        self.shown: dict[str, EnvironmentStatus] = {}

    def step_events(self, step: RolloutStep, report: StepReport, thread: str | None) -> list[Event]:
        """The step's record, the table's changes, then one event per finding."""
        record = step_record(
            step.number,
            StepTexts(report.full_text, step.context_text, step.section),
            thread=thread,
            tools=step.tools,
            notes=report.notes,
            unchecked=sorted(report.unchecked),
            findings=report.findings,
        )
        return record_events(record, report.findings, step.at, self._changes(step))

    def _changes(self, step: RolloutStep) -> list[EnvironmentStatus | EnvironmentRemoved]:
        current = recorded_statuses(step.section, step.number)
        changes: list[EnvironmentStatus | EnvironmentRemoved] = []
        for env_id in [e for e in self.shown if e not in current]:
            del self.shown[env_id]
            changes.append(EnvironmentRemoved(environment_id=env_id))
        for env_id, status in current.items():
            before = self.shown.get(env_id)
            if before is None or before.model_copy(update={"recorded_step": step.number}) != status:
                changes.append(status)
            self.shown[env_id] = status
        return changes


def recorded_statuses(section: Any, step: int) -> dict[str, EnvironmentStatus]:
    """Each environment as a rollout's snapshot recorded it at ``step`` (not a live status),
    as the message the dashboard's table takes."""
    return {
        env_id: EnvironmentStatus(**env.as_fields(), recorded_step=step)
        for env_id, env in recorded_environments(section).items()
    }
