"""Divergence rules (codex-protocol.md §6): pure functions from a step to its findings.

A finding is either a deviation from the tool plan the profile expects for the step's
snapshot, or a hazard under any profile: a call to an environment the step does not list
as available, a context that calls available an environment whose connection is known to
be lost, a primary flag that is not the first ready environment, a call that ran somewhere
other than where the step's snapshot routes it. Each code is reported at most once per
step, naming every tool involved. Rules that cannot run for lack of data add a note.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from envtui.steps.plan import ToolFeatures, environment_count, expects_environment_id
from envtui.steps.tools import (
    APPLY_PATCH,
    CALL_TOOLS_WITH_ENVIRONMENT,
    ENVIRONMENT_TOOLS,
    EXEC_COMMAND,
    SHELL_COMMAND,
    VIEW_IMAGE,
    WAIT_FOR_ENVIRONMENT,
    ToolSpec,
    by_name,
)
from envtui.steps.values import Finding, Note, StepView, ToolCall, finding
from envtui.vocabulary.profiles import Profile
from envtui.vocabulary.terms import ConnectionState

DEFAULT_FEATURES = ToolFeatures()


@dataclass
class RuleResult:
    findings: list[Finding] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)


def _count_words(profile: Profile) -> str:
    return "ready" if profile is Profile.CODEX_0150 else "selected"


def check_step(
    step: StepView,
    tools: Sequence[ToolSpec] | None,
    profile: Profile,
    *,
    calls: Sequence[ToolCall] = (),
    connection: Mapping[str, ConnectionState] | None = None,
    features: ToolFeatures = DEFAULT_FEATURES,
) -> RuleResult:
    """Every per-step rule. ``tools`` None: no tool list is known, so tool rules are skipped."""
    result = RuleResult()
    if tools is None:
        result.notes.append(
            Note("tool-rules-skipped", "tool rules skipped: no tool list is known for this step")
        )
    else:
        named = by_name(tools)
        _tools_without_environment(step, named, profile, result)
        _environment_id_rules(step, named, profile, result)
        _shell_command_rule(step, named, result)
        _wait_rule(step, named, profile, result)
        _tools_missing(step, named, features, result)
    _call_rules(step, calls, result)
    _stale_available_rule(step, connection, result)
    _primary_rule(step, result)
    return result


def _stale_available_rule(
    step: StepView, connection: Mapping[str, ConnectionState] | None, result: RuleResult
) -> None:
    """stale-available: the context calls available what is known to be disconnected."""
    if connection is None:
        result.notes.append(
            Note(
                "stale-available-unchecked",
                "stale-available not checked: no connection state is known",
            )
        )
        return
    stale = [env for env in step.ready if connection.get(env) == "disconnected"]
    if stale:
        result.findings.append(
            finding(
                "stale-available",
                step.number,
                f"the context presents {_names(stale)} as available, but "
                f"{'the connection is' if len(stale) == 1 else 'the connections are'} "
                "known to be lost",
                environment_id=", ".join(stale),
            )
        )


def _tools_without_environment(
    step: StepView, named: Mapping[str, ToolSpec], profile: Profile, result: RuleResult
) -> None:
    """tools-without-environment: environment tools while nothing could run them."""
    offered = [name for name in ENVIRONMENT_TOOLS if name in named]
    none_at_all = not step.ready and (profile is Profile.CODEX_0150 or not step.starting)
    if offered and none_at_all:
        what = "available" if profile is Profile.CODEX_0150 else "available or starting"
        result.findings.append(
            finding(
                "tools-without-environment",
                step.number,
                f"environment tools are offered while no environment is {what}: "
                + ", ".join(offered),
                tools=offered,
            )
        )


def _environment_id_rules(
    step: StepView, named: Mapping[str, ToolSpec], profile: Profile, result: RuleResult
) -> None:
    """missing- and unexpected-environment-id, against the profile's table."""
    count = environment_count(step, profile)
    missing, unexpected = [], []
    for name in ENVIRONMENT_TOOLS:
        tool = named.get(name)
        if tool is None:
            continue
        takes = tool.takes_environment
        expected = expects_environment_id(name, count, profile)
        if takes is None:
            if expected:
                result.notes.append(
                    Note(
                        "tool-parameter-unknown",
                        f"{name}: whether it takes an environment cannot be told (code mode)",
                    )
                )
        elif expected and not takes:
            missing.append(name)
        elif takes and not expected:
            unexpected.append(name)
    words = f"{count} {_count_words(profile)} environment{'s' if count != 1 else ''}"
    for code, names, should in (
        ("missing-environment-id", missing, "should"),
        ("unexpected-environment-id", unexpected, "should not"),
    ):
        if names:
            result.findings.append(
                finding(
                    code,
                    step.number,
                    f"with {words}, {', '.join(names)} {should} take environment_id",
                    tools=names,
                    rule=profile.value,
                )
            )


def _shell_command_rule(step: StepView, named: Mapping[str, ToolSpec], result: RuleResult) -> None:
    """shell-command-not-single-local: shell_command needs exactly one local environment."""
    if SHELL_COMMAND not in named or step.single_local_environment() is not None:
        return
    if step.starting:
        why = "something is starting"
    elif len(step.ready) == 1:
        why = "the only ready environment is remote"
    else:
        why = f"{len(step.ready)} environments are ready"
    result.findings.append(
        finding(
            "shell-command-not-single-local",
            step.number,
            f"shell_command is offered although there is no single local environment ({why})",
            tools=[SHELL_COMMAND],
        )
    )


def _wait_rule(
    step: StepView, named: Mapping[str, ToolSpec], profile: Profile, result: RuleResult
) -> None:
    """wait-without-starting (0.150): wait_for_environment with nothing to wait for."""
    if profile is Profile.CODEX_0150 and WAIT_FOR_ENVIRONMENT in named and not step.starting:
        result.findings.append(
            finding(
                "wait-without-starting",
                step.number,
                "wait_for_environment is offered while no environment is starting",
                tools=[WAIT_FOR_ENVIRONMENT],
            )
        )


def _tools_missing(
    step: StepView, named: Mapping[str, ToolSpec], features: ToolFeatures, result: RuleResult
) -> None:
    """environment-tools-missing: something is ready, but the tools to use it are not."""
    if not step.ready:
        return
    absent = []
    if EXEC_COMMAND not in named and SHELL_COMMAND not in named:
        absent.append(EXEC_COMMAND)
    if features.apply_patch and APPLY_PATCH not in named:
        absent.append(APPLY_PATCH)
    if features.view_image and VIEW_IMAGE not in named:
        absent.append(VIEW_IMAGE)
    if absent:
        result.findings.append(
            finding(
                "environment-tools-missing",
                step.number,
                f"{_names(step.ready)} available, but not offered: {', '.join(absent)}",
                tools=absent,
            )
        )


def check_calls(step: StepView, calls: Sequence[ToolCall]) -> list[Finding]:
    """Only the rules about the model's calls (what :func:`check_step` runs on ``calls``)."""
    result = RuleResult()
    _call_rules(step, calls, result)
    return result.findings


TOOL_CODES = frozenset(
    {
        "tools-without-environment",
        "missing-environment-id",
        "unexpected-environment-id",
        "shell-command-not-single-local",
        "wait-without-starting",
        "environment-tools-missing",
    }
)
"""The codes of the tool rules, which :func:`check_step` runs before the call rules."""
CALL_CODES = frozenset({"call-to-unknown-environment", "execution-routed-elsewhere"})
"""The codes of the rules about the model's calls."""
THREAD_CODES = frozenset({"selected-never-resolved"})
"""Findings about the whole thread, never evaluated at one step."""


def _call_rules(step: StepView, calls: Sequence[ToolCall], result: RuleResult) -> None:
    number = step.number
    unknown: list[ToolCall] = []
    elsewhere: list[tuple[ToolCall, str | None]] = []
    for call in calls:
        if call.environment_id is not None:
            allowed = set(step.ready) | (
                set(step.starting) if call.tool == WAIT_FOR_ENVIRONMENT else set()
            )
            relevant = call.tool in CALL_TOOLS_WITH_ENVIRONMENT or call.tool == WAIT_FOR_ENVIRONMENT
            if relevant and call.environment_id not in allowed:
                unknown.append(call)
        if call.executed_in is not None and call.tool != WAIT_FOR_ENVIRONMENT:
            target = call.environment_id or step.primary
            if call.executed_in != target:
                elsewhere.append((call, target))
    if unknown:
        ids = list(dict.fromkeys(c.environment_id for c in unknown if c.environment_id))
        result.findings.append(
            finding(
                "call-to-unknown-environment",
                number,
                f"{'a call names' if len(ids) == 1 else 'calls name'} {_names(ids)}, "
                "which the step does not list as available",
                tools=[c.tool for c in unknown],
                environment_id=", ".join(ids),
            )
        )
    if elsewhere:
        call, target = elsewhere[0]
        how = (
            f"named {target!r}"
            if call.environment_id
            else f"routed to the step's primary {target!r}"
        )
        result.findings.append(
            finding(
                "execution-routed-elsewhere",
                number,
                f"{call.tool} ran in {call.executed_in!r}, but the step {how}",
                tools=[c.tool for c, _ in elsewhere],
                environment_id=", ".join(
                    dict.fromkeys(c.executed_in for c, _ in elsewhere if c.executed_in)
                ),
            )
        )


def _primary_rule(step: StepView, result: RuleResult) -> None:
    marked = list(step.marked_primary)
    if step.selected_count < 2 or not step.ready:
        return
    not_ready = [env for env in marked if env not in step.ready]
    if step.selection is not None and marked != [step.ready[0]]:
        message = (
            f"the context marks {_names(marked) or 'no environment'} primary, but the first "
            f"ready environment in selection order is {step.ready[0]!r}"
        )
    elif len(marked) != 1:
        message = f"{len(marked)} environments are marked primary among {step.selected_count}"
    elif not_ready:
        message = (
            f"{_names(not_ready)} is marked primary but is not available"
            if len(not_ready) == 1
            else f"{_names(not_ready)} are marked primary but are not available"
        )
    else:
        return
    result.findings.append(
        finding("primary-mismatch", step.number, message, environment_id=", ".join(marked) or None)
    )


def selected_never_resolved(selection: Iterable[str], steps: Iterable[StepView]) -> list[Finding]:
    """Per thread: selected ids that no step ever showed as available or starting."""
    seen: set[str] = set()
    for step in steps:
        seen.update(step.ready)
        seen.update(step.starting)
    never = [env for env in dict.fromkeys(selection) if env not in seen]
    return [
        finding(
            "selected-never-resolved",
            None,
            f"{env!r} was selected but no step ever showed it as available or starting",
            environment_id=env,
        )
        for env in never
    ]


def _names(ids: Iterable[str | None]) -> str:
    return ", ".join(repr(i) for i in ids if i is not None)
