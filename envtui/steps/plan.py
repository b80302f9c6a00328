"""The environment-backed tools Codex would advertise for one step, per profile.

``codex-0.150`` (Codex's source, the seed design) counts **ready** environments: with none
there are no environment tools; ``environment_id`` appears with two or more;
``shell_command`` only for a single local environment; ``wait_for_environment`` only while
something is starting. ``codex-0.171`` (the released binary) counts every **selected**
environment whatever its status; offers ``exec_command``, ``write_stdin``, ``apply_patch``
and ``view_image`` even with none; puts ``environment_id`` on ``exec_command``,
``view_image`` and ``request_permissions`` with two or more, never on ``write_stdin`` or
``apply_patch``; never offers ``shell_command``; and offers ``wait_for_environment`` whenever
the deferred executor is on.
"""

from __future__ import annotations

from dataclasses import dataclass

from envtui.profiles import Profile
from envtui.steps.model import StepView
from envtui.steps.tools import ToolSpec


@dataclass(frozen=True)
class ToolFeatures:
    """What the model and configuration enable; decides which tools exist at all."""

    apply_patch: bool = True
    view_image: bool = True
    request_permissions: bool = False
    deferred_executor: bool = False


def plan_tools(
    step: StepView, profile: Profile, features: ToolFeatures = ToolFeatures()
) -> list[ToolSpec]:
    if profile is Profile.CODEX_0150:
        return _plan_0150(step, features)
    return _plan_0171(step, features)


def _tool(name: str, with_id: bool | str) -> ToolSpec:
    parameter = "required" if with_id == "required" else ("optional" if with_id else "absent")
    return ToolSpec(name, parameter, None, "planned")  # type: ignore[arg-type]


def _plan_0150(step: StepView, features: ToolFeatures) -> list[ToolSpec]:
    ready = len(step.ready)
    tools: list[ToolSpec] = []
    if ready:
        multiple = ready >= 2
        tools += [_tool("exec_command", multiple), _tool("write_stdin", False)]
        if step.single_local_environment() is not None:
            tools.append(_tool("shell_command", False))
        if features.apply_patch:
            tools.append(_tool("apply_patch", multiple))
        if features.view_image:
            tools.append(_tool("view_image", multiple))
        if features.request_permissions:
            tools.append(_tool("request_permissions", True))
    if features.deferred_executor and step.starting:
        tools.append(_tool("wait_for_environment", "required"))
    return tools


def _plan_0171(step: StepView, features: ToolFeatures) -> list[ToolSpec]:
    multiple = step.selected_count >= 2
    tools = [_tool("exec_command", multiple), _tool("write_stdin", False)]
    if features.apply_patch:
        tools.append(_tool("apply_patch", False))
    if features.view_image:
        tools.append(_tool("view_image", multiple))
    if features.request_permissions:
        tools.append(_tool("request_permissions", multiple))
    if features.deferred_executor:
        tools.append(_tool("wait_for_environment", "required"))
    return tools
