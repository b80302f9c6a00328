"""``envtui sessions``: the --json lines and exit codes, and the table under Pilot."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.support.data.session_trees import (
    copy_real,
    thread_id,
    with_wrong_last_context,
    written_now,
)
from tests.support.main_in_process import run_cli
from tests.support.waiting import pilot_wait_until

from envtui.incidents.sessions_view import notes
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex, watch_sessions
from envtui.tui.main_screen import MainScreen
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions.sessions_app import SessionsApp
from envtui.tui.sessions.sessions_screen import SessionsScreen, ThreadScreen


def test_json_prints_one_line_per_thread_and_exits_0_without_live_incidents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_real(tmp_path)
    code, out, _ = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert len(lines) == 3
    assert len({line["thread"] for line in lines}) == 3


def test_json_exits_1_when_a_live_thread_has_an_active_incident(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_real(tmp_path)
    with_wrong_last_context(tmp_path, ago=0.0)
    code, out, _ = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    assert code == 1
    troubled = [json.loads(line) for line in out.splitlines() if thread_id(999) in line]
    assert troubled[0]["incidents"] == ["context-mismatch"]
    assert troubled[0]["live"] is True
    # the same thread, no longer live, is no reason to fail
    code, _, _ = run_cli(["sessions", str(tmp_path), "--json", "--live-window", "0"], capsys)
    assert code == 0


def test_a_missing_tree_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["sessions", str(tmp_path / "none"), "--json"], capsys)
    assert code == 2
    assert "no such directory" in err


def test_a_tree_not_made_yet_is_an_empty_one_said_then_read_once_made(tmp_path: Path) -> None:
    tree = tmp_path / "sessions"
    index = SessionsIndex(LocalSessionFiles(tree), absent_ok=True)
    view = index.poll()
    assert (view.up, view.threads, view.problem, view.absent) == (True, [], None, [str(tree)])
    assert notes(view) == [
        f"no sessions folder yet (Codex makes it with its first rollout), shown as empty: {tree}"
    ]
    copy_real(tree)
    view = index.poll()
    assert (view.up, len(view.threads), view.absent) == (True, 3, [])
    strict = SessionsIndex(LocalSessionFiles(tmp_path / "none")).poll()
    assert (strict.up, strict.absent) == (False, [])
    assert strict.problem is not None
    assert "cannot list" in strict.problem


def test_a_configured_hosts_tree_not_made_yet_is_empty_and_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f'[[hosts]]\nname = "here"\ncodex_home = "{home}"\n')
    code, out, err = run_cli(["sessions", "--json", "--config", str(config)], capsys)
    assert (code, out) == (0, "")
    assert err.count("no sessions folder yet") == 1
    assert str(home / "sessions") in err


def test_a_configured_home_that_is_not_there_is_an_error_not_an_empty_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[[hosts]]\nname = "here"\ncodex_home = "{tmp_path / "typo"}"\n')
    code, out, err = run_cli(["sessions", "--json", "--config", str(config)], capsys)
    assert "no sessions folder yet" not in err
    assert "here: " in err
    assert "cannot list: no such directory" in err
    assert (code, out) == (1, ""), err  # what a host that cannot be listed exits with


def test_a_bad_duration_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run_cli(["sessions", "--since", "soon"], capsys)
    assert "must be a duration" in capsys.readouterr().err


def _app(tmp_path: Path) -> SessionsApp:
    files = LocalSessionFiles(tmp_path)
    index = SessionsIndex(files)

    async def watch(show: object, stop: object) -> None:
        await watch_sessions(index, show, stop, poll=0.05)  # type: ignore[arg-type]

    return SessionsApp(watch, lambda s: files.rollout_source(s.path), DashboardOptions())


@pytest.mark.tui
async def test_the_table_gains_rows_opens_a_thread_follows_it_and_comes_back(
    tmp_path: Path,
) -> None:
    real = copy_real(tmp_path)
    parent = written_now(real[0])  # live: the table follows it line by line
    lines = parent.read_text().splitlines(keepends=True)
    cut = next(i for i, x in enumerate(lines) if '"task_complete"' in x) + 1  # the first turn
    parent.write_text("".join(lines[:cut]))
    app = _app(tmp_path)
    async with app.run_test(size=(200, 40)) as pilot:
        screen = app.sessions
        await pilot_wait_until(pilot, lambda: len(screen.threads) == 3, what="three rows")
        with_wrong_last_context(tmp_path)
        await pilot_wait_until(pilot, lambda: len(screen.threads) == 4, what="a new row")
        assert screen.table.row_count == 4
        parent_id = next(t for t, s in screen.threads.items() if s.path == str(parent))
        table = screen.table
        table.move_cursor(row=table.shown_ids().index(parent_id))
        await pilot.press("enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadScreen), what="open")
        thread = app.screen
        assert isinstance(thread, MainScreen)
        await pilot_wait_until(pilot, lambda: len(thread.store.steps) == 2, what="two steps")
        with parent.open("a") as out:
            out.write("".join(lines[cut:]))
        await pilot_wait_until(pilot, lambda: len(thread.store.steps) == 3, what="a new step")
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="back")
        # the table's row comes from the index's own poll, not from the thread's follower
        await pilot_wait_until(
            pilot, lambda: screen.threads[parent_id].steps == 3, what="the row's three steps"
        )


def test_metrics_on_an_address_in_use_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_real(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = run_cli(
            ["sessions", str(tmp_path), "--json", "--metrics", f"127.0.0.1:{port}"], capsys
        )
    assert code == 2
    assert "cannot listen" in err


def test_metrics_address_must_be_host_and_port(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run_cli(["events", "--metrics", "9464"], capsys)
    assert "must be HOST:PORT" in capsys.readouterr().err
