"""A rollout read line by line as the events a source emits: each step once it is settled,
checked, then its record, the environments table it recorded, and its findings, in that
order (what envtui's own engine emits for a live step).

The table is the step's snapshot as recorded, not a live status: each environment is
emitted when it first appears or changes, and removed when a later snapshot no longer
names it, so a followed rollout sends only what changed. Reading the file (bytes, offsets,
a file that was replaced) is the source's business; this is everything after a line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from envtui.rollout.check import RolloutChecker, cut_off_note, thread_findings
from envtui.rollout.recorded import recorded_environments
from envtui.rollout.records import RolloutStep
from envtui.rollout.settled import SettledSteps
from envtui.rollout.state import BaselineLookup
from envtui.steps.emit import finding_event, record_events, step_tools
from envtui.steps.report import StepReport
from envtui.vocabulary.events import (
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    StepRecorded,
    WarningMessage,
    thread_event,
)
from envtui.vocabulary.profiles import Profile

ConnectionEvents = Callable[[], Sequence[Event]]
"""The connection events seen so far, for the stale-available rule (a live source's)."""


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
        self.steps = SettledSteps(baseline)
        self._profile = profile
        self._connection_events = connection_events
        self._table = RecordedTable()
        self._checker: RolloutChecker | None = None

    def read_line(self, number: int, text: str) -> list[Event]:
        """Read line ``number``; the events of the steps it settled."""
        return self._events(self.steps.read_line(number, text))

    def finish(self) -> list[Event]:
        """The file ends here (it is not followed): its last step, as it is, then the
        findings of the whole thread (see :func:`~envtui.rollout.check.thread_findings`)."""
        events = self._events(self.steps.finish())
        found = thread_findings(self._checker) if self._checker is not None else []
        events += [thread_event(finding_event(f), at=None) for f in found]
        info = self.steps.info
        if info.last_turn(written=False) == ("interrupted", True):
            notice = WarningMessage(message=cut_off_note(info.turns), severity="info")
            events.append(thread_event(notice, at=None))
        return events

    def _events(self, steps: list[RolloutStep]) -> list[Event]:
        if not steps:
            return []
        checker = self._checker_now()
        events: list[Event] = []
        for step in steps:
            report = checker.check(step)
            events += self._table.step_events(step, report, self.steps.thread_id)
        return events

    def _checker_now(self) -> RolloutChecker:
        """The checker, made again when there are new connection events to date steps by
        (its timeline is read at the start) or the rollout named its profile."""
        profile = self._profile or self.steps.profile()
        if self._connection_events is not None:
            before = self._checker
            self._checker = RolloutChecker(profile, events=self._connection_events())
            if before is not None:  # what the thread's earlier steps showed goes on
                self._checker.selected = before.selected
        elif self._checker is None or self._checker.profile is not profile:
            self._checker = RolloutChecker(profile)
        return self._checker


class RecordedTable:
    """The environments the last emitted step recorded, to emit only what changed."""

    def __init__(self) -> None:
        self.shown: dict[str, EnvironmentStatus] = {}

    def step_events(self, step: RolloutStep, report: StepReport, thread: str | None) -> list[Event]:
        """The step's record, the table's changes, then one event per finding."""
        tools = step_tools(step.tools) if step.tools is not None else None
        record = StepRecorded(
            step=step.number,
            thread=thread,
            text=report.full_text,
            diff=step.context_text,
            snapshot=step.section,
            tools=tools,
            notes=report.notes,
            unchecked=sorted(report.unchecked),
            findings=len(report.findings),
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
