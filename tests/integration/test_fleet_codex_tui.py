"""Two hosts' real Codex 0.171 daemons, one thread from the real Codex TUI (offline).

As in ``test_fleet_daemons.py``, this machine is one host (a daemon serving one
``CODEX_HOME``) and a real sshd on 127.0.0.1 reaches the other (a daemon serving a second
``CODEX_HOME``, through ``codex app-server proxy``). Here the other host's thread is the
real Codex TUI's, in tmux, a client of that host's daemon (``--remote``), as a person runs
it; its model stand-in asks to run a command outside the sandbox and the TUI shows the
prompt. This host's thread is started by a socket client. ``--json`` gives both waiting
with their hosts and requests; declined from the merged table's dashboard of the TUI's
thread, the TUI's prompt closes and it shows the command not run, and the other host's
request is untouched.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_fleet_daemons import (
    SETTLE_UNDER_LOAD,
    _config,
    _decline_from_its_dashboard,
    _sshd,
)
from tests.support.main_in_process import Capture, run_cli
from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import Owner, daemon_home
from tests.support.real.codex_tools import needs_codex
from tests.support.real.codex_tui import PROMPT, codex_tui, pane
from tests.support.real.fleet_app import fleet_app
from tests.support.real.ssh_servers import SSHD
from tests.support.waiting import pilot_wait_until, wait_until

from envtui.commands import sessions as sessions_command

pytestmark = [
    needs_codex,
    pytest.mark.skipif(SSHD is None, reason="needs OpenSSH's sshd, which is missing"),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux, which is missing"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

COMMAND = "item/commandExecution/requestApproval"
REJECTED_IN_TUI = "Exited (status 1) echo from-tui"


async def _asked_in_the_tui(socket: str) -> None:
    """Wait until the TUI shows Codex's approval prompt for its first turn."""
    await wait_until(lambda: PROMPT in pane(socket), timeout=90, what="the TUI's prompt")


def _json_rows(config: Path, capsys: Capture) -> tuple[list[dict[str, Any]], str]:
    code, out, err = run_cli(["sessions", "--json", "--config", str(config)], capsys)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()], err


async def _merged_table(config: Path, keys: set[str], decline: str) -> None:
    """The merged table (Pilot) shows both ``keys`` waiting; ``decline`` is declined from
    its dashboard."""
    app = fleet_app(["--config", str(config)], "sessions here, there")
    async with app.run_test(size=(220, 30)) as pilot:
        table = app.sessions.table

        def state(key: str) -> str | None:
            return str(table.get_cell(key, "state")) if key in table.shown_ids() else None

        await pilot_wait_until(
            pilot,
            lambda: all(state(k) == "waiting on approval" for k in keys),
            timeout=90,
            what="both threads waiting, with their hosts",
        )
        await _decline_from_its_dashboard(pilot, app, decline)
        await pilot.press("q")


async def test_the_real_tuis_waiting_thread_is_shown_with_its_host_and_answered_from_the_fleet(
    tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions_command, "SETTLE", SETTLE_UNDER_LOAD)  # see test_fleet_daemons
    asks_here = [escalated("echo from-here", "devbox"), {"message": "done"}]
    asks_tui = [escalated("echo from-tui", "devbox"), {"message": "done"}]
    with daemon_home(asks_here) as here, daemon_home(asks_tui) as there:
        async with _sshd(tmp_path / "sshd") as sshd:
            owner = await Owner.connect(here.socket)
            try:
                with codex_tui(there, "go") as socket:
                    threads = {"here": await owner.start_turn(here.codex.work)}
                    await _asked_in_the_tui(socket)
                    await wait_until(lambda: bool(owner.requests), timeout=90, what="here asks")
                    config = _config(tmp_path / "config.toml", here, there, sshd)
                    rows, err = await asyncio.to_thread(_json_rows, config, capsys)
                    waiting = [r for r in rows if r["state"] == "waiting on approval"]
                    assert {r["host"] for r in waiting} == {"here", "there"}, (rows, err)
                    for row in waiting:
                        assert "waitingOnApproval" in row["status"]["activeFlags"]
                        (request,) = row["pending"]
                        assert (request["method"], request["environment"]) == (COMMAND, "devbox")
                    by_host = {r["host"]: r for r in waiting}
                    assert by_host["here"]["thread"] == threads["here"]
                    assert "echo from-tui" in by_host["there"]["pending"][0]["detail"]
                    threads["there"] = by_host["there"]["thread"]
                    keys = {f"{host}/{thread}" for host, thread in threads.items()}
                    await _merged_table(config, keys, f"there/{threads['there']}")
                    await wait_until(
                        lambda: PROMPT not in pane(socket), timeout=30, what="the prompt closed"
                    )
                    await wait_until(
                        lambda: REJECTED_IN_TUI in pane(socket),
                        timeout=60,
                        what="the TUI showing the command rejected",
                    )
                    assert not owner.resolved  # the other host's request is untouched
            finally:
                await owner.aclose()
