"""The ``environments`` section Codex would build from one step's snapshot.

Ready entries, in selection order, become available and the first one is primary;
starting entries become starting. Failed entries follow the profile: codex 0.150 leaves
them out (so the next diff tombstones them), codex 0.171 renders them as failed with their
error.
"""

from __future__ import annotations

from envtui.context.model import EnvironmentState
from envtui.context.paths import path_text
from envtui.environments.manager import EnvironmentSnapshot
from envtui.profiles import Profile


def environment_states(
    snapshot: EnvironmentSnapshot, profile: Profile
) -> dict[str, EnvironmentState]:
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
