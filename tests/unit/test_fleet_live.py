"""The fleet's live part: each host's daemon report in its rows, the alerts once per
request, the metrics' host label, and the table of hosts (filters, sub-agents, enter).

What the real daemons say, on two hosts, is tests/integration/test_fleet_daemons.py.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.support.data.session_trees import copy_real
from tests.support.waiting import wait_until

from envtui.environments.daemon.address import DaemonAddress
from envtui.environments.daemon.client import RETRY_MAX
from envtui.environments.daemon.threads import DaemonThread
from envtui.environments.jsonrpc import MessageChannel
from envtui.environments.remote import RetryableError
from envtui.incidents.fleet_alerts import FleetAlerts
from envtui.incidents.fleet_rows import (
    STALE_POLLS,
    HostFreshness,
    PendingRequest,
    ThreadFacts,
    ThreadLive,
    families,
    live_changes,
    mark_versions,
    row_json,
    waiting_of,
)
from envtui.incidents.sessions_view import SessionsView
from envtui.incidents.thread_summary import ThreadSummary
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource, restart_backoff
from envtui.sources.metrics_state import MetricsState
from envtui.sources.sessions.fleet import Fleet, SessionsHost
from envtui.sources.sessions.host_daemon import (
    DaemonReport,
    HostDaemon,
    codex_status,
    version_of,
)
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex

APPROVAL = {"type": "active", "activeFlags": ["waitingOnApproval"]}
COMMAND = "item/commandExecution/requestApproval"


def _summary(thread: str, *, host: str = "", live: bool = False, **fields: object) -> ThreadSummary:
    return ThreadSummary(thread, f"/t/{thread}", host=host, live=live, **fields)  # type: ignore[arg-type]


def _waiting(request_id: int, command: str = "rm -rf /tmp/x") -> ThreadLive:
    return ThreadLive(
        APPROVAL, (PendingRequest(COMMAND, "devbox", command, request_id, "command"),)
    )


def test_codexs_status_shape_is_given_back_as_codex_sends_it() -> None:
    thread = DaemonThread("t")
    for status in ({"type": "idle"}, {"type": "systemError"}, {"type": "notLoaded"}, APPROVAL):
        thread.set_status(status)
        assert codex_status(thread) == status
    thread.set_status({"type": "active", "activeFlags": []})
    assert codex_status(thread) == {"type": "active", "activeFlags": []}


def test_the_daemons_version_is_read_from_its_user_agent() -> None:
    assert version_of("codex_cli_rs/0.171.0 (Debian 13; x86_64) envtui/0.1") == "0.171.0"
    assert version_of("something else") is None
    assert version_of(None) is None


def test_a_host_whose_daemon_runs_another_codex_than_its_cli_is_marked() -> None:
    same = HostFreshness("a", codex_version="0.171.0", daemon_version="0.171.0")
    other = HostFreshness("b", codex_version="0.150.0", daemon_version="0.171.0")
    files_only = HostFreshness("c", codex_version="0.150.0")
    mark_versions([same, other, files_only])
    assert (same.daemon_differs, other.daemon_differs, files_only.daemon_differs) == (
        False,
        True,
        False,
    )
    assert [h.version_differs for h in (same, other, files_only)] == [False, False, True]


def test_a_lost_daemon_makes_its_host_reconnecting_with_the_reason_and_no_live_status() -> None:
    files_read = datetime(2026, 12, 6, 12, 0, 5, tzinfo=UTC)
    daemon_heard = datetime(2026, 12, 6, 12, 0, 1, tzinfo=UTC)
    host = HostFreshness("box", state="connected", last_heard=files_read, live=None)
    host.daemon, host.daemon_reason = "reconnecting", "the socket closed"
    host.daemon_heard = daemon_heard
    assert host.shown() == ("reconnecting", "daemon: the socket closed")
    assert host.heard() == daemon_heard  # the daemon is what went quiet
    host.daemon = "no daemon"  # never reached: the host shows its files, and is not down
    assert host.shown() == ("connected", None)
    host.state, host.reason = "unreachable", "ssh: refused"  # the files' reason comes first
    assert host.shown() == ("unreachable", "ssh: refused")
    line = row_json(_summary("t", host="box", live=True), host)
    assert (line["host_state"], line["state"], line["status"]) == (
        "unreachable",
        "no live status",
        None,
    )


def test_a_thread_the_daemon_does_not_hold_is_not_loaded_or_embedded_never_idle() -> None:
    host = HostFreshness("box", state="connected", live={})
    quiet = row_json(_summary("q", host="box"), host)
    written = row_json(_summary("w", host="box", live=True), host)
    assert (quiet["state"], quiet["status"]) == ("not loaded", {"type": "notLoaded"})
    assert (written["state"], written["status"]) == ("embedded", None)


def test_each_request_is_alerted_once_naming_host_thread_and_environment() -> None:
    alerts = FleetAlerts()
    at = datetime(2026, 12, 6, tzinfo=UTC)
    a = HostFreshness("a", live={"t1": _waiting(0)})
    b = HostFreshness("b", live={"t2": _waiting(0)})  # the same id on another host: its own
    first = alerts.new([a, b], at)
    assert [(x.host, x.thread, x.environment_id, x.code) for x in first] == [
        ("a", "t1", "devbox", "command"),
        ("b", "t2", "devbox", "command"),
    ]
    assert first[0].summary() == "needs you: a thread t1 command on devbox: rm -rf /tmp/x"
    assert first[0].as_json()["host"] == "a"
    assert alerts.new([a, b], at) == []  # the next poll shows the same requests
    a.live = {"t1": _waiting(0), "t3": _waiting(4, "make")}
    assert [(x.thread, x.message) for x in alerts.new([a, b], at)] == [("t3", "make")]
    a.live = None  # the daemon lost, then back with the same request under the same id
    assert alerts.new([a], at) == []
    a.live = {"t1": _waiting(0)}
    assert alerts.new([a], at) == []


def test_a_sub_agent_that_waits_brings_its_family_to_the_top() -> None:
    parent = _summary("p", host="a")
    waiting_child = _summary("c", host="a", parent_thread_id="p")
    other = _summary("o", host="a")
    # sorted: the waiting child first, then the other thread, then the parent
    placed = families([waiting_child, other, parent])
    assert [(row.thread_id, depth) for row, depth in placed] == [("p", 0), ("c", 1), ("o", 0)]


def test_live_changes_name_the_rows_whose_state_may_read_otherwise() -> None:
    keys = ["a/t1", "a/t2", "b/t1"]
    before = [HostFreshness("a", live={"t1": _waiting(0)}), HostFreshness("b", live=None)]
    after = [HostFreshness("a", live={"t1": _waiting(0)}), HostFreshness("b", live=None)]
    assert live_changes(before, after, keys) == set()
    after[0].live = {"t2": ThreadLive({"type": "idle"})}
    assert live_changes(before, after, keys) == {"a/t1", "a/t2"}
    after[1].live = {}
    assert live_changes(before, after, keys) == {"a/t1", "a/t2", "b/t1"}


def test_the_metrics_of_hosts_carry_a_host_label_and_the_live_waiting() -> None:
    from tests.unit.test_metrics import _samples

    state = MetricsState()
    rows = [_summary("t", host="a", live=True), _summary("t", host="b", live=True)]
    hosts = [HostFreshness("a", live={"t": _waiting(0)}), HostFreshness("b", live={})]
    state.sessions(rows, waiting=waiting_of(rows, hosts))
    samples = _samples(state)
    waiting = {
        labels: value
        for (name, labels), value in samples.items()
        if name == "envtui_thread_waiting"
    }
    assert waiting == {
        (("host", "a"), ("reason", "approval"), ("thread", "t")): 1.0,
        (("host", "a"), ("reason", "input"), ("thread", "t")): 0.0,
    }  # b does not hold its "t": its status is not known, so no series


def test_one_trees_metrics_have_no_host_label() -> None:
    from tests.unit.test_metrics import _samples

    state = MetricsState()
    state.sessions([_summary("t", live=True, incidents=["context-mismatch"])])
    assert (
        "envtui_incidents_active",
        (("code", "context-mismatch"), ("thread", "t")),
    ) in _samples(state)


def _host(name: str, root: Path) -> SessionsHost:
    files = LocalSessionFiles(root)
    return SessionsHost(name, files, SessionsIndex(files, host=name))


def test_a_thread_its_daemon_holds_opens_through_the_daemon_else_its_rollout(
    tmp_path: Path,
) -> None:
    copy_real(tmp_path / "a")
    host = _host("a", tmp_path / "a")
    host.attach = DaemonOptions(address=DaemonAddress(path=tmp_path / "daemon.sock"))
    fleet = Fleet([host])
    view = fleet.poll()
    held, other = view.threads[0], view.threads[1]
    fleet.set_daemon("a", DaemonReport("attached", live={held.thread_id: _waiting(0)}))
    source = fleet.thread_source(held)
    assert isinstance(source, DaemonSource)
    assert source.options.thread == held.thread_id
    assert not isinstance(fleet.thread_source(other), DaemonSource)
    fleet.set_daemon("a", DaemonReport("reconnecting", "gone", live=None))
    assert not isinstance(fleet.thread_source(held), DaemonSource)


async def test_a_daemon_wakes_the_next_poll_when_it_says_something_new_only(
    tmp_path: Path,
) -> None:
    """A daemon answers every interval; only a change (a thread waiting, the daemon lost)
    wakes the next poll of the trees: with several hosts, each answer would poll every
    tree once per daemon per interval."""
    copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a")])
    held = fleet.poll().threads[0].thread_id
    at = datetime(2026, 12, 6, tzinfo=UTC)
    fleet.set_daemon("a", DaemonReport("attached", heard=at, version="0.171.0", live={}))
    assert fleet.woken.is_set()  # attached: new
    fleet.woken.clear()
    later = at + timedelta(seconds=1)
    fleet.set_daemon("a", DaemonReport("attached", heard=later, version="0.171.0", live={}))
    assert not fleet.woken.is_set()  # heard again, nothing new
    assert fleet.hosts[0].freshness.daemon_heard == later  # still kept for the next poll
    waiting = {held: _waiting(0)}
    fleet.set_daemon("a", DaemonReport("attached", heard=later, version="0.171.0", live=waiting))
    assert fleet.woken.is_set()  # a thread waits
    fleet.woken.clear()
    fleet.set_daemon("a", DaemonReport("attached", heard=later, version="0.171.0", live=waiting))
    assert not fleet.woken.is_set()
    fleet.set_daemon("a", DaemonReport("reconnecting", "gone", heard=later, live=None))
    assert fleet.woken.is_set()  # lost


async def test_a_host_without_a_daemon_says_so_and_keeps_trying_without_being_down() -> None:
    reports: list[DaemonReport] = []
    tries = []

    async def refused() -> object:
        tries.append(1)
        raise RetryableError("no codex app-server daemon runs here")

    daemon = HostDaemon("box", refused, lambda _, r: reports.append(r), interval=0.01)  # type: ignore[arg-type]
    stop = asyncio.Event()
    task = asyncio.create_task(daemon.run(stop))
    try:
        await wait_until(lambda: len(tries) >= 2, what="a second try")
    finally:
        stop.set()
        await task
    assert daemon.tried
    assert {(r.state, r.live) for r in reports} == {("no daemon", None)}
    assert reports[0].reason == "no codex app-server daemon runs here"


def test_a_daemon_heard_lately_is_reconnecting_then_unreachable_once_stale() -> None:
    now = [datetime(2026, 12, 6, tzinfo=UTC)]
    reports: list[DaemonReport] = []
    daemon = HostDaemon(
        "box",
        None,  # type: ignore[arg-type]  # never opened: only what it says is tested
        lambda _, r: reports.append(r),
        interval=1.0,
        clock=lambda: now[0],
    )
    daemon.heard = now[0]
    daemon._lost("the daemon's socket closed")
    now[0] += timedelta(seconds=STALE_POLLS + 0.5)
    daemon._lost("refused")
    assert [(r.state, r.reason, r.heard) for r in reports] == [
        ("reconnecting", "the daemon's socket closed", daemon.heard),
        ("unreachable", "refused", daemon.heard),
    ]


def test_a_lost_daemon_is_tried_again_as_often_as_envtui_codex_tries_its_daemon() -> None:
    """One cap for both: a host's daemon lost is tried again at most three seconds apart,
    so it is seen back as soon as ``envtui codex`` sees its own daemon back."""
    daemon = HostDaemon("box", None, lambda _, r: None)  # type: ignore[arg-type]
    codex = restart_backoff()
    assert (daemon.backoff.initial, daemon.backoff.maximum) == (codex.initial, codex.maximum)
    assert daemon.backoff.maximum == RETRY_MAX == 3.0
    delays = [daemon.backoff.next_delay() for _ in range(20)]
    assert max(delays) <= RETRY_MAX
    assert delays[-1] >= RETRY_MAX / 2  # capped, not stuck at the first delay


async def test_an_ssh_hosts_daemon_is_tried_again_with_the_hosts_own_backoff(
    tmp_path: Path,
) -> None:
    """Over SSH a try dials the host (and starts ``codex app-server proxy`` there): the
    host's own backoff, as ``envtui codex --ssh`` waits; here, the daemon's three seconds."""
    from envtui.environments.ssh import SshSettings

    async def refused() -> MessageChannel:
        raise OSError("refused")

    ssh = SshSettings(host="box", backoff_initial=2.0, backoff_max=45.0)
    files = LocalSessionFiles(tmp_path)
    there = SessionsHost(
        "there", files, SessionsIndex(files, host="there"), daemon=refused,
        attach=DaemonOptions(address=DaemonAddress(), ssh=ssh),
    )  # fmt: skip
    here = SessionsHost("here", files, SessionsIndex(files, host="here"), daemon=refused)
    fleet = Fleet([there, here])
    stop = asyncio.Event()
    stop.set()
    await fleet.run_daemons(stop)
    backoffs = {name: daemon.backoff for name, daemon in fleet.daemons.items()}
    assert (backoffs["there"].initial, backoffs["there"].maximum) == (2.0, 45.0)
    assert backoffs["here"].maximum == RETRY_MAX


@pytest.mark.tui
async def test_the_hosts_table_filters_as_codex_does_and_draws_sub_agents_under_parents(
    tmp_path: Path,
) -> None:
    """Pilot: a waiting thread first with its name; ``f`` steps to needs you, working,
    idle, ``1`` back to all; a sub-agent under its parent; ``?`` names enter and f; a
    request alerted once, naming its host and thread."""
    from textual.widgets import Static

    from tests.support.screens_shown import screen_shown
    from tests.support.waiting import pilot_wait_until

    from envtui.settings.alerts_config import AlertsConfig
    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.tui.options import DashboardOptions
    from envtui.tui.screens import TextScreen
    from envtui.tui.sessions.sessions_app import SessionsApp

    copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a")])
    rows = SessionsIndex(LocalSessionFiles(tmp_path / "a")).poll().threads
    waiting, working, child = (row.thread_id for row in rows)
    live = {
        waiting: ThreadLive(APPROVAL, _waiting(7).pending),
        working: ThreadLive({"type": "active", "activeFlags": []}),
    }
    facts = {waiting: ThreadFacts(name="fix the build")}
    fleet.set_daemon("a", DaemonReport("attached", heard=datetime.now(UTC), live=live, facts=facts))
    parent_of = {child: working}

    async def watch(show: object, stop: object) -> None:
        original = fleet.poll

        def poll_with_parents() -> SessionsView:
            view = original()
            for row in view.threads:
                row.parent_thread_id = parent_of.get(row.thread_id)
            return view

        fleet.poll = poll_with_parents  # type: ignore[method-assign]
        await watch_sessions(fleet, show, stop, poll=0.05)  # type: ignore[arg-type]

    alerts = AlertsConfig(notify=True)
    options = DashboardOptions(source_name="sessions a", alerts=alerts)
    app = SessionsApp(watch, fleet.thread_source, options, hosts=True)
    async with app.run_test(size=(220, 30)) as pilot:
        table = app.sessions.table
        await pilot_wait_until(pilot, lambda: table.row_count == 3, what="three rows")
        ids = table.shown_ids()
        assert ids[0] == f"a/{waiting}"
        assert str(table.get_cell(ids[0], "name")) == "fix the build"
        assert ids.index(f"a/{child}") == ids.index(f"a/{working}") + 1
        assert str(table.get_cell(f"a/{child}", "thread")).startswith("└")
        await pilot.press("f")
        await pilot_wait_until(pilot, lambda: table.row_count == 1, what="needs you only")
        assert table.shown_ids() == [f"a/{waiting}"]
        assert "showing needs you" in str(app.sessions.query_one("#header", Static).render())
        await pilot.press("f")
        await pilot_wait_until(
            pilot, lambda: table.shown_ids() == [f"a/{working}"], what="working only"
        )
        await pilot.press("f")
        await pilot_wait_until(pilot, lambda: table.row_count == 0, what="idle: none")
        await pilot.press("1")
        await pilot_wait_until(pilot, lambda: table.row_count == 3, what="all again")
        await pilot.press("question_mark")
        help_screen = await screen_shown(app, pilot, TextScreen)
        help_text = str(help_screen.query_one(Static).render())
        assert "⏎                      open" in help_text  # enter, as the help draws it
        assert "needs you/working/idle" in help_text
        await pilot.press("escape")
        said = f"needs you: a thread {waiting} command on devbox: rm -rf /tmp/x"
        await pilot_wait_until(
            pilot, lambda: any(said in n.message for n in app.notices), what="the alert"
        )
        await pilot.pause(0.3)  # more polls show the same request: no second alert
        assert sum(said in n.message for n in app.notices) == 1
