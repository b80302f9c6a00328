"""From Codex's request to the needs-you panel, on the real daemon: ``envtui codex`` attached.

The real Codex 0.171 app-server serves its daemon socket offline (the loopback model stand-in
asks for a command outside the sandbox); a second client of the socket starts the turn, as
the Codex TUI would. envtui's dashboard, attached to the same socket, hears the thread wait,
subscribes, is asked the request again and draws it. Measured: from the request's
``startedAtMs`` (Codex's own clock) to the panel's text holding the command, polled tightly.
Budget: 1 s on an idle machine. Run: ``python -m benchmarks.bench_daemon [--runs 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import Owner, daemon_home

from envtui.environments.daemon.address import DaemonAddress
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.needs_you.panel import NeedsYouPanel

BUDGET = 1.0
COMMAND = "echo bench-daemon"


async def one_run() -> float:
    """Seconds from Codex's request to the panel row."""
    with daemon_home([escalated(COMMAND, "devbox"), {"message": "done"}]) as daemon:
        owner = await Owner.connect(daemon.socket)
        source = DaemonSource(DaemonOptions(address=DaemonAddress(path=daemon.socket)))
        app = EnvTuiApp(source, DashboardOptions(source_name="codex daemon", answers=source))
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                while source.client is None or source.down is not None:
                    await pilot.pause(0.05)
                await owner.start_turn(daemon.codex.work)
                while COMMAND not in str(app.screen.query_one(NeedsYouPanel).render()):
                    await pilot.pause(0.005)
                shown = time.time()
                (request,) = app.store.needs_you.unanswered()
                asked = (request.msg.started_at_ms or 0) / 1000
                owner.answer(request.msg.request_id, "decline")
                await pilot.press("q")
        finally:
            await owner.aclose()
    return shown - asked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    seconds = [asyncio.run(one_run()) for _ in range(runs)]
    print(
        f"request to panel row over {runs} runs: "
        f"median {statistics.median(seconds) * 1000:.0f} ms, "
        f"max {max(seconds) * 1000:.0f} ms (budget {BUDGET * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    main()
