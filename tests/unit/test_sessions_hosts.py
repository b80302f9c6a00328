"""Hosts in the config, several trees as one view, each row's state, misnamed files said."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.support.data.session_trees import SOURCE_0171, copy_real, day_folder
from tests.support.main_in_process import Capture, run_cli

from envtui.incidents.fleet_rows import (
    NO_LIVE_STATUS,
    HostFreshness,
    PendingRequest,
    ThreadLive,
    host_named,
    mark_versions,
    matches,
    row_json,
    row_state,
    under_parents,
)
from envtui.incidents.thread_summary import ThreadSummary
from envtui.settings.config import ConfigError, parse_config
from envtui.sources.sessions.fleet import Fleet, SessionsHost
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex

HOSTS_TOML = """\
[[hosts]]
name = "here"

[[hosts]]
name = "box"
codex_home = "/srv/codex"
codex = "/opt/codex/bin/codex"

[hosts.ssh]
host = "127.0.0.1"
port = 2222
known_hosts = "/etc/envtui/known_hosts"
"""


def test_hosts_are_read_with_their_defaults() -> None:
    config = parse_config(HOSTS_TOML, "c.toml")
    here, box = config.hosts
    assert (here.name, here.ssh, here.codex_home, here.codex) == ("here", None, "~/.codex", None)
    assert box.ssh is not None
    assert (box.ssh.host, box.ssh.port, box.codex_home) == ("127.0.0.1", 2222, "/srv/codex")
    assert box.ssh.known_hosts_files() == ("/etc/envtui/known_hosts",)
    assert box.ssh.accept_new_host_keys is False  # as for an SSH environment


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (("port = 2222", 'port = "2222"'), "c.toml:11: hosts[1].ssh.port: Input should be"),
        (("port = 2222", "prot = 2222"), "c.toml:11: hosts[1].ssh.prot: unknown key"),
        (('name = "box"', 'name = "here"'), "c.toml:5: hosts[1].name: duplicate host name"),
        (('codex = "/opt', 'codexx = "/opt'), "c.toml:7: hosts[1].codexx: unknown key"),
    ],
)
def test_a_host_error_names_file_line_and_key(change: tuple[str, str], where: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config(HOSTS_TOML.replace(*change), "c.toml")
    assert str(raised.value).startswith(where)


def _summary(thread: str, *, host: str = "", live: bool = False, **fields: object) -> ThreadSummary:
    return ThreadSummary(thread, f"/t/{thread}", host=host, live=live, **fields)  # type: ignore[arg-type]


def test_a_row_state_comes_from_the_live_feed_and_never_says_idle_without_one() -> None:
    written = _summary("a", live=True)
    quiet = _summary("b")
    assert row_state(written, None) == row_state(quiet, None) == NO_LIVE_STATUS
    feed = {
        "a": ThreadLive({"type": "active", "activeFlags": ["waitingOnApproval"]}),
        "c": ThreadLive({"type": "active", "activeFlags": ["waitingOnUserInput"]}),
        "d": ThreadLive({"type": "active", "activeFlags": []}),
        "e": ThreadLive({"type": "idle"}),
        "f": ThreadLive({"type": "systemError"}),
    }
    assert row_state(written, feed) == "waiting on approval"
    assert row_state(_summary("c"), feed) == "waiting on input"
    assert row_state(_summary("d"), feed) == "working"
    assert row_state(_summary("e"), feed) == "idle"
    assert row_state(_summary("f"), feed) == "system error"
    # written now, and the daemon does not hold it: it runs embedded
    assert row_state(_summary("g", live=True), feed) == "embedded"
    assert row_state(quiet, feed) == "not loaded"


def test_filters_are_codexs_own() -> None:
    assert matches("waiting on approval", "needs you")
    assert matches("waiting on input", "needs you")
    assert not matches("working", "needs you")
    assert matches("working", "working")
    assert not matches("idle", "working")
    assert matches(NO_LIVE_STATUS, "all")
    assert not matches(NO_LIVE_STATUS, "idle")


def test_a_sub_agent_is_shown_under_its_parent_on_the_same_host() -> None:
    parent = _summary("p", host="a")
    child = _summary("c", host="a", parent_thread_id="p")
    grandchild = _summary("g", host="a", parent_thread_id="c")
    elsewhere = _summary("x", host="b", parent_thread_id="p")  # another host's "p"
    loop = [_summary("l1", parent_thread_id="l2"), _summary("l2", parent_thread_id="l1")]
    rows = under_parents([grandchild, elsewhere, child, parent, *loop])
    assert [(r.thread_id, depth) for r, depth in rows] == [
        ("x", 0),
        ("p", 0),
        ("c", 1),
        ("g", 2),
        ("l1", 0),
        ("l2", 1),
    ]


def test_a_host_on_another_codex_version_is_marked() -> None:
    hosts = [HostFreshness(n, codex_version=v) for n, v in [("a", "0.171.0"), ("b", "0.171.0")]]
    hosts.append(HostFreshness("c", codex_version="0.150.0"))
    hosts.append(HostFreshness("d"))
    mark_versions(hosts)
    assert [h.version_differs for h in hosts] == [False, False, True, False]


def test_a_row_json_has_its_host_and_the_live_status_in_codexs_shape() -> None:
    host = HostFreshness("box", state="connected")
    status = {"type": "active", "activeFlags": ["waitingOnApproval"]}
    pending = PendingRequest("item/commandExecution/requestApproval", "remote", "rm -rf /tmp/x")
    host.live = {"t": ThreadLive(status, (pending,))}
    line = row_json(_summary("t", host="box"), host_named([host], "box"))
    assert line["host"] == "box"
    assert line["host_state"] == "connected"
    assert line["state"] == "waiting on approval"
    assert line["status"] == status
    assert line["pending"] == [
        {
            "method": "item/commandExecution/requestApproval",
            "environment": "remote",
            "detail": "rm -rf /tmp/x",
        }
    ]
    files_only = row_json(_summary("u", host="box"), HostFreshness("box"))
    assert (files_only["state"], files_only["status"], files_only["pending"]) == (
        NO_LIVE_STATUS,
        None,
        [],
    )


def _host(name: str, root: Path) -> SessionsHost:
    files = LocalSessionFiles(root)
    return SessionsHost(name, files, SessionsIndex(files, host=name))


def test_two_trees_are_one_view_keyed_by_host(tmp_path: Path) -> None:
    """The same rollouts on two hosts are two rows each; a tree that goes away says so
    and keeps its rows, the other is unaffected."""
    copy_real(tmp_path / "a")
    copy_real(tmp_path / "b")
    now = [datetime(2026, 12, 6, tzinfo=UTC).timestamp()]
    fleet = Fleet([_host("a", tmp_path / "a"), _host("b", tmp_path / "b")], clock=lambda: now[0])
    view = fleet.poll()
    assert view.up
    assert view.problem is None
    assert len(view.threads) == 6 == len({row.key for row in view.threads})
    assert {row.host for row in view.threads} == {"a", "b"}
    assert view.changed == {row.key for row in view.threads}
    assert [(h.name, h.state) for h in view.hosts] == [("a", "connected"), ("b", "connected")]
    newest = max(view.threads, key=lambda row: (row.last_written, row.thread_id))
    assert {h.codex_version for h in view.hosts} == {newest.cli_version}
    assert not any(h.version_differs for h in view.hosts)
    shutil.rmtree(tmp_path / "b")
    now[0] += 1
    view = fleet.poll()
    assert view.up
    assert [(h.name, h.state) for h in view.hosts] == [("a", "connected"), ("b", "reconnecting")]
    assert view.problem is not None
    assert view.problem.startswith("b: ")
    assert len(view.threads) == 6  # b's rows as last read
    now[0] += 10  # past three poll intervals: b is stale, and unreachable
    fleet.poll()
    assert fleet.hosts[1].freshness.state == "unreachable"
    assert fleet.hosts[1].freshness.stale(datetime.fromtimestamp(now[0], UTC), fleet.interval)
    assert not fleet.hosts[0].freshness.stale(
        datetime.fromtimestamp(now[0], UTC) + timedelta(seconds=1), fleet.interval
    )


def test_a_hosts_codex_version_follows_its_newest_thread_across_idle_polls(
    tmp_path: Path,
) -> None:
    """The host's version is its thread written last; an idle poll (no row changed) keeps
    it, a thread of another version written again moves it."""
    paths = copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a")])
    first = fleet.poll()
    before = first.hosts[0].codex_version
    newest = max(first.threads, key=lambda row: (row.last_written, row.thread_id))
    assert before == newest.cli_version is not None
    idle = fleet.poll()
    assert not idle.changed
    assert idle.changed_threads() == []
    assert idle.hosts[0].codex_version == before
    other = next(row for row in first.threads if row.cli_version != before)
    (path,) = [p for p in paths if other.thread_id in p.name]
    later = max(p.stat().st_mtime for p in paths) + 60
    os.utime(path, (later, later))
    moved = fleet.poll()
    assert other.key in moved.changed
    assert moved.hosts[0].codex_version == other.cli_version != before
    assert fleet.poll().hosts[0].codex_version == other.cli_version


def test_the_live_feed_reaches_its_host_rows_only(tmp_path: Path) -> None:
    copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a"), _host("b", tmp_path / "a")])
    fleet.set_live("a", {})
    view = fleet.poll()
    states = {
        (row.host, row_json(row, host_named(view.hosts, row.host))["state"]) for row in view.threads
    }
    assert states == {("a", "not loaded"), ("b", NO_LIVE_STATUS)}


def test_a_misnamed_jsonl_file_is_counted_and_said_once(tmp_path: Path, capsys: Capture) -> None:
    copy_real(tmp_path)
    shutil.copy(SOURCE_0171, day_folder(tmp_path) / "copy-of-a-thread.jsonl")
    (day_folder(tmp_path) / "notes.txt").write_text("not a rollout")
    view = SessionsIndex(LocalSessionFiles(tmp_path)).poll()
    assert [Path(p).name for p in view.misnamed] == ["copy-of-a-thread.jsonl"]
    assert len(view.threads) == 3
    code, out, err = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    assert code == 0
    assert len(out.splitlines()) == 3
    assert err.count("copy-of-a-thread.jsonl") == 1
    assert "1 .jsonl file(s) not named rollout-<time>-<thread id>.jsonl (not read)" in err


def test_configured_local_hosts_are_one_json_table(
    tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("one", "two"):
        copy_real(tmp_path / name / "sessions")
    config = tmp_path / "config.toml"
    config.write_text(
        "".join(f'[[hosts]]\nname = "{n}"\ncodex_home = "{tmp_path / n}"\n' for n in ("one", "two"))
    )
    code, out, _ = run_cli(["sessions", "--json", "--config", str(config)], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [r["host"] for r in rows] == ["one"] * 3 + ["two"] * 3
    assert {r["host_state"] for r in rows} == {"connected"}
    assert {r["state"] for r in rows} == {NO_LIVE_STATUS}


def test_ssh_may_be_given_more_than_once() -> None:
    from envtui.cli import build_parser

    args = build_parser().parse_args(["sessions", "--ssh", "a", "--ssh", "b", "--json"])
    assert args.ssh == ["a", "b"]


@pytest.mark.tui
async def test_the_hosts_table_leads_with_host_and_state_and_says_each_hosts_freshness(
    tmp_path: Path,
) -> None:
    """Pilot: two hosts, one fed a live status (one thread waiting on approval), the other
    read from its files only; the header says each host's state and where it comes from."""
    from textual.widgets import Static

    from tests.support.waiting import pilot_wait_until

    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.tui.options import DashboardOptions
    from envtui.tui.sessions.sessions_app import SessionsApp

    copy_real(tmp_path / "a")
    copy_real(tmp_path / "b")
    fleet = Fleet([_host("a", tmp_path / "a"), _host("b", tmp_path / "b")])
    waiting = "01a22cff-8327-7a01-b3f2-16679aa14a85"
    fleet.set_live(
        "a", {waiting: ThreadLive({"type": "active", "activeFlags": ["waitingOnApproval"]})}
    )

    async def watch(show: object, stop: object) -> None:
        await watch_sessions(fleet, show, stop, poll=0.05)  # type: ignore[arg-type]

    options = DashboardOptions(source_name="sessions a, b")
    app = SessionsApp(watch, fleet.rollout_source, options, hosts=True)
    async with app.run_test(size=(200, 30)) as pilot:
        table = app.sessions.table
        await pilot_wait_until(pilot, lambda: table.row_count == 6, what="six rows")
        assert table.keys[:2] == ("host", "state")
        cells = {
            key: (str(table.get_cell(key, "host")), str(table.get_cell(key, "state")))
            for key in table.shown_ids()
        }
        assert cells[f"a/{waiting}"] == ("a", "waiting on approval")
        assert table.shown_ids()[0] == f"a/{waiting}"  # who waits on you comes first
        assert {v for k, v in cells.items() if k != f"a/{waiting}" and k.startswith("a/")} == {
            ("a", "not loaded")
        }
        assert {v[1] for k, v in cells.items() if k.startswith("b/")} == {NO_LIVE_STATUS}
        header = str(app.sessions.query_one("#header", Static).render())
        assert "a connected codex" in header
        assert "b connected codex" in header
        assert header.endswith("files only")  # b, read from its files only


@pytest.mark.tui
async def test_a_keymap_moves_the_sessions_keys(tmp_path: Path) -> None:
    """The table's own keys (Codex's filters, ``open``) are known ids a keymap moves."""
    from tests.support.waiting import pilot_wait_until

    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.tui.app import known_binding_ids
    from envtui.tui.options import DashboardOptions
    from envtui.tui.sessions.sessions_app import SessionsApp
    from envtui.tui.sessions.sessions_screen import ThreadScreen

    ids = set(known_binding_ids())
    assert {"state_filter", "show_1", "show_2", "show_3", "show_4", "open"} <= ids
    copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a")])
    waiting = "01a22cff-8327-7a01-b3f2-16679aa14a85"
    fleet.set_live(
        "a", {waiting: ThreadLive({"type": "active", "activeFlags": ["waitingOnApproval"]})}
    )

    async def watch(show: object, stop: object) -> None:
        await watch_sessions(fleet, show, stop, poll=0.05)  # type: ignore[arg-type]

    keymap = {"show_2": "x", "state_filter": "F", "open": "o"}
    options = DashboardOptions(source_name="sessions a", keymap=keymap)
    app = SessionsApp(watch, fleet.rollout_source, options, hosts=True)
    async with app.run_test(size=(200, 30)) as pilot:
        assert app.keymap_problems == []
        table = app.sessions.table
        await pilot_wait_until(pilot, lambda: table.row_count == 3, what="three rows")
        await pilot.press("x")  # show_2: needs you
        await pilot_wait_until(pilot, lambda: table.row_count == 1, what="who needs you")
        assert table.state_filter == "needs you"
        await pilot.press("F")  # the next filter: working (none)
        await pilot_wait_until(pilot, lambda: table.state_filter == "working", what="working")
        await pilot.press("x")
        await pilot_wait_until(pilot, lambda: table.row_count == 1, what="who needs you")
        await pilot.press("o")
        await pilot_wait_until(
            pilot, lambda: isinstance(app.screen, ThreadScreen), what="the thread opened"
        )
