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

from envtui.config import AnyEnvironmentConfig, Config
from envtui.context.local_time import current_date, detect_timezone, system_clock
from envtui.context.model import EnvironmentsState, NetworkContext
from envtui.environments.factory import build_environment
from envtui.environments.manager import EnvironmentManager, EnvironmentSnapshot, Selection
from envtui.environments.section import environment_states
from envtui.environments.ssh import SshEnvironment
from envtui.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    WarningMessage,
    thread_event,
)
from envtui.steps.model import ConnectionState

EventSink = Callable[[Event], None]


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
        self.timezone = detect_timezone(config.timezone)
        self._reselect_pending = False
        self.connection: dict[str, ConnectionState] = {}  # the latest connection event per id

    def start(self) -> None:
        for environment in self.environments:
            self.manager.register(environment)
        self.manager.update_selections(self.selections)

    def _on_event(self, event: Event) -> None:
        self._sink(event)
        msg = event.msg
        if isinstance(msg, EnvironmentConnected):
            self.connection[msg.environment_id] = "connected"
        elif isinstance(msg, EnvironmentDisconnected):
            self.connection[msg.environment_id] = "disconnected"
        if isinstance(msg, EnvironmentStatus) and msg.status == "ready":
            self._note_accepted_keys(msg.environment_id)
            if self._resolution_failed(msg.environment_id) and not self._reselect_pending:
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

    def _note_accepted_keys(self, environment_id: str) -> None:
        environment = self.manager.get(environment_id)
        if isinstance(environment, SshEnvironment):
            while environment.notes:
                note = environment.notes.pop(0)
                self._sink(
                    thread_event(
                        WarningMessage(message=note, environment_id=environment_id),
                        at=self.clock(),
                    )
                )

    async def snapshot(self, timeout: float | None) -> EnvironmentSnapshot:
        return await self.manager.snapshot_blocking(timeout=timeout)

    def section(self, snapshot: EnvironmentSnapshot) -> EnvironmentsState | None:
        """The context section for ``snapshot`` (None when include_environment_context is off)."""
        if not self.config.include_environment_context:
            return None
        return EnvironmentsState(
            environments=environment_states(snapshot, self.config.codex_profile),
            current_date=current_date(self.clock(), self.timezone),
            timezone=self.timezone,
            network=self.network(),
        )

    def network(self) -> NetworkContext | None:
        """The configured ``[network]`` rules, as the context renders them."""
        if self.config.network is None:
            return None
        return NetworkContext(
            allowed_domains=tuple(self.config.network.allowed),
            denied_domains=tuple(self.config.network.denied),
        )

    async def aclose(self) -> None:
        await self.manager.aclose()
