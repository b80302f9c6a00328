"""The ``envtui sessions`` app: the dashboard's themes and keys, the sessions table first.

The index's polls are published into the sessions screen by a task of the app's own,
which ends (with every thread opened from the table) when the app closes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from textual.screen import Screen

from envtui.incidents.sessions_view import SessionsView
from envtui.tui.app import SOURCE_STOP_GRACE, EnvTuiApp
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions.sessions_screen import SessionsScreen, ThreadOpener

SessionsWatch = Callable[[Callable[[SessionsView], None], asyncio.Event], Awaitable[None]]
"""Polls a sessions tree until the event is set, publishing each view."""


class SessionsApp(EnvTuiApp):
    def __init__(
        self,
        watch: SessionsWatch,
        opener: ThreadOpener,
        options: DashboardOptions,
        *,
        hosts: bool = False,
        poll_interval: float = 1.0,
    ) -> None:
        """``hosts``: the table of configured hosts (see SessionsScreen), polled every
        ``poll_interval`` seconds (a host not heard from for three is stale)."""
        super().__init__(None, options)
        self.sessions = SessionsScreen(self.options, opener, hosts=hosts)
        self.sessions.poll_interval = poll_interval
        self._watch = watch
        self._watch_stop = asyncio.Event()
        self._watch_task: asyncio.Task[None] | None = None

    def get_default_screen(self) -> Screen[Any]:
        return self.sessions

    def on_mount(self) -> None:
        super().on_mount()
        self._watch_task = asyncio.get_running_loop().create_task(self._run_watch())

    async def _run_watch(self) -> None:
        try:
            await self._watch(self.sessions.show, self._watch_stop)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failing index is a notice, never a crash
            self.notify(f"the sessions index stopped: {exc}", severity="error", markup=False)

    async def on_unmount(self) -> None:
        self._watch_stop.set()
        await self.sessions.stop_threads()
        if self._watch_task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._watch_task), timeout=SOURCE_STOP_GRACE)
            except (TimeoutError, asyncio.CancelledError, Exception):
                self._watch_task.cancel()
                await asyncio.wait({self._watch_task}, timeout=1)
        await super().on_unmount()
