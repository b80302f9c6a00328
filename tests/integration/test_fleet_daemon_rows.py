"""``envtui sessions`` on CODEX_HOME's own tree with the real Codex 0.171 daemon (offline):
what the daemon lists beyond its loaded threads' status.

One home, one thread, in three moments:

1. a fresh home whose daemon holds a thread that has no rollout yet (Codex writes it, and
   makes the sessions folder, with the first turn): the missing folder is an empty tree,
   said once, and the thread has a row from the daemon;
2. after a turn, its rollout dated a day back: outside ``--since 1m`` it still has a row
   from the daemon, with its first words;
3. the daemon served again: the thread is only on disk now (not loaded), and its row,
   read from the files, takes its name column from the daemon's ``thread/list`` preview,
   in ``--json`` and in the table, one line; a thread started while the table watches is
   named by its first words too once its turn has run (Codex says a new thread without).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.main_in_process import Capture, run_cli
from tests.support.real.codex_daemon import Owner, ServedDaemon, daemon_home, serve_daemon
from tests.support.real.codex_tools import needs_codex
from tests.support.real.fleet_app import fleet_app
from tests.support.waiting import pilot_wait_until, wait_until

pytestmark = [needs_codex, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

ASKED = "fix the flaky build\nplease"
"""The turn's words: Codex's preview of the thread (two lines: shown as one)."""
A_DAY = 86_400


def _rows(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


async def _sessions(capsys: Capture, *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    code, out, err = await asyncio.to_thread(run_cli, ["sessions", "--json", *argv], capsys)
    return code, _rows(out), err


@contextmanager
def _served_again(daemon: ServedDaemon) -> Iterator[ServedDaemon]:
    daemon.stop()
    again = serve_daemon(daemon.codex)
    try:
        yield again
    finally:
        again.stop()


async def test_the_daemon_gives_rows_names_and_an_empty_tree_before_codex_writes_one(
    capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with daemon_home([{"message": "done"}] * 3) as daemon:
        home = daemon.codex.home
        monkeypatch.setenv("CODEX_HOME", str(home))
        owner = await Owner.connect(daemon.socket)
        try:
            started = await owner.rpc.request(
                "thread/start", {"cwd": str(daemon.codex.work)}, timeout=60
            )
            thread = started["thread"]["id"]
            assert not (home / "sessions").exists()  # Codex makes it with the first turn

            code, rows, err = await _sessions(capsys)
            assert code == 0, err
            (row,) = rows
            assert (row["thread"], row["rollout_read"], row["state"]) == (thread, False, "idle")
            assert (row["cwd"], row["cli_version"]) == (str(daemon.codex.work), "0.171.0")
            assert row["last_written"] is not None
            assert err.count("no sessions folder yet") == 1, err

            await owner.rpc.request(
                "turn/start",
                {"threadId": thread, "input": [{"type": "text", "text": ASKED}]},
                timeout=60,
            )
            await wait_until(
                lambda: "task_complete" in daemon.codex.rollout(), timeout=90, what="the turn"
            )
            (rollout,) = home.glob("sessions/*/*/*/rollout-*.jsonl")
            os.utime(rollout, (rollout.stat().st_mtime - A_DAY,) * 2)
            code, rows, err = await _sessions(capsys, "--since", "1m")
            assert code == 0, err
            (row,) = rows
            assert (row["thread"], row["rollout_read"], row["name"]) == (thread, False, ASKED)
        finally:
            await owner.aclose()

        with _served_again(daemon) as again:
            code, rows, err = await _sessions(capsys)
            assert code == 0, err
            (row,) = rows
            assert (row["thread"], row["rollout_read"], row["state"]) == (
                thread,
                True,
                "not loaded",
            )
            assert (row["name"], row["preview"]) == (ASKED, ASKED)
            await _the_table_names_it(thread, again)
        files_only = await asyncio.to_thread(
            run_cli, ["sessions", str(home / "sessions"), "--json"], capsys
        )
        names = {row["thread"]: row["name"] for row in _rows(files_only[1])}
        assert names[thread] is None  # no daemon: what the files give


async def _the_table_names_it(thread: str, daemon: ServedDaemon) -> None:
    """Pilot: the row's name cell is the daemon's preview, one line, as text."""
    app = fleet_app([], f"sessions {daemon.codex.home}", poll=0.5)
    async with app.run_test(size=(200, 20)) as pilot:
        table = app.sessions.table

        def name() -> str | None:
            return str(table.get_cell(thread, "name")) if thread in table.shown_ids() else None

        await pilot_wait_until(
            pilot, lambda: name() == "fix the flaky build please", timeout=60, what="the name"
        )
        assert str(table.get_cell(thread, "state")) == "not loaded"
        owner = await Owner.connect(daemon.socket)
        try:
            thread = await owner.start_turn(daemon.codex.work, "rename the tests")
            await pilot_wait_until(
                pilot, lambda: name() == "rename the tests", timeout=90, what="the new name"
            )
        finally:
            await owner.aclose()
