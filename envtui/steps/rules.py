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

from envtui.profiles import Profile
from envtui.steps.model import ConnectionState, Finding, StepView, ToolCall, finding
from envtui.steps.plan import ToolFeatures
from envtui.steps.tools import ENVIRONMENT_TOOLS, ToolSpec, by_name

DEFAULT_FEATURES = ToolFeatures()
CALL_TOOLS_WITH_ENVIRONMENT = ("exec_command", "view_image", "apply_patch", "request_permissions")


@dataclass
class RuleResult:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def environment_count(step: StepView, profile: Profile) -> int:
    """The number that decides the environment mode: ready (0.150) or selected (0.171)."""
    return len(step.ready) if profile is Profile.CODEX_0150 else step.selected_count


def _count_words(profile: Profile) -> str:
    return "ready" if profile is Profile.CODEX_0150 else "selected"


def expects_environment_id(tool: str, count: int, profile: Profile) -> bool:
    """Whether the profile's Codex offers ``environment_id`` on ``tool`` at this count."""
    if profile is Profile.CODEX_0150:
        if tool == "request_permissions":
            return True
        return tool in ("exec_command", "view_image", "apply_patch") and count >= 2
    return tool in ("exec_command", "view_image", "request_permissions") and count >= 2


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
    number = step.number
    if tools is None:
        result.notes.append("tool rules skipped: no tool list is known for this step")
    else:
        _tool_rules(step, tools, profile, features, result)
    _call_rules(step, calls, result)
    if connection is None:
        result.notes.append("stale-available not checked: no connection state is known")
    else:
        stale = [env for env in step.ready if connection.get(env) == "disconnected"]
        if stale:
            result.findings.append(
                finding(
                    "stale-available",
                    number,
                    f"the context presents {_names(stale)} as available, but the connection "
                    f"{'is' if len(stale) == 1 else 'are'} known to be lost",
                    environment_id=", ".join(stale),
                )
            )
    _primary_rule(step, result)
    return result


def _tool_rules(
    step: StepView,
    tools: Sequence[ToolSpec],
    profile: Profile,
    features: ToolFeatures,
    result: RuleResult,
) -> None:
    number = step.number
    named = by_name(tools)
    offered = [name for name in ENVIRONMENT_TOOLS if name in named]
    nothing_ready = not step.ready
    none_at_all = nothing_ready and (profile is Profile.CODEX_0150 or not step.starting)
    if offered and none_at_all:
        result.findings.append(
            finding(
                "tools-without-environment",
                number,
                f"environment tools are offered while no environment is "
                f"{'available' if profile is Profile.CODEX_0150 else 'available or starting'}: "
                + ", ".join(offered),
                tools=offered,
            )
        )
    count = environment_count(step, profile)
    missing, unexpected, unknown = [], [], []
    for name in (
        "exec_command",
        "write_stdin",
        "shell_command",
        "apply_patch",
        "view_image",
        "request_permissions",
    ):
        tool = named.get(name)
        if tool is None:
            continue
        takes = tool.takes_environment
        expected = expects_environment_id(name, count, profile)
        if takes is None:
            if expected:
                unknown.append(name)
        elif expected and not takes:
            missing.append(name)
        elif takes and not expected:
            unexpected.append(name)
    words = f"{count} {_count_words(profile)} environment{'s' if count != 1 else ''}"
    if missing:
        result.findings.append(
            finding(
                "missing-environment-id",
                number,
                f"with {words}, {', '.join(missing)} should take environment_id",
                tools=missing,
                rule=profile.value,
            )
        )
    if unexpected:
        result.findings.append(
            finding(
                "unexpected-environment-id",
                number,
                f"with {words}, {', '.join(unexpected)} should not take environment_id",
                tools=unexpected,
                rule=profile.value,
            )
        )
    for name in unknown:
        result.notes.append(f"{name}: whether it takes an environment cannot be told (code mode)")
    if "shell_command" in named and step.single_local_environment() is None:
        why = (
            "something is starting"
            if step.starting
            else (
                "the only ready environment is remote"
                if len(step.ready) == 1
                else f"{len(step.ready)} environments are ready"
            )
        )
        result.findings.append(
            finding(
                "shell-command-not-single-local",
                number,
                f"shell_command is offered although there is no single local environment ({why})",
                tools=["shell_command"],
            )
        )
    if profile is Profile.CODEX_0150 and "wait_for_environment" in named and not step.starting:
        result.findings.append(
            finding(
                "wait-without-starting",
                number,
                "wait_for_environment is offered while no environment is starting",
                tools=["wait_for_environment"],
            )
        )
    if step.ready:
        absent = []
        if "exec_command" not in named and "shell_command" not in named:
            absent.append("exec_command")
        if features.apply_patch and "apply_patch" not in named:
            absent.append("apply_patch")
        if features.view_image and "view_image" not in named:
            absent.append("view_image")
        if absent:
            result.findings.append(
                finding(
                    "environment-tools-missing",
                    number,
                    f"{_names(step.ready)} available, but not offered: {', '.join(absent)}",
                    tools=absent,
                )
            )


def _call_rules(step: StepView, calls: Sequence[ToolCall], result: RuleResult) -> None:
    number = step.number
    unknown: list[ToolCall] = []
    elsewhere: list[tuple[ToolCall, str | None]] = []
    for call in calls:
        if call.environment_id is not None:
            allowed = set(step.ready) | (
                set(step.starting) if call.tool == "wait_for_environment" else set()
            )
            relevant = (
                call.tool in CALL_TOOLS_WITH_ENVIRONMENT or call.tool == "wait_for_environment"
            )
            if relevant and call.environment_id not in allowed:
                unknown.append(call)
        if call.executed_in is not None and call.tool != "wait_for_environment":
            target = call.environment_id or step.primary
            if call.executed_in != target:
                elsewhere.append((call, target))
    if unknown:
        ids = list(dict.fromkeys(c.environment_id for c in unknown if c.environment_id))
        result.findings.append(
            finding(
                "call-to-unknown-environment",
                number,
                f"a call names {_names(ids)}, which the step does not list as available",
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
        message = f"{_names(not_ready)} is marked primary but is not available"
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
