"""What the model is told at one step: the environments section, built in one place.

Every producer of a step's section (the live engine, ``envtui snapshot``, the step
capture, tests) comes here, so what the model is told cannot be assembled two ways.

* Ready entries, in selection order, become available and the first one is primary;
  starting entries become starting. Failed entries follow the profile: codex 0.150 leaves
  them out (so the next diff tombstones them), codex 0.171 renders them as failed with
  their error.
* ``include_environment_context`` acts here: when it is off there is no section at all,
  so no block is ever sent and no snapshot is stored (Codex sends no "removed" block
  either).
* The date is taken here, once per step, from the clock the caller passes.
* ``filesystem`` describes the primary environment, so with no environment available
  there is none, as in Codex.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from envtui.context.local_time import current_date
from envtui.context.model import (
    EnvironmentsState,
    EnvironmentState,
    FileSystemContext,
    NetworkContext,
)
from envtui.context.paths import path_text
from envtui.steps.selection import SelectionSnapshot
from envtui.vocabulary.profiles import Profile


@dataclass(frozen=True)
class SectionSettings:
    """What a thread's sections take besides the environments: fixed for the thread."""

    profile: Profile
    timezone: str
    network: NetworkContext | None = None
    include_environment_context: bool = True


def environment_states(
    snapshot: SelectionSnapshot, profile: Profile
) -> dict[str, EnvironmentState]:
    """Each selected environment as the context shows it, under ``profile``."""
    states: dict[str, EnvironmentState] = {}
    for index, entry in enumerate(snapshot.ready()):
        readiness = entry.readiness
        states[entry.environment_id] = EnvironmentState(
            cwd=path_text(entry.selection.cwd),
            status="available",
            shell=readiness.shell_name if readiness else None,
            is_primary=index == 0,
        )
    for entry in snapshot.starting():
        states.setdefault(
            entry.environment_id,
            EnvironmentState(cwd=path_text(entry.selection.cwd), status="starting"),
        )
    if profile.renders_failed_environments:
        for entry in snapshot.failed():
            states.setdefault(
                entry.environment_id,
                EnvironmentState(
                    cwd=path_text(entry.selection.cwd), status="failed", error=entry.error or ""
                ),
            )
    return states


def build_section(
    environments: Mapping[str, EnvironmentState],
    *,
    now: datetime,
    timezone: str,
    include_environment_context: bool = True,
    network: NetworkContext | None = None,
    filesystem: FileSystemContext | None = None,
    subagents: str | None = None,
) -> EnvironmentsState | None:
    """The section for one step, or None when ``include_environment_context`` is off."""
    if not include_environment_context:
        return None
    if not any(env.status == "available" for env in environments.values()):
        filesystem = None
    return EnvironmentsState(
        environments=environments,
        current_date=current_date(now, timezone),
        timezone=timezone,
        network=network,
        filesystem=filesystem,
        subagents=subagents,
    )


def section_for(
    snapshot: SelectionSnapshot, settings: SectionSettings, now: datetime
) -> EnvironmentsState | None:
    """The section a turn's snapshot gives at ``now``: what the model is told."""
    return build_section(
        environment_states(snapshot, settings.profile),
        now=now,
        timezone=settings.timezone,
        include_environment_context=settings.include_environment_context,
        network=settings.network,
    )


def network_context(allowed: Iterable[str], denied: Iterable[str]) -> NetworkContext:
    """Network rules as the context renders them, in the order given."""
    return NetworkContext(allowed_domains=tuple(allowed), denied_domains=tuple(denied))
