"""Assembling one sampling step's environments section from its parts.

This is where ``include_environment_context`` acts: when it is off there is no section at
all, so no block is ever sent and no snapshot is stored (Codex sends no "removed" block
either). It is also where the date is taken, once per step, from the injected clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from envtui.context.local_time import current_date
from envtui.context.model import (
    EnvironmentsState,
    EnvironmentState,
    FileSystemContext,
    NetworkContext,
)


def format_subagents(agents: Iterable[tuple[str, str | None]]) -> str | None:
    """One ``- ref: nickname`` line per sub-agent (``- ref`` without a nickname); None if none."""
    lines = [f"- {ref}: {nickname}" if nickname else f"- {ref}" for ref, nickname in agents]
    return "\n".join(lines) if lines else None


def network_from_domains(domains: Mapping[str, str]) -> NetworkContext:
    """Codex's managed ``[network]`` table: pattern → ``allow``/``deny``, each list sorted."""
    allowed = tuple(sorted(p for p, rule in domains.items() if rule == "allow"))
    denied = tuple(sorted(p for p, rule in domains.items() if rule == "deny"))
    return NetworkContext(allowed_domains=allowed, denied_domains=denied)


def environments_section(
    environments: Mapping[str, EnvironmentState],
    *,
    now: datetime,
    timezone: str,
    include_environment_context: bool = True,
    network: NetworkContext | None = None,
    filesystem: FileSystemContext | None = None,
    subagents: str | None = None,
) -> EnvironmentsState | None:
    """The section for one step, or None when ``include_environment_context`` is off.

    ``filesystem`` describes the primary environment, so with no environment ready there is
    none, as in Codex.
    """
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
