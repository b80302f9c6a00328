"""A rollout read or checked whole, at once: what tests compare the streaming paths with.

The product never holds a whole rollout: ``envtui check``, the follower and a thread's
summary all read one line at a time through :class:`envtui.rollout.checked.CheckedSteps`.
Tests want every step of a small file in a list, to look at; these helpers give that, on
the same reader and checker.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from envtui.rollout.check import RolloutChecker, thread_findings
from envtui.rollout.reader import RolloutReader
from envtui.rollout.records import RolloutInfo, RolloutStep
from envtui.rollout.state import BaselineLookup
from envtui.steps.plan import ToolFeatures
from envtui.steps.report import CheckReport
from envtui.steps.tools import ToolSpec
from envtui.vocabulary.events import Event
from envtui.vocabulary.profiles import Profile


@dataclass
class Rollout:
    """A whole rollout read at once: its info and every step."""

    info: RolloutInfo
    steps: list[RolloutStep]

    @property
    def thread_id(self) -> str | None:
        return self.info.thread_id

    @property
    def bad_lines(self) -> list[int]:
        return self.info.bad_lines

    @property
    def lines(self) -> int:
        return self.info.lines

    def default_profile(self) -> tuple[Profile, str | None]:
        return self.info.default_profile()


def read_rollout_lines(lines: Iterable[str], *, baseline: BaselineLookup | None = None) -> Rollout:
    """Every step of ``lines``; the last one is not known complete (the file may grow)."""
    reader = RolloutReader(baseline)
    steps: list[RolloutStep] = []
    for number, line in enumerate(lines, start=1):
        steps += reader.read_line(number, line)
    steps += reader.finish()
    return Rollout(reader.info, steps)


def read_rollout(path: Path, *, baseline: BaselineLookup | None = None) -> Rollout:
    """Read a rollout file; raises OSError when it cannot be read at all."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        return read_rollout_lines(handle, baseline=baseline)


def check_rollout(
    rollout: Rollout,
    profile: Profile,
    *,
    events: list[Event] | None = None,
    features: ToolFeatures | None = None,
    tools: list[ToolSpec] | None = None,
) -> CheckReport:
    """Check every step of a rollout read whole; ``tools`` replaces the recorded lists."""
    checker = RolloutChecker(profile, events=events, features=features, tools=tools)
    reports = [checker.check(step) for step in rollout.steps]
    findings = [f for report in reports for f in report.findings] + thread_findings(checker)
    summary = rollout.info.summary(profile)
    return CheckReport(reports, findings, checker.notes(rollout.info), summary)
