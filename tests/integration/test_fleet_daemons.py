"""``envtui sessions`` over two hosts' real Codex 0.171 daemons (offline).

This machine is one host: a daemon serving one ``CODEX_HOME``. The other is a real sshd on
127.0.0.1 (its own port, its host key in a test known_hosts) whose login reaches a daemon
serving a second ``CODEX_HOME``, through ``codex app-server proxy`` over the connection
its tree is read over. On each, the thread's owner (a client of the socket, as the Codex
TUI is) starts a turn whose model asks to run a command outside the sandbox: both threads
wait on an approval; a ``codex exec`` run here writes a thread no daemon holds (embedded).
``--json`` and the merged table say so with their hosts and requests; answering from a
thread's dashboard reaches that host's Codex only; a killed daemon makes its host reconnecting, then unreachable, and leaves the
other host as it was.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.support.main_in_process import Capture, run_cli
from tests.support.real.codex_approvals import approval_codex, escalated
from tests.support.real.codex_daemon import Owner, ServedDaemon, daemon_home
from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.real.fleet_app import fleet_app
from tests.support.real.ssh_servers import SSHD, OpenSshServer, free_port
from tests.support.waiting import pilot_wait_until, poll_until, wait_until

from envtui.commands import sessions as sessions_command

pytestmark = [
    needs_codex,
    pytest.mark.skipif(SSHD is None, reason="needs OpenSSH's sshd, which is missing"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

COMMAND = "item/commandExecution/requestApproval"
SETTLE_UNDER_LOAD = 120.0
"""The bound ``--json`` waits for the daemons in these tests: a hang guard (it prints once
every daemon said all), where the command's own 10 s would make a loaded machine fail."""


@contextmanager
def _two_daemons() -> Iterator[tuple[ServedDaemon, ServedDaemon]]:
    asks = [escalated("echo from-here", "devbox"), {"message": "done"}]
    asks_there = [escalated("echo from-there", "devbox"), {"message": "done"}]
    with daemon_home(asks) as here, daemon_home(asks_there) as there:
        yield here, there


OWNERS: dict[str, Owner] = {}


@asynccontextmanager
async def _waiting_on_both(
    here: ServedDaemon, there: ServedDaemon
) -> AsyncIterator[dict[str, str]]:
    """A turn started on each daemon by its owner, both waiting on an approval; the
    thread ids by host (the owners in :data:`OWNERS` meanwhile)."""
    async with AsyncExitStack() as stack:
        threads = {}
        for name, daemon in (("here", here), ("there", there)):
            owner = OWNERS[name] = await Owner.connect(daemon.socket)
            stack.push_async_callback(owner.aclose)
            stack.callback(OWNERS.pop, name)
            threads[name] = await owner.start_turn(daemon.codex.work)
            await wait_until(partial(_asks, owner), timeout=90, what=f"{name} asks")
        yield threads


def _asks(owner: Owner) -> bool:
    return bool(owner.requests)


def _config(path: Path, here: ServedDaemon, there: ServedDaemon, sshd: OpenSshServer) -> Path:
    entry = sshd.environment("unused", "/")
    ssh = {k: v for k, v in entry.items() if k not in ("id", "kind", "cwd")}
    path.write_text(
        f'[[hosts]]\nname = "here"\ncodex_home = "{here.codex.home}"\n'
        f'[[hosts]]\nname = "there"\ncodex_home = "{there.codex.home}"\ncodex = "{CODEX}"\n'
        "[hosts.ssh]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in ssh.items())
    )
    return path


@asynccontextmanager
async def _sshd(folder: Path) -> AsyncIterator[OpenSshServer]:
    folder.mkdir()
    server = OpenSshServer(folder, free_port()).start()
    try:
        await server.accepting(timeout=30.0)
        yield server
    finally:
        server.stop()


def _waiting_rows(rows: list[dict[str, Any]], threads: dict[str, str]) -> dict[str, Any]:
    return {r["host"]: r for r in rows if threads.get(r["host"]) == r["thread"]}


def _exec_in(home: Path, root: Path) -> None:
    """A ``codex exec`` turn in ``home`` (its own stand-in answers it): it runs embedded,
    the home's daemon does not hold its thread."""
    codex = approval_codex(root, [{"message": "done by exec"}])
    done = subprocess.run(
        [str(codex.program), "exec", "--skip-git-repo-check", "-C", str(codex.work), "hi"],
        env={**os.environ, "CODEX_HOME": str(home)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr


async def test_json_gives_both_hosts_waiting_threads_with_codexs_status_and_the_request(
    tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the other host is an ssh login and a remote proxy away: on a loaded machine its
    # daemon may need more than the 10 s --json waits for it (it stops waiting once settled)
    monkeypatch.setattr(sessions_command, "SETTLE", SETTLE_UNDER_LOAD)
    with _two_daemons() as (here, there):
        async with _sshd(tmp_path / "sshd") as sshd, _waiting_on_both(here, there) as threads:
            await asyncio.to_thread(_exec_in, here.codex.home, tmp_path / "exec")
            config = _config(tmp_path / "config.toml", here, there, sshd)
            code, out, err = await asyncio.to_thread(
                run_cli, ["sessions", "--json", "--config", str(config)], capsys
            )
    rows = [json.loads(line) for line in out.splitlines()]
    (embedded,) = [r for r in rows if r["source"] == "exec"]
    assert (embedded["host"], embedded["state"], embedded["status"]) == ("here", "embedded", None)
    waiting = _waiting_rows(rows, threads)
    assert set(waiting) == {"here", "there"}, (rows, err)
    for host, row in waiting.items():
        assert row["host_state"] == "connected"
        assert row["state"] == "waiting on approval", (row, err)
        assert row["status"]["type"] == "active"
        assert "waitingOnApproval" in row["status"]["activeFlags"]
        (request,) = row["pending"]
        assert (request["method"], request["environment"]) == (COMMAND, "devbox")
        assert f"from-{host}" in request["detail"]
    assert code == 0, err


@pytest.mark.tui
async def test_the_merged_table_shows_both_waiting_and_a_killed_daemon_only_its_host_down(
    tmp_path: Path,
) -> None:
    with _two_daemons() as (here, there):
        async with _sshd(tmp_path / "sshd") as sshd, _waiting_on_both(here, there) as threads:
            config = _config(tmp_path / "config.toml", here, there, sshd)
            app = fleet_app(["--config", str(config)], "sessions here, there")
            async with app.run_test(size=(220, 30)) as pilot:
                table = app.sessions.table
                keys = {f"{host}/{thread}" for host, thread in threads.items()}

                def state(key: str) -> str | None:
                    return str(table.get_cell(key, "state")) if key in table.shown_ids() else None

                await pilot_wait_until(
                    pilot,
                    lambda: all(state(k) == "waiting on approval" for k in keys),
                    timeout=90,
                    what="both threads waiting, with their hosts",
                )
                assert set(table.shown_ids()[:2]) == keys  # who waits on you first
                await _decline_from_its_dashboard(pilot, app, f"there/{threads['there']}")
                await wait_until(
                    lambda: bool(OWNERS["there"].resolved), timeout=30, what="there's answer"
                )
                assert not OWNERS["here"].resolved  # the other host's request is untouched
                here.stop()
                await pilot_wait_until(
                    pilot,
                    lambda: _host(app, "here").daemon == "unreachable",
                    timeout=60,
                    what="the killed daemon's host unreachable",
                )
                assert _host(app, "here").shown()[0] == "unreachable"
                assert state(f"here/{threads['here']}") == "no live status"
                there_host = _host(app, "there")
                assert (there_host.daemon, there_host.shown()[0]) == ("attached", "connected")
                assert state(f"there/{threads['there']}") != "no live status"


async def _decline_from_its_dashboard(pilot: Any, app: Any, key: str) -> None:
    """``enter`` on the row opens the thread through its host's daemon; its request is
    declined there with the guarded keys (``x``, then ``y`` once armed); ``esc`` back."""
    from envtui.sources.daemon.attach import DaemonSource
    from envtui.tui.needs_you.confirm import ConfirmAnswer
    from envtui.tui.sessions.sessions_screen import ThreadScreen

    table = app.sessions.table
    table.move_cursor(row=table.get_row_index(key), animate=False)
    await pilot.press("enter")
    await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadScreen), what="opened")
    screen = app.screen
    assert isinstance(screen.options.answers, DaemonSource)
    await pilot_wait_until(
        pilot, lambda: bool(screen.store.needs_you.unanswered()), timeout=60, what="the request"
    )
    await pilot.press("x")
    await pilot_wait_until(
        pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed, what="armed"
    )
    await pilot.press("y")
    await pilot_wait_until(pilot, lambda: app.screen is screen, what="confirmed")
    await pilot.press("escape")
    await pilot_wait_until(pilot, lambda: app.screen is app.sessions, what="back to the list")


def _host(app: Any, name: str) -> Any:
    return next(h for h in app.sessions.hosts if h.name == name)


def test_headless_the_default_trees_daemon_says_a_waiting_thread_and_its_alert_runs_once(
    tmp_path: Path,
) -> None:
    """``envtui sessions --json --metrics --alert-command`` on CODEX_HOME's own tree (not made
    yet: Codex makes it with the thread's first rollout): its daemon is attached; a thread that starts waiting is printed again with its status,
    exported as waiting, and its request runs the alert command once."""
    told = tmp_path / "told.jsonl"
    alert = f"sh -c 'cat >> {told}'"
    with daemon_home([escalated("echo headless", "devbox"), {"message": "done"}]) as daemon:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "envtui", "sessions", "--json", "--poll-interval", "0.5",
             "--metrics", f"127.0.0.1:{port}", "--alert-command", alert],
            env={**os.environ, "CODEX_HOME": str(daemon.codex.home)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            poll_until(lambda: "envtui_source_up" in _scrape(port), timeout=60, what="serving")

            async def turn() -> tuple[Owner, str]:
                owner = await Owner.connect(daemon.socket)
                return owner, await owner.start_turn(daemon.codex.work)

            loop = asyncio.new_event_loop()
            owner, thread = loop.run_until_complete(turn())
            waiting = f'envtui_thread_waiting{{reason="approval",thread="{thread}"}} 1.0'
            poll_until(lambda: waiting in _scrape(port), timeout=90, what="exported waiting")
            poll_until(lambda: told.exists() and thread in told.read_text(), timeout=30)
            loop.run_until_complete(asyncio.sleep(3))  # more polls: the same request again
            loop.run_until_complete(owner.aclose())
            loop.close()
        finally:
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=60)
    (run,) = [json.loads(line) for line in told.read_text().splitlines()]
    (said,) = run["alerts"]
    assert (said["kind"], said["thread"], said["environment_id"]) == (
        "request_pending",
        thread,
        "devbox",
    )
    assert "echo headless" in said["message"]
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    states = [r["state"] for r in rows if r["thread"] == thread]
    assert "waiting on approval" in states, (rows, err)


def _scrape(port: int) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as answer:
            return str(answer.read().decode())
    except OSError:
        return ""
