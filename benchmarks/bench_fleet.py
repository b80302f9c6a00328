"""From Codex's request to the merged table and the alert, on three hosts' real daemons.

Three configured hosts, each a real Codex 0.171 app-server serving the daemon socket of its
own ``CODEX_HOME`` offline (the loopback model stand-in asks for a command outside the
sandbox), are one ``envtui sessions`` table (Pilot, every host's daemon attached as the
command attaches it). A client of the last host's socket starts the turn, as the Codex TUI
would. Measured: from the request's ``startedAtMs`` (Codex's own clock) to the thread's row
saying ``waiting on approval``, and to the alert (a toast, ``--notify``) naming it, polled
tightly. Budgets (issue 39): 1 s to the row, 2 s to the alert, on an idle machine.
Run: ``python -m benchmarks.bench_fleet [--runs 3] [--hosts 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from contextlib import ExitStack
from typing import Any

from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import Owner, ServedDaemon, daemon_home

from envtui.settings.alerts_config import AlertsConfig
from envtui.settings.config import HostConfig
from envtui.sources.sessions.fleet import Fleet
from envtui.sources.sessions.hosts import configured_host
from envtui.sources.sessions.session_files import SessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex, watch_sessions
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions.sessions_app import SessionsApp

ROW_BUDGET = 1.0
ALERT_BUDGET = 2.0
COMMAND = "echo bench-fleet"


def _fleet(daemons: list[ServedDaemon]) -> Fleet:
    def index(files: SessionFiles, host: str) -> SessionsIndex:
        return SessionsIndex(files, host=host)

    hosts = []
    for number, daemon in enumerate(daemons):
        (daemon.codex.home / "sessions").mkdir(exist_ok=True)
        config = HostConfig(name=f"host-{number}", codex_home=str(daemon.codex.home))
        hosts.append(configured_host(config, index))
    return Fleet(hosts, interval=1.0)


async def one_run(count: int) -> tuple[float, float]:
    """Seconds from Codex's request to the row, and to the alert."""
    with ExitStack() as stack:
        daemons = [
            stack.enter_context(daemon_home([escalated(COMMAND, "devbox"), {"message": "ok"}]))
            for _ in range(count)
        ]
        fleet = _fleet(daemons)

        async def watch(show: Any, stop: asyncio.Event) -> None:
            await fleet.open()
            daemons_task = asyncio.get_running_loop().create_task(fleet.run_daemons(stop))
            try:
                await watch_sessions(fleet, show, stop, poll=1.0, wake=fleet.woken)
            finally:
                stop.set()
                await asyncio.wait({daemons_task}, timeout=10)

        options = DashboardOptions(source_name="sessions", alerts=AlertsConfig(notify=True))
        app = SessionsApp(watch, fleet.thread_source, options, hosts=True)
        owner = await Owner.connect(daemons[-1].socket)
        try:
            async with app.run_test(size=(200, 40)) as pilot:
                while (
                    any(d.state != "attached" for d in fleet.daemons.values())
                    or len(fleet.daemons) < count
                ):
                    await pilot.pause(0.05)
                thread = await owner.start_turn(daemons[-1].codex.work)
                key = f"host-{count - 1}/{thread}"
                table = app.sessions.table
                shown = alerted = 0.0
                while not (shown and alerted):
                    if not shown and _waiting(table, key):
                        shown = time.time()
                    if not alerted and any(thread in n.message for n in app.notices):
                        alerted = time.time()
                    await pilot.pause(0.005)
                while not owner.requests:
                    await pilot.pause(0.01)
                request = owner.requests[0]
                asked = request["params"].get("startedAtMs", 0) / 1000
                owner.answer(request["id"], "decline")
                await pilot.press("q")
        finally:
            await owner.aclose()
    return shown - asked, alerted - asked


def _waiting(table: Any, key: str) -> bool:
    return key in table.shown_ids() and str(table.get_cell(key, "state")) == "waiting on approval"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hosts", type=int, default=3)
    args = parser.parse_args()
    results = [asyncio.run(one_run(args.hosts)) for _ in range(args.runs)]
    for name, index, budget in (("row", 0, ROW_BUDGET), ("alert", 1, ALERT_BUDGET)):
        seconds = [r[index] for r in results]
        print(
            f"request to {name} on {args.hosts} hosts over {args.runs} runs: "
            f"median {statistics.median(seconds) * 1000:.0f} ms, "
            f"max {max(seconds) * 1000:.0f} ms (budget {budget * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    main()
