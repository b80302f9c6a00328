"""``envtui check`` for a rollout: envtui's own render against Codex's, and the rules per step.

For every step with a world_state item envtui renders the diff itself (against nothing for
the first baseline, between the previous and the current snapshot after that) and compares
it with the block Codex recorded, using Codex's own escaping; a difference that comes only
from envtui's stricter escaping is a note. The divergence rules then run on the step's
snapshot, its recorded tools and calls, and, with ``--events``, the connection state of that
moment.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from envtui.context.diff import render_diff
from envtui.context.model import EnvironmentsState
from envtui.context.snapshot import restore_snapshot
from envtui.events import LOCAL_ID, Event, connection_states
from envtui.profiles import Profile
from envtui.steps.model import Finding, StepView, finding
from envtui.steps.plan import ToolFeatures
from envtui.steps.rollout import Rollout, RolloutStep
from envtui.steps.rules import check_step
from envtui.steps.tools import ToolSpec

MAX_DIFF_LINES = 12


@dataclass
class StepReport:
    number: int
    turn: int
    line: int | None
    context: str | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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


def view_of(number: int, state: EnvironmentsState) -> StepView:
    """The rules' view of a recorded snapshot: no selection order; ``local`` is local."""
    envs = state.environments
    ids = state.sorted_ids
    return StepView(
        number=number,
        ready=tuple(i for i in ids if envs[i].status == "available"),
        starting=tuple(i for i in ids if envs[i].status == "starting"),
        failed=tuple(i for i in ids if envs[i].status == "failed"),
        selection=None,
        marked_primary=tuple(i for i in ids if envs[i].is_primary),
        local_ids=frozenset({LOCAL_ID}),
    )


def short_diff(expected: str | None, recorded: str | None) -> tuple[str, str]:
    """The first differing line, and a unified diff of at most 12 lines."""
    ours = (expected or "").splitlines()
    theirs = (recorded or "").splitlines()
    first = next(
        (
            f"line {i + 1}: envtui {a!r}, Codex {b!r}"
            for i, (a, b) in enumerate(zip(ours, theirs, strict=False))
            if a != b
        ),
        f"envtui has {len(ours)} lines, Codex {len(theirs)}",
    )
    lines = list(difflib.unified_diff(ours, theirs, "envtui", "codex", lineterm="", n=1))
    return first, "\n".join(lines[:MAX_DIFF_LINES])


def check_context(step: RolloutStep) -> tuple[Finding | None, list[str]]:
    """Render the step as Codex would and compare with what Codex recorded."""
    if step.unchecked:
        return None, [f"context not checked: {step.unchecked}"]
    if step.world_state_line is None:
        if step.context_text is not None:
            return None, ["context not checked: the step recorded a context but no world_state"]
        return None, []
    current = restore_snapshot(step.section) if step.section is not None else None
    if step.section is not None and current is None:
        return None, ["context not checked: the recorded snapshot cannot be restored"]
    previous = (
        restore_snapshot(step.previous_section)
        if step.has_baseline and step.previous_section is not None
        else None
    )
    as_codex = render_diff(current, previous, codex_escaping=True)
    line = step.context_line or step.world_state_line
    if as_codex == step.context_text:
        if render_diff(current, previous) != as_codex:
            return None, [
                "deviation: envtui escapes network domains and subagent lines; Codex wrote them raw"
            ]
        return None, []
    if step.context_text is None:
        message = "envtui would send a context block here, and Codex sent none"
    elif as_codex is None:
        message = "Codex sent a context block where envtui sends none"
    else:
        message = "envtui renders this step's context differently from Codex"
    first, diff = short_diff(as_codex, step.context_text)
    return finding(
        "context-mismatch", step.number, f"{message} ({first})", line=line, diff=diff
    ), []


RULE_NOTES_SAID_ONCE = frozenset({"tool-rules-skipped", "stale-available-unchecked"})
"""Rule notes that the report states once for the whole rollout instead of at each step."""


def check_rollout(
    rollout: Rollout,
    profile: Profile,
    *,
    events: list[Event] | None = None,
    features: ToolFeatures | None = None,
    tools: list[ToolSpec] | None = None,
) -> CheckReport:
    """Check every step; ``tools`` (from a file) replaces the recorded tool lists."""
    features = features or ToolFeatures()
    reports = [
        check_rollout_step(step, profile, events=events, features=features, tools=tools)
        for step in rollout.steps
    ]
    findings = [f for report in reports for f in report.findings]
    return CheckReport(
        reports, findings, rollout_notes(rollout, events, tools), rollout.summary(profile)
    )


def rollout_notes(
    rollout: Rollout, events: list[Event] | None, tools: list[ToolSpec] | None
) -> list[str]:
    """What the whole check could not do, said once."""
    notes = list(rollout.notes)
    if events is None:
        notes.append("stale-available needs connection events (--events FILE)")
    notes.append(
        "execution-routed-elsewhere needs live sources: a rollout does not record where calls ran"
    )
    notes.append(
        "selected-never-resolved needs the thread's selection, which a rollout does not record"
    )
    if tools is None and not any(step.tools is not None for step in rollout.steps):
        notes.append("no tool list was recorded (flat tools are not): tool rules skipped")
    return notes


def check_rollout_step(
    step: RolloutStep,
    profile: Profile,
    *,
    events: list[Event] | None,
    features: ToolFeatures,
    tools: list[ToolSpec] | None,
) -> StepReport:
    """One step: its context against Codex's, then the rules on its snapshot."""
    report = StepReport(step.number, step.turn, step.first_line, step.context_text)
    mismatch, context_notes = check_context(step)
    report.notes += context_notes
    if mismatch is not None:
        report.findings.append(mismatch)
    state = restore_snapshot(step.section) if step.section is not None else None
    if state is None:
        if step.section is None:
            report.notes.append("no environments snapshot yet: rules not run")
        return report
    result = check_step(
        view_of(step.number, state),
        tools if tools is not None else step.tools,
        profile,
        calls=step.calls,
        connection=connection_states(events, step.at) if events is not None else None,
        features=features,
    )
    report.findings += result.findings
    report.notes += [n.text for n in result.notes if n.code not in RULE_NOTES_SAID_ONCE]
    return report
