"""envtui's own runtime: the configured environments under Codex's selection rules.

The engine registers every configured environment, selects them in config order, and
forwards the manager's events. It also does what a dashboard's retries are for: when an
environment whose resolution failed comes back, it re-issues the same selection, so Codex's
rule "a failed resolution is replaced on the next update" takes the recovered instance.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime

from envtui.context.local_time import detect_timezone, system_clock
from envtui.context.model import EnvironmentsState
from envtui.environments.factory import build_environment
from envtui.environments.manager import EnvironmentManager
from envtui.settings.config import AnyEnvironmentConfig, Config
from envtui.steps.section import SectionSettings, network_context, section_for
from envtui.steps.selection import Selection, SelectionSnapshot
from envtui.vocabulary.events import (
    ConnectionState,
    EnvironmentStatus,
    Event,
    EventSink,
    connection_change,
)


class Engine:
    def __init__(
        self,
        config: Config,
        sink: EventSink,
        *,
        clock: Callable[[], datetime] = system_clock,
        environments: Sequence[AnyEnvironmentConfig] | None = None,
        hermetic: bool = False,
    ) -> None:
        """``environments`` replaces the config's own (for example Codex's environments.toml).

        ``hermetic`` keeps SSH away from ``~/.ssh/config`` and the agent (the demo's own hosts).
        """
        self.config = config
        self._sink = sink
        self.clock = clock
        self.manager = EnvironmentManager(self._on_event, clock=clock)
        chosen = list(environments) if environments is not None else config.selected()
        self.environments = [build_environment(c, clock=clock, hermetic=hermetic) for c in chosen]
        self.selections = [Selection(c.id, c.cwd, tuple(c.workspace_roots)) for c in chosen]
        network = config.network
        self.section_settings = SectionSettings(
            profile=config.codex_profile,
            timezone=detect_timezone(config.timezone),
            network=network_context(network.allowed, network.denied) if network else None,
            include_environment_context=config.include_environment_context,
        )
        self._reselect_pending = False
        self.connection: dict[str, ConnectionState] = {}  # the latest connection event per id

    @property
    def timezone(self) -> str:
        return self.section_settings.timezone

    def start(self) -> None:
        for environment in self.environments:
            self.manager.register(environment)
        self.manager.update_selections(self.selections)

    def _on_event(self, event: Event) -> None:
        self._sink(event)
        msg = event.msg
        change = connection_change(msg)
        if change is not None:
            self.connection[change[0]] = change[1]
        if (
            isinstance(msg, EnvironmentStatus)
            and msg.status == "ready"
            and self._resolution_failed(msg.environment_id)
            and not self._reselect_pending
        ):
            self._reselect_pending = True
            asyncio.get_running_loop().call_soon(self._reselect)

    def _resolution_failed(self, environment_id: str) -> bool:
        entry = next(
            (e for e in self.manager.snapshot().entries if e.environment_id == environment_id),
            None,
        )
        return entry is not None and entry.state == "failed"

    def _reselect(self) -> None:
        self._reselect_pending = False
        self.manager.update_selections(self.selections)

    async def snapshot(self, timeout: float | None) -> SelectionSnapshot:
        return await self.manager.snapshot_blocking(timeout=timeout)

    def section(self, snapshot: SelectionSnapshot) -> EnvironmentsState | None:
        """The context section for ``snapshot`` now (None when the include switch is off)."""
        return section_for(snapshot, self.section_settings, self.clock())

    async def aclose(self) -> None:
        await self.manager.aclose()
