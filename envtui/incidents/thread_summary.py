"""One Codex thread in a line: what its rollout says about its environments right now.

A host's sessions tree holds many rollouts; ``envtui sessions`` shows each as one row
without replaying every byte. :class:`ThreadFold` is the pure part of that: it is given
the file's head (the ``session_meta`` line), then, for the part of the file nobody needs
step by step, only the lines that carry state (``world_state``, ``compacted``,
``additional_tools``) and the turn starts, and then every line of the tail, which the
streaming reader cuts into steps and the check judges. Reading a file (where its tail
starts, which lines carry state, what was appended) is the sources' business.

The summary's environments are those the latest recorded snapshot names (the state the
rollout view shows too; after a compaction and before Codex restates the state, the one
the compaction cleared), or unknown when no state was read (a fork whose parent is not
at hand starts from patches of a state nobody here has), and its incidents are
:func:`active_incidents`: the dashboard's incident fold over the steps read in full, with
the step still being written.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from envtui.incidents.fold import IncidentFold
from envtui.rollout.check import selection_findings, selection_rule_runs
from envtui.rollout.checked import CheckedStep, CheckedSteps
from envtui.rollout.items import parse_time
from envtui.rollout.reader import RolloutReader
from envtui.rollout.recorded import RecordedEnvironment, recorded_environments
from envtui.rollout.state import BaselineLookup
from envtui.steps.report import StepReport
from envtui.steps.values import Finding
from envtui.vocabulary.profiles import Profile

STATUSES = ("starting", "ready", "unavailable")


SUMMARY_INCIDENTS = 100
"""Incidents a thread's summary keeps (it shows their codes, never their history)."""


def fold_report(fold: IncidentFold, report: StepReport) -> None:
    """A checked step into the incident fold: its record, then its findings."""
    fold.step(report.number, None, report.unchecked, len(report.findings))
    for finding in report.findings:
        fold.finding(finding, None)


def active_incidents(
    fold: IncidentFold, pending: StepReport | None = None, thread: Sequence[Finding] = ()
) -> list[str]:
    """A thread's active incidents: the codes of the incidents the fold holds open (none is
    acknowledged here), after ``pending``, the step still being written, and ``thread``,
    the findings of the whole thread, on a copy (in the order ``envtui check`` folds them)."""
    if pending is not None or thread:
        fold = copy.deepcopy(fold)
        if pending is not None:
            fold_report(fold, pending)
        for found in thread:
            fold.finding(found, None)
        fold.settle()
    return fold.open_codes()


@dataclass
class EnvironmentState:
    """One environment of a thread as its latest snapshot recorded it."""

    kind: str
    status: str
    primary: bool


def thread_key(host: str, thread_id: str) -> str:
    """A thread's key among every host's: the same id on two hosts is two threads (a
    rollout copied from one machine to another is shown on each)."""
    return f"{host}/{thread_id}" if host else thread_id


@dataclass
class ThreadSummary:
    """One row of ``envtui sessions``; :meth:`as_json` is its ``--json`` line."""

    thread_id: str
    path: str
    host: str = ""  # the configured host it was read on ("" : the one tree of a quick look)
    source: str | None = None  # who started it (session_meta): cli, vscode, exec, subagent
    parent_thread_id: str | None = None  # a sub-agent's parent thread
    cwd: str | None = None
    cli_version: str | None = None
    profile: str | None = None
    started: datetime | None = None
    last_written: datetime | None = None
    last_item_at: datetime | None = None  # the latest item's own timestamp
    size: int = 0
    steps: int = 0
    steps_exact: bool = True  # False: the file's middle was skipped, steps is a lower bound
    turns: int = 0
    turns_exact: bool = True  # False: part of the middle was never read, turns is a lower bound
    latest_step: int | None = None
    environments: dict[str, EnvironmentState] = field(default_factory=dict)
    environments_known: bool = True  # False: no world state read (a fork without its parent)
    incidents: list[str] = field(default_factory=list)
    incidents_not_known: list[str] = field(default_factory=list)
    """Codes of thread-level rules the cheap scan could not decide (a skipped middle held
    snapshots nobody looked at): not known, which is not the same as not active."""
    findings: dict[str, int] = field(default_factory=dict)
    transitions: dict[tuple[str, str], int] = field(default_factory=dict)
    bad_lines: int = 0
    is_rollout: bool = True
    """False when the file has lines and none is a rollout item (a README named like one):
    listed, so nothing vanishes, but marked, with nothing in it counted as a thread's."""
    live: bool = False
    turn_end: str | None = None  # how the last turn ended; None: no end in the file yet
    rollout_read: bool = True
    """False for the row of a thread its host's daemon holds loaded whose rollout was not
    read (outside ``--since``, or not written yet): made from what the daemon lists, its
    steps, environments and incidents not known."""

    @property
    def key(self) -> str:
        return thread_key(self.host, self.thread_id)

    def count(self, status: str) -> int:
        return sum(1 for env in self.environments.values() if env.status == status)

    @property
    def primary(self) -> str | None:
        return next((i for i, env in self.environments.items() if env.primary), None)

    def unavailable(self) -> list[str]:
        """The ids of the environments unavailable at the latest step, in recorded order."""
        return [i for i, env in self.environments.items() if env.status == "unavailable"]

    def as_json(self) -> dict[str, Any]:
        return {
            "host": self.host or None,
            "thread": self.thread_id,
            "path": self.path,
            "source": self.source,
            "parent_thread": self.parent_thread_id,
            "cwd": self.cwd,
            "cli_version": self.cli_version,
            "profile": self.profile,
            "started": self.started.isoformat() if self.started else None,
            "last_written": self.last_written.isoformat() if self.last_written else None,
            "last_item_at": self.last_item_at.isoformat() if self.last_item_at else None,
            "live": self.live,
            "steps": self.steps,
            "steps_exact": self.steps_exact,
            "turns": self.turns,
            "turns_exact": self.turns_exact,
            "environments_known": self.environments_known,
            "environments": (
                {s: self.count(s) for s in STATUSES} if self.environments_known else None
            ),
            "primary": self.primary,
            "unavailable": self.unavailable() if self.environments_known else None,
            "incidents": self.incidents,
            "incidents_not_known": self.incidents_not_known,
            "findings": self.findings,
            "bad_lines": self.bad_lines,
            "is_rollout": self.is_rollout,
            "last_turn": self.last_turn(),
        }

    def last_turn(self) -> str | None:
        """``completed``, ``interrupted``, or ``running`` while a turn without an end is still
        written; one no longer written was cut off, and is interrupted (as Codex says)."""
        if not self.turns:
            return None
        return self.turn_end or ("running" if self.live else "interrupted")


class ThreadFold:
    """A rollout's head, the state lines of a skipped middle, then its tail, line by line.

    Lines are numbered as in the file, so the reader's notes name the right line even when
    the middle was skipped.
    """

    def __init__(self, path: str, baseline: BaselineLookup | None = None) -> None:
        self.path = path
        self.steps = CheckedSteps(baseline, diffs=False)  # a row shows no diff: none made
        self.skipped_turns = 0  # turn starts in the skipped middle, counted by its scanner
        self.skipped = False
        self._latest: StepReport | None = None
        self._incidents = IncidentFold(max_incidents=SUMMARY_INCIDENTS, history=1, messages=False)
        self._open: StepReport | None = None
        self._open_stale = False
        self._findings: Counter[str] = Counter()
        self._transitions: Counter[tuple[str, str]] = Counter()
        self._statuses: dict[str, str] = {}
        self._recorded_of: tuple[Any, dict[str, RecordedEnvironment]] | None = None
        self._skipped_selection: dict[str, bool] = {}
        self.selection_complete = True
        self.turns_exact = True
        """Whether every snapshot of the thread was looked at (see :meth:`unseen_states`)."""

    @property
    def reader(self) -> RolloutReader:
        """The rollout's reader: what the file said so far, where its state stands."""
        return self.steps.reader

    # --- what the file gives ---------------------------------------------------------------

    def head(self, raw: str) -> None:
        """The first line: the thread's identity (and, for a fork, its parent's baseline)."""
        self.read_line(1, raw)

    def skipped_line(self, number: int, raw: str) -> None:
        """A line of the skipped middle that carries state: applied, never cut into steps.

        (Turn starts there are counted by whoever scans the middle, into ``skipped_turns``.)"""
        self.skipped = True
        before = self.reader.world.section()
        self.reader.skip_line(number, raw)
        section = self.reader.world.section()
        if section is not before and section is not None:
            for env_id, env in recorded_environments(section).items():
                resolved = env.status in ("ready", "starting")
                self._skipped_selection[env_id] = (
                    self._skipped_selection.get(env_id, False) or resolved
                )

    def unseen_states(self, *, bytes_unread: bool = False) -> None:
        """World states of the skipped middle were passed over (replaced by a later full
        one, or in bytes never read): a rule of the whole thread cannot be decided; in
        bytes never read, turns went uncounted too."""
        self.skipped = True
        self.selection_complete = False
        self.turns_exact = self.turns_exact and not bytes_unread

    def skipped_tools_line(self, number: int, raw: str) -> None:
        """A tools line of the skipped middle (see :meth:`RolloutReader.skip_tools_line`)."""
        self.skipped = True
        self.reader.skip_tools_line(number, raw)

    def skipped_compaction(self) -> None:
        """A compaction in the skipped middle, known by its type (its history is not read)."""
        self.skipped = True
        self.reader.skip_compaction()

    def read_line(self, number: int, raw: str) -> None:
        """A line read in full: cut into steps; each completed step is checked."""
        for checked in self.steps.read_line(number, raw):
            self._checked(checked)
        self._open_stale = True

    # --- the summary ---------------------------------------------------------------------

    def _checked(self, checked: CheckedStep) -> None:
        step, report = checked
        self._latest = report
        fold_report(self._incidents, report)
        self._findings.update(f.code for f in report.findings)
        for env_id, status in self._recorded(step.section).items():
            if self._statuses.get(env_id) != status.status:
                self._statuses[env_id] = status.status
                self._transitions[(env_id, status.status)] += 1

    def _recorded(self, section: Any) -> dict[str, RecordedEnvironment]:
        """The statuses a section records, made once for the same section (the latest
        step's is usually the one the summary shows)."""
        if self._recorded_of is not None and self._recorded_of[0] is section:
            return self._recorded_of[1]
        statuses = recorded_environments(section)
        self._recorded_of = (section, statuses)
        return statuses

    def _open_step(self) -> StepReport | None:
        """The step still being written, checked as it stands (on a copy of the reader)."""
        if self._open_stale:
            self._open_stale = False
            open_step = self.steps.open_step()
            self._open = open_step.report if open_step is not None else None
        return self._open

    def _profile(self) -> Profile:
        checker = self.steps.checker
        return checker.profile if checker is not None else self._default_profile()

    def _default_profile(self) -> Profile:
        return self.reader.info.default_profile()[0]

    def _thread_findings(self) -> list[Finding]:
        """What ``envtui check`` finds of the whole thread, when this fold can know it: the
        selection of every snapshot, from the steps checked and the skipped states."""
        if not self.selection_complete:
            return []
        selected = dict(self._skipped_selection)
        checker = self.steps.checker
        for env_id, ok in (checker.selected if checker is not None else {}).items():
            selected[env_id] = selected.get(env_id, False) or ok
        return selection_findings(self._profile(), selected)

    def _not_known(self) -> list[str]:
        """The thread rules this fold cannot decide (none under a profile they skip)."""
        if self.selection_complete or not selection_rule_runs(self._profile()):
            return []
        return ["selected-never-resolved"]

    def summary(self, thread_id: str, *, size: int = 0) -> ThreadSummary:
        info = self.reader.info
        pending = self._open_step()
        latest = pending or self._latest
        section = self.reader.latest_section()
        statuses = self._recorded(section)
        return ThreadSummary(
            thread_id=info.thread_id or thread_id,
            path=self.path,
            cwd=info.cwd,
            source=info.source,
            parent_thread_id=info.parent_thread_id,
            cli_version=info.cli_version,
            profile=info.default_profile()[0].value,
            started=info.started,
            last_item_at=parse_time(self.reader.latest_time),
            size=size,
            steps=info.steps,
            steps_exact=not self.skipped,
            turns=self.skipped_turns + info.turns,
            turns_exact=self.turns_exact,
            latest_step=latest.number if latest is not None else None,
            environments={
                i: EnvironmentState(s.kind, s.status, s.primary) for i, s in statuses.items()
            },
            environments_known=section is not None,
            incidents=active_incidents(self._incidents, pending, self._thread_findings()),
            incidents_not_known=self._not_known(),
            findings=dict(self._findings),
            transitions=dict(self._transitions),
            bad_lines=info.bad_line_count,
            is_rollout=bool(info.items) or not info.lines,
            turn_end=info.turn_end,
        )
