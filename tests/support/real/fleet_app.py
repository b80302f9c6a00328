"""The sessions table of ``envtui sessions`` as the command builds it, for Pilot: the fleet
of its arguments (hosts, their daemons and trees), watched as the command watches it."""

from __future__ import annotations

import asyncio
from typing import Any


def fleet_app(argv: list[str], source_name: str, *, poll: float = 1.0) -> Any:
    """A :class:`~envtui.tui.sessions.sessions_app.SessionsApp` of ``envtui sessions
    ARGV``'s fleet (its table of hosts), each host's daemon attached while it runs."""
    from envtui.cli import build_parser
    from envtui.commands.sessions import fleet_for
    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.tui.options import DashboardOptions
    from envtui.tui.sessions.sessions_app import SessionsApp

    fleet = fleet_for(build_parser().parse_args(["sessions", *argv]))
    assert not isinstance(fleet, int), "envtui sessions refused its arguments"

    async def watch(show: Any, stop: asyncio.Event) -> None:
        await fleet.open()
        daemons = asyncio.get_running_loop().create_task(fleet.run_daemons(stop))
        try:
            await watch_sessions(fleet, show, stop, poll=poll, wake=fleet.woken)
        finally:
            stop.set()
            await asyncio.wait({daemons}, timeout=10)
            await fleet.aclose()

    options = DashboardOptions(source_name=source_name)
    return SessionsApp(watch, fleet.thread_source, options, hosts=True)
