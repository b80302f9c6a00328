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

Which tool takes ``environment_id`` when is one table per profile,
:data:`ENVIRONMENT_ID_RULES`; both the plan and the rules that check recorded tools read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from envtui.steps.tools import (
    APPLY_PATCH,
    EXEC_COMMAND,
    REQUEST_PERMISSIONS,
    SHELL_COMMAND,
    VIEW_IMAGE,
    WAIT_FOR_ENVIRONMENT,
    WRITE_STDIN,
    EnvironmentParameter,
    ToolSpec,
)
from envtui.steps.values import StepView
from envtui.vocabulary.profiles import Profile

IdRule = Literal["never", "two_or_more", "always", "required"]
"""When a tool takes ``environment_id``: never, with two or more environments, always
(optional), or always and required."""

ENVIRONMENT_ID_RULES: dict[Profile, dict[str, IdRule]] = {
    Profile.CODEX_0150: {
        EXEC_COMMAND: "two_or_more",
        WRITE_STDIN: "never",
        SHELL_COMMAND: "never",
        APPLY_PATCH: "two_or_more",
        VIEW_IMAGE: "two_or_more",
        REQUEST_PERMISSIONS: "always",
        WAIT_FOR_ENVIRONMENT: "required",
    },
    Profile.CODEX_0171: {
        EXEC_COMMAND: "two_or_more",
        WRITE_STDIN: "never",
        SHELL_COMMAND: "never",
        APPLY_PATCH: "never",
        VIEW_IMAGE: "two_or_more",
        REQUEST_PERMISSIONS: "two_or_more",
        WAIT_FOR_ENVIRONMENT: "required",
    },
}


@dataclass(frozen=True)
class ToolFeatures:
    """What the model and configuration enable; decides which tools exist at all."""

    apply_patch: bool = True
    view_image: bool = True
    request_permissions: bool = False
    deferred_executor: bool = False


def environment_count(step: StepView, profile: Profile) -> int:
    """The number that decides the environment mode: ready (0.150) or selected (0.171)."""
    return len(step.ready) if profile is Profile.CODEX_0150 else step.selected_count


def environment_parameter(tool: str, count: int, profile: Profile) -> EnvironmentParameter:
    """The ``environment_id`` parameter the profile's Codex gives ``tool`` at this count."""
    rule = ENVIRONMENT_ID_RULES[profile].get(tool, "never")
    if rule == "required":
        return "required"
    if rule == "always" or (rule == "two_or_more" and count >= 2):
        return "optional"
    return "absent"


def expects_environment_id(tool: str, count: int, profile: Profile) -> bool:
    """Whether the profile's Codex offers ``environment_id`` on ``tool`` at this count."""
    return environment_parameter(tool, count, profile) != "absent"


def plan_tools(
    step: StepView, profile: Profile, features: ToolFeatures = ToolFeatures()
) -> list[ToolSpec]:
    """The environment tools Codex would offer at ``step``, each with its parameter."""
    count = environment_count(step, profile)
    names = (
        _offered_0150(step, features) if profile is Profile.CODEX_0150 else _offered_0171(features)
    )
    return [ToolSpec(n, environment_parameter(n, count, profile), None, "planned") for n in names]


def _offered_0150(step: StepView, features: ToolFeatures) -> list[str]:
    names: list[str] = []
    if step.ready:
        names += [EXEC_COMMAND, WRITE_STDIN]
        if step.single_local_environment() is not None:
            names.append(SHELL_COMMAND)
        names += _optional_tools(features)
    if features.deferred_executor and step.starting:
        names.append(WAIT_FOR_ENVIRONMENT)
    return names


def _offered_0171(features: ToolFeatures) -> list[str]:
    names = [EXEC_COMMAND, WRITE_STDIN, *_optional_tools(features)]
    if features.deferred_executor:
        names.append(WAIT_FOR_ENVIRONMENT)
    return names


def _optional_tools(features: ToolFeatures) -> list[str]:
    enabled = (
        (APPLY_PATCH, features.apply_patch),
        (VIEW_IMAGE, features.view_image),
        (REQUEST_PERMISSIONS, features.request_permissions),
    )
    return [name for name, on in enabled if on]
