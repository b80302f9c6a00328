"""``envtui check`` for a rollout: envtui's own render against Codex's, and the rules per step.

:class:`RolloutChecker` takes steps one at a time, as the reader hands them over, and keeps
nothing of a step once it has reported on it. For every block a step carried it renders
the diff itself, from the snapshots the block was diffed between (a full restatement after
a compaction, or for a message with no world_state of its own), and compares it with the
text Codex recorded, using Codex's own escaping; a difference that comes only from envtui's
stricter escaping is a note. The divergence rules then run on the step's snapshot, its
recorded tools and calls, and, with connection events, the connection state at the moment
the request was sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from envtui.context.diff import render_diff
from envtui.context.model import EnvironmentsState
from envtui.rollout.check_memo import KEPT, Recent, Restorer
from envtui.rollout.records import ContextBlock, RolloutInfo, RolloutStep
from envtui.steps.connection import ConnectionTimeline
from envtui.steps.plan import ToolFeatures
from envtui.steps.report import StepReport
from envtui.steps.rules import TOOL_CODES, check_calls, check_step, selected_never_resolved
from envtui.steps.tools import ToolSpec
from envtui.steps.unchecked import CONTEXT_CODES, EXECUTION_CODE, RULE_CODES, unchecked_codes
from envtui.steps.values import Finding, StepView, finding
from envtui.vocabulary.profiles import Profile
from envtui.vocabulary.terms import LOCAL_ID

if TYPE_CHECKING:
    from envtui.vocabulary.events import Event

MAX_DIFF_LINES = 12
_ESCAPED = frozenset("&<>\"'")
_ESCAPING_NOTE = (
    "deviation: envtui escapes network domains and subagent lines; Codex wrote them raw"
)


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
    import difflib  # only where a diff is shown: ``envtui sessions`` makes none

    ours = (expected or "").splitlines()
    theirs = (recorded or "").splitlines()
    lines = list(difflib.unified_diff(ours, theirs, "envtui", "codex", lineterm="", n=1))
    return _first_of(ours, theirs), "\n".join(lines[:MAX_DIFF_LINES])


def first_difference(expected: str | None, recorded: str | None) -> str:
    """The first differing line alone (what :func:`short_diff` says first)."""
    return _first_of((expected or "").splitlines(), (recorded or "").splitlines())


def _first_of(ours: list[str], theirs: list[str]) -> str:
    return next(
        (
            f"line {i + 1}: envtui {a!r}, Codex {b!r}"
            for i, (a, b) in enumerate(zip(ours, theirs, strict=False))
            if a != b
        ),
        f"envtui has {len(ours)} lines, Codex {len(theirs)}",
    )


def _escaping_could_differ(state: EnvironmentsState) -> bool:
    """Whether envtui's escaping of domains and subagent lines could change this block."""
    network = state.network
    texts = [state.subagents or ""]
    if network is not None and not isinstance(network, str):
        texts += [*network.allowed_domains, *network.denied_domains]
    return any(not _ESCAPED.isdisjoint(text) for text in texts)


def _diffed(
    block: ContextBlock, restore: Restorer
) -> tuple[EnvironmentsState | None, EnvironmentsState | None] | str:
    """The states the block was diffed between, or why the block cannot be checked.

    A compaction's block, and a message with no world_state of its own, restate the whole
    state: they are diffed against nothing.
    """
    current = restore(block.current)
    if block.current is not None and current is None:
        return "the recorded snapshot cannot be restored"
    if block.source == "compaction" or not block.paired:
        return current, None
    return current, restore(block.previous)


_Outcome = tuple[Finding | None, str, list[str]]
"""What a block's check says whatever its step: the finding (None: none; its step and line
are the step's own), its diff, the notes."""


def check_block(
    block: ContextBlock,
    number: int,
    restore: Restorer,
    memo: Recent[_Outcome] | None = None,
    *,
    diffs: bool = True,
) -> tuple[Finding | None, list[str]]:
    """Render one block as Codex would and compare it with what Codex recorded; ``memo``
    keeps the outcome of the same snapshots and text at the steps before. ``diffs=False``:
    a mismatch carries no unified diff (a caller that shows none need not make one)."""
    if block.unchecked:
        return None, []  # the step's notes say why
    diffed = _diffed(block, restore)
    if isinstance(diffed, str):
        return None, [f"context not checked: {diffed}"]
    key = (*diffed, block.text, block.source)
    known = memo.get(key) if memo is not None else None
    mismatch, diff, notes = known[0] if known is not None else _outcome(block, *diffed, diffs)
    if memo is not None and known is None:
        memo.put(key, (mismatch, diff, notes))
    if mismatch is None:
        return None, list(notes)
    line = block.line or block.world_state_line
    return mismatch.at_step(number, {"line": line, "diff": diff}), []


def _outcome(
    block: ContextBlock,
    current: EnvironmentsState | None,
    previous: EnvironmentsState | None,
    diffs: bool = True,
) -> _Outcome:
    as_codex = render_diff(current, previous, codex_escaping=True)
    if as_codex == block.text:
        if (
            current is not None
            and _escaping_could_differ(current)
            and render_diff(current, previous) != as_codex
        ):
            return None, "", [_ESCAPING_NOTE]
        return None, "", []
    if block.text is None:
        message = "envtui would send a context block here, and Codex sent none"
    elif as_codex is None:
        message = "Codex sent a context block where envtui sends none"
    else:
        message = "envtui renders this step's context differently from Codex"
    if block.source == "compaction":
        message += " (the block in the compaction's replacement history)"
    if diffs:
        first, diff = short_diff(as_codex, block.text)
    else:
        first, diff = first_difference(as_codex, block.text), ""
    return finding("context-mismatch", None, f"{message} ({first})"), diff, []


@dataclass(frozen=True)
class _Rules:
    """What the rules said about one snapshot, kept while the next steps share it."""

    key: tuple[Any, ...]
    view: StepView
    findings: list[Finding]
    notes: list[str]
    unchecked: list[str]


RULE_NOTES_SAID_ONCE = frozenset({"tool-rules-skipped", "stale-available-unchecked"})
"""Rule notes that the report states once for the whole rollout instead of at each step."""


class RolloutChecker:
    """Checks steps one at a time; holds the profile, the timeline and two snapshots."""

    def __init__(
        self,
        profile: Profile,
        *,
        events: Iterable[Event] | None = None,
        features: ToolFeatures | None = None,
        tools: list[ToolSpec] | None = None,
        diffs: bool = True,
    ) -> None:
        self.profile = profile
        self.diffs = diffs
        """Whether a context mismatch carries its unified diff (``envtui check`` shows it)."""
        self.features = features or ToolFeatures()
        self.tools = tools
        self.timeline = ConnectionTimeline(events) if events is not None else None
        self.restore = Restorer()
        self._blocks: Recent[_Outcome] = Recent()
        self.tools_seen = False
        self._recent_rules: list[_Rules] = []  # the last few, newest last
        self._selected_from: list[EnvironmentsState] = []  # the last few states in selected
        self._selected_ids: frozenset[int] = frozenset()  # theirs, held by the list above
        self.selected: dict[str, bool] = {}
        """Every environment a snapshot named (the selection as a rollout shows it), and
        whether any step showed it available or starting."""

    def check(self, step: RolloutStep) -> StepReport:
        """One step: every block against Codex's, then the rules on its snapshot."""
        report = StepReport(step.number, step.turn, step.first_line, step.context_text)
        if step.notes:
            report.notes += step.notes
        report.unchecked.add(EXECUTION_CODE)  # a rollout does not record where calls ran
        mismatches = []
        for block in step.blocks:
            mismatch, notes = check_block(
                block, step.number, self.restore, self._blocks, diffs=self.diffs
            )
            report.notes += notes
            if block.unchecked or (
                block.current is not None and self.restore(block.current) is None
            ):
                report.unchecked |= CONTEXT_CODES  # the block could not be rendered again
            if mismatch is not None:
                mismatches.append(mismatch)
        if mismatches:
            report.findings.append(_one_per_step(mismatches, len(step.blocks)))
        self.tools_seen = self.tools_seen or step.tools is not None
        state = self.restore(step.section)
        if state is None:
            if step.section is None:
                report.notes.append("no environments snapshot yet: rules not run")
            report.unchecked |= RULE_CODES
            return report
        report.state = state
        # a state taken in again changes nothing: an environment's flag only ever turns true
        if id(state) not in self._selected_ids:
            for env_id, env in state.environments.items():
                resolved = env.status in ("available", "starting")
                self.selected[env_id] = self.selected.get(env_id, False) or resolved
            self._selected_from = [*self._selected_from[1 - KEPT :], state]
            self._selected_ids = frozenset(map(id, self._selected_from))
        findings, notes, unchecked = self._rules(step, state)
        report.findings += findings
        report.notes += notes
        report.unchecked.update(unchecked)
        return report

    def _rules(
        self, step: RolloutStep, state: EnvironmentsState
    ) -> tuple[list[Finding], list[str], list[str]]:
        """The rules on the step. Steps share their snapshot, tools and connection state with
        steps before (in a row, or every other step when the primary moves back and forth),
        so what depends only on those is worked out once; the calls every time."""
        tools = self.tools if self.tools is not None else step.tools
        connection = self.timeline.at(step.at) if self.timeline is not None else None
        key = (state, tools, tuple(sorted(connection.items())) if connection is not None else None)
        rules = self._known_rules(key)
        if rules is None:
            view = view_of(0, state)
            result = check_step(
                view, tools, self.profile, connection=connection, features=self.features
            )
            notes = [n.text for n in result.notes if n.code not in RULE_NOTES_SAID_ONCE]
            rules = _Rules(key, view, result.findings, notes, unchecked_codes(result.notes))
            self._recent_rules = [*self._recent_rules[1 - KEPT :], rules]
        view, notes = rules.view, rules.notes
        findings = [f.at_step(step.number) for f in rules.findings]
        if step.calls:
            calls = check_calls(view.at_step(step.number), step.calls)
            split = next(
                (i for i, f in enumerate(findings) if f.code not in TOOL_CODES), len(findings)
            )
            findings[split:split] = calls
        return findings, list(notes), rules.unchecked

    def _known_rules(self, key: tuple[Any, ...]) -> _Rules | None:
        """What the rules said of a key equal to ``key``: looked up by identity first, the
        usual case (a state restored once is the same object), and the cheapest."""
        recent = self._recent_rules[::-1]
        state, tools, connection = key
        for seen in recent:
            if seen.key[0] is state and seen.key[1] is tools and seen.key[2] is connection:
                return seen
        for seen in recent:
            if all(a is b or a == b for a, b in zip(seen.key, key, strict=True)):
                # kept under this key too, found by identity next time (an equal state
                # restored from a snapshot written in another key order is another object)
                again = _Rules(key, seen.view, seen.findings, seen.notes, seen.unchecked)
                self._recent_rules = [*self._recent_rules[1 - KEPT :], again]
                return again
        return None

    def notes(self, info: RolloutInfo) -> list[str]:
        """What the whole check could not do, said once."""
        notes = list(info.notes)
        if info.fork is not None and info.fork.baseline_note:
            notes.append(
                f"forked from thread {info.fork.thread_id} at ordinal {info.fork.ordinal}: "
                f"{info.fork.baseline_note}"
            )
        if self.timeline is None:
            notes.append("stale-available needs connection events (--events FILE)")
        notes.append(
            "execution-routed-elsewhere needs live sources: a rollout does not record where "
            "calls ran"
        )
        if self.profile is Profile.CODEX_0171:
            notes.append(
                "selected-never-resolved reads the selection from the snapshots (0.171 records "
                "a failed environment); an environment no snapshot names is not seen"
            )
        else:
            notes.append(
                "selected-never-resolved needs the thread's selection, which a codex-0.150 "
                "rollout does not record (a failed environment is left out of its snapshots)"
            )
        if self.tools is None and not self.tools_seen:
            notes.append("no tool list was recorded (flat tools are not): tool rules skipped")
        return notes


def cut_off_note(turn: int) -> str:
    """What a check says of a last turn that was cut off."""
    return (
        f"turn {turn} was cut off: the rollout ends without its end (no turn_aborted, no "
        "task_complete) and is no longer written, so the app-server was killed; it counts "
        "as interrupted, as Codex calls it"
    )


def thread_findings(checker: RolloutChecker) -> list[Finding]:
    """The findings of the whole thread, once every step is checked: an environment that
    every snapshot naming it recorded as failed, from the first step to the last, was
    selected and never resolved (the spec's "resolution failed"). Only under codex-0.171:
    0.150 leaves a failed environment out of its snapshots, so it is never seen."""
    return selection_findings(checker.profile, checker.selected)


def selection_rule_runs(profile: Profile) -> bool:
    """Whether selected-never-resolved runs at all: only under codex-0.171, whose snapshots
    record a failed environment (0.150 leaves it out, so it is never seen)."""
    return profile is Profile.CODEX_0171


def selection_findings(profile: Profile, selected: dict[str, bool]) -> list[Finding]:
    """:func:`thread_findings` from the selection itself (every environment a snapshot
    named, and whether any showed it available or starting), wherever it was gathered."""
    if not selection_rule_runs(profile):
        return []
    resolved = tuple(env for env, ok in selected.items() if ok)
    return selected_never_resolved(selected, [StepView(number=None, ready=resolved)])


def _one_per_step(mismatches: list[Finding], blocks: int) -> Finding:
    """One context-mismatch per step: the first, saying how many of its blocks differ."""
    first = mismatches[0]
    if blocks < 2:
        return first
    extra = dict(first.extra)
    extra["blocks"] = [dict(f.extra) for f in mismatches]
    message = f"{first.message}; {len(mismatches)} of the step's {blocks} blocks differ"
    return Finding(first.code, first.severity, first.step, None, None, message, extra)
