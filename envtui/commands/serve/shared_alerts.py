"""The alert command of ``envtui serve``'s shared source: run once, by the server.

A dashboard takes its alerts from its store (new and resolved incidents, environments that
went down or came back, what Codex asks); here a store of the server's own sees every
event the source writes, and what it raises goes to one :class:`AlertCommand`, which
coalesces bursts and never overlaps its runs. A problem with the command (it failed, it
hung) is said on the server's standard error.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envtui.vocabulary.safe_text import for_terminal

if TYPE_CHECKING:
    from envtui.dashboard.store import Store
    from envtui.settings.alerts_config import AlertsConfig
    from envtui.sources.alerts import AlertCommand
    from envtui.vocabulary.events import Event, EventSink, Source

ALERT_CHECK = 0.25
"""Seconds between two looks at the store's alerts, as a dashboard looks."""


@dataclass
class AlertingSink:
    """The stream's sink, and with an alert command, a store that raises its alerts."""

    write: EventSink
    store: Store | None = None
    command: AlertCommand | None = None

    def __call__(self, event: Event) -> None:
        self.write(event)
        if self.store is not None:
            self.store.apply(event)
            self.store.take_changes()  # nothing draws this store: its changes are dropped

    async def run(self, source: Source, stop: asyncio.Event, check: float = ALERT_CHECK) -> None:
        """``source`` into this sink until it ends; its alerts to the command meanwhile,
        the last of them delivered, and the command ended, before this returns."""
        if self.command is None:
            await source(self, stop)
            return
        delivering = asyncio.get_running_loop().create_task(self._deliver(stop, check))
        try:
            await source(self, stop)
        finally:
            delivering.cancel()
            self._hand_over()
            await self.command.aclose()

    async def _deliver(self, stop: asyncio.Event, check: float) -> None:
        while not stop.is_set():
            self._hand_over()
            await asyncio.sleep(check)

    def _hand_over(self) -> None:
        assert self.store is not None
        assert self.command is not None
        alerts = self.store.alerts.take()
        if alerts:
            self.command.add(alerts)


def say(message: str) -> None:
    print(for_terminal(f"envtui serve: {message}"), file=sys.stderr, flush=True)


def with_alert_command(
    write: EventSink, settings: AlertsConfig | None, report: Callable[[str], None] = say
) -> AlertingSink:
    """``write``, with the alert command of ``settings`` run on what the events raise."""
    if settings is None or not settings.command:
        return AlertingSink(write)
    from envtui.commands.dashboard_sources import alert_command
    from envtui.dashboard.store import Store

    return AlertingSink(write, Store(), alert_command(settings, report))
