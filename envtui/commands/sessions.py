"""``envtui sessions``: every Codex thread of every host's sessions tree, in one table.

The hosts are the config's ``[[hosts]]``; ``DIR`` (a tree here) or ``--ssh HOST`` (as often
as wanted) is a quick look instead. Each host's app-server daemon, where one answers, says
its loaded threads' status live (:mod:`envtui.sources.sessions.host_daemon`). Without
``--json`` it opens the sessions table (``enter`` opens a thread's dashboard: through its
host's daemon when loaded, else its rollout). With ``--json`` it prints one line per
thread, each with its host, and exits: 0, or 1 when a live thread has an active incident
or a host could not be read; with ``--metrics`` too it keeps running (a line for each
thread that changed) and serves the metrics until Ctrl+C or SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import dashboard_options, load, metrics_for
from envtui.commands.options import (
    ALERTS,
    CONFIG,
    METRICS,
    Arg,
    Command,
    Group,
    lasting,
    seconds,
    switch,
)
from envtui.commands.output import fail, needs_terminal, write_output
from envtui.settings.locations import export_dir
from envtui.vocabulary.safe_text import dumps_json_line

if TYPE_CHECKING:
    import asyncio

    from envtui.incidents.sessions_view import SessionsView
    from envtui.incidents.thread_summary import ThreadSummary
    from envtui.settings.alerts_config import AlertsConfig
    from envtui.settings.config import Config
    from envtui.sources.metrics_state import MetricsState
    from envtui.sources.sessions.fleet import Fleet
    from envtui.sources.sessions.session_files import SessionFiles
    from envtui.sources.sessions.sessions_index import SessionsIndex

COMMAND = "sessions"
SETTLE = 10.0
"""Seconds ``--json`` waits for the hosts' daemons before it prints what it has."""


SESSIONS = Command(
    COMMAND,
    description="One row per Codex thread of every configured host's sessions tree (the "
    "rollouts under CODEX_HOME/sessions; [[hosts]] in the config): its host, its state "
    "(from the host's app-server daemon where one runs: waiting on approval or input "
    "first), its environments at the latest step, active incidents and whether it is "
    "live. f filters as Codex does (all, needs you, working, idle); enter opens a thread "
    "through its host's daemon when loaded, else its rollout.",
    options=Group(
        Arg(
            "directory",
            nargs="?",
            metavar="DIR",
            help="the sessions tree (default: $CODEX_HOME/sessions, else ~/.codex/sessions; "
            "with --ssh, .codex/sessions in the login directory)",
        ),
        Arg(
            "--ssh",
            metavar="HOST",
            action="append",
            help="read the tree on HOST over SSH (SFTP); may be given more than once",
        ),
        lasting("--since", "only threads written within DURATION (90s, 15m, 2h, 7d)"),
        switch("--json", "print one JSON line per thread, then exit"),
        lasting(
            "--live-window",
            "a thread is live when its rollout was written within DURATION and its latest "
            "item is dated within it",
            default="2m",
        ),
        seconds(
            "--poll-interval",
            "look for new rollouts and new lines every S seconds",
            default=1.0,
            zero=False,
        ),
        METRICS,
        CONFIG,
        ALERTS,
        Arg("--theme", metavar="NAME", help="the theme (as for the dashboard)"),
        switch("--ascii", "draw every glyph in ASCII"),
    ),
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    SESSIONS.add_to(subparsers, handler=run)


def fleet_for(args: argparse.Namespace) -> Fleet | int:
    """The hosts to read (see the module), or the exit code when one cannot be."""
    from envtui.sources.sessions.fleet import Fleet, SessionsHost
    from envtui.sources.sessions.hosts import configured_host, ssh_host

    def index(files: SessionFiles, host: str) -> SessionsIndex:
        return index_for(args, files, host)

    def configured(files: SessionFiles, host: str) -> SessionsIndex:
        """A configured host's tree not made yet is empty, where its ``CODEX_HOME`` is
        there (here: a mistyped one is still an error; over SSH it cannot be known before
        the host is reached)."""
        return index_for(args, files, host, absent_ok=_home_there(files))

    interval = args.poll_interval
    if args.ssh:
        hosts = [ssh_host(name, args.directory, index) for name in args.ssh]
        return Fleet(hosts, interval=interval)
    if not args.directory and _config_named(args):
        config = load(COMMAND, args)
        if isinstance(config, int):
            return config
        if config.hosts:
            hosts = [configured_host(h, configured) for h in config.hosts]
            return Fleet(hosts, interval=interval)
    from envtui.sources.sessions.session_files import LocalSessionFiles, default_sessions_dir

    root = Path(args.directory).expanduser() if args.directory else default_sessions_dir()
    absent = not root.is_dir()
    if absent and (args.directory or not _daemon_listens(root.parent)):
        return fail(COMMAND, f"{root}: no such directory")
    files = LocalSessionFiles(root)
    host = SessionsHost("", files, index_for(args, files, "", absent_ok=absent))
    if not args.directory:  # CODEX_HOME's own tree: its daemon too
        from envtui.sources.sessions.hosts import local_attach, local_daemon

        host.daemon, host.attach = local_daemon(root.parent), local_attach(root.parent)
    return Fleet([host], interval=interval)


def _home_there(files: SessionFiles) -> bool:
    """Whether the ``CODEX_HOME`` of a configured tree may hold it: here, when it is a
    folder; over SSH, always (the host says so when listed)."""
    from envtui.sources.sessions.session_files import LocalSessionFiles

    return not isinstance(files, LocalSessionFiles) or files.root.parent.is_dir()


def _daemon_listens(codex_home: Path) -> bool:
    """Whether a daemon answers on ``codex_home``'s socket: its tree, not made yet (a fresh
    ``CODEX_HOME``: Codex makes it with its first rollout), is then an empty one."""
    from envtui.environments.daemon_socket import daemon_listens

    return daemon_listens(codex_home)


def _config_named(args: argparse.Namespace) -> bool:
    """Whether there is a config to read hosts from (none: nothing to import for it)."""
    import os

    from envtui.settings.locations import CONFIG_VARIABLE, default_config_file

    return bool(args.config or os.environ.get(CONFIG_VARIABLE) or default_config_file().exists())


def index_for(
    args: argparse.Namespace, files: SessionFiles, host: str = "", *, absent_ok: bool = False
) -> SessionsIndex:
    from envtui.sources.sessions.sessions_index import SessionsIndex

    return SessionsIndex(
        files, since=args.since, live_window=args.live_window, host=host, absent_ok=absent_ok
    )


def run(args: argparse.Namespace) -> int:
    fleet = fleet_for(args)
    if isinstance(fleet, int):
        return fleet
    if not args.json:
        refused = needs_terminal(COMMAND, "`envtui sessions --json`")
        if refused is not None:
            return refused
    served = metrics_for(COMMAND, args)
    if isinstance(served, int):
        return served
    state = served[0] if served is not None else None
    try:
        quick = state is None and not any(h.daemon for h in fleet.hosts)
        if args.json and quick and all(_here(h.files) for h in fleet.hosts):
            return _json_once(fleet)
        if args.json:
            import asyncio

            return asyncio.run(_json(args, fleet, state))
        return _dashboard(args, fleet, state)
    finally:
        if served is not None:
            served[1].close()


def _here(files: SessionFiles) -> bool:
    from envtui.sources.sessions.session_files import LocalSessionFiles

    return isinstance(files, LocalSessionFiles)


def failing(threads: list[ThreadSummary]) -> bool:
    """Exit 1: a live thread has an active incident."""
    return any(t.live and t.incidents for t in threads)


def _print(threads: list[ThreadSummary], view: SessionsView) -> None:
    """One JSON line per thread, with its host's state and its live status; ids and paths
    from the files can hold anything, so the characters a terminal would act on are
    written as escapes (the values stay the same)."""
    from envtui.incidents.fleet_rows import host_named, row_json

    for summary in sorted(threads, key=lambda s: (s.host, s.thread_id)):
        line = row_json(summary, host_named(view.hosts, summary.host))
        write_output(dumps_json_line(line) + "\n")


def _say_outside(view: SessionsView) -> None:
    """The view's notes (links out of the tree, misnamed files, trees not made yet)."""
    from envtui.incidents.sessions_view import notes

    for note in notes(view):
        print(f"envtui {COMMAND}: {note}", file=sys.stderr)


def _said(view: SessionsView) -> int:
    """The first view printed and its notes said; its exit code."""
    if view.problem:
        print(f"envtui {COMMAND}: {view.problem}", file=sys.stderr)
    if not view.up:
        return 1
    _print(view.threads, view)
    _say_outside(view)
    return 1 if failing(view.threads) or view.problem else 0


def _json_once(fleet: Fleet) -> int:
    """Trees on this machine printed once: a poll in this thread, no event loop."""
    return _said(fleet.poll())


def publisher(
    fleet: Fleet, state: MetricsState | None, show: Callable[[SessionsView], None]
) -> Callable[[SessionsView], None]:
    """Each view shown, and folded into the metrics when they are served; a row whose live
    state its host's daemon changed counts as changed (its line is printed again)."""
    from envtui.incidents.fleet_rows import HostFreshness, live_changes, waiting_of

    before: list[list[HostFreshness]] = [[]]

    def publish(view: SessionsView) -> None:
        moved = live_changes(before[0], view.hosts, (row.key for row in view.threads))
        before[0] = view.hosts
        view.changed |= moved & {row.key for row in view.threads}
        if state is not None:
            changed = view.changed_threads()
            state.sessions(changed, view.gone, waiting_of(changed, view.hosts))
            for host in fleet.hosts:
                state.source_up(host.files.name, host.freshness.state == "connected")
        show(view)

    return publish


async def _json(args: argparse.Namespace, fleet: Fleet, state: MetricsState | None) -> int:
    import asyncio

    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.vocabulary.stopping import stop_on_signals

    await fleet.open()
    stop = asyncio.Event()
    daemons = asyncio.get_running_loop().create_task(fleet.run_daemons(stop))
    stack = contextlib.AsyncExitStack()
    try:
        await _daemons_settled(fleet)
        view = await asyncio.to_thread(fleet.poll)
        code = _said(view)
        if state is None or not view.up:
            return code
        said = (list(view.outside), list(view.misnamed), list(view.absent))
        alerts = _command_alerts(args)
        if alerts is not None:
            stack.push_async_callback(alerts.aclose)

        def changed(v: SessionsView) -> None:
            if alerts is not None:
                alerts.tell(v)
            if v is view:
                return  # printed above
            _print(v.changed_threads(), v)
            view.threads = v.threads
            if (v.outside, v.misnamed, v.absent) != said:
                said[0][:], said[1][:], said[2][:] = v.outside, v.misnamed, v.absent
                _say_outside(v)

        publish = publisher(fleet, state, changed)
        publish(view)
        with stop_on_signals(stop):
            await watch_sessions(fleet, publish, stop, poll=args.poll_interval, wake=fleet.woken)
        return 1 if failing(view.threads) else 0
    finally:
        stop.set()
        await stack.aclose()
        await _ended(daemons)
        await fleet.aclose()


class _CommandAlerts:
    """``--alert-command`` of a headless run: each request of any host's thread, once."""

    def __init__(self, command: list[str]) -> None:
        from envtui.incidents.fleet_alerts import FleetAlerts
        from envtui.sources.alerts import AlertCommand

        self.said = FleetAlerts()
        self.command = AlertCommand(command, lambda text: print(text, file=sys.stderr))

    def tell(self, view: SessionsView) -> None:
        from datetime import UTC, datetime

        self.command.add(self.said.new(view.hosts, datetime.now(UTC)))

    async def aclose(self) -> None:
        await self.command.aclose()


def _command_alerts(args: argparse.Namespace) -> _CommandAlerts | None:
    import shlex

    return _CommandAlerts(shlex.split(args.alert_command)) if args.alert_command else None


async def _daemons_settled(fleet: Fleet) -> None:
    """Wait (at most :data:`SETTLE` seconds) until every host's daemon was tried and each
    waiting thread's request is known, so the one-shot lines say what the daemons say.

    A host still unsettled then is named on stderr: its rows are printed without what its
    daemon would have said, and a reader must not take them for complete."""
    import asyncio

    from envtui.vocabulary.stopping import within

    async def settled() -> None:
        while not fleet.daemons_settled():
            await asyncio.sleep(0.05)

    if await within(SETTLE, settled()):
        return
    for name, missing in fleet.unsettled().items():
        print(
            f"envtui {COMMAND}: {name}: {missing} after {SETTLE:g} s; "
            "its rows are printed without it",
            file=sys.stderr,
        )


async def _ended(task: asyncio.Task[None]) -> None:
    """The daemons' task, ended: given a moment to close its connections, then cancelled."""
    import asyncio

    from envtui.vocabulary.stopping import cancel_and_wait

    done, _ = await asyncio.wait({task}, timeout=5)
    if not done:
        await cancel_and_wait(task)
    elif not task.cancelled():
        task.exception()


def _dashboard(args: argparse.Namespace, fleet: Fleet, state: MetricsState | None) -> int:
    config = load(COMMAND, args)
    if isinstance(config, int):
        return config
    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.tui.sessions.sessions_app import SessionsApp

    async def watch(show: Callable[[SessionsView], None], stop: asyncio.Event) -> None:
        import asyncio

        await fleet.open()
        daemons = asyncio.get_running_loop().create_task(fleet.run_daemons(stop))
        try:
            await watch_sessions(
                fleet,
                publisher(fleet, state, show),
                stop,
                poll=args.poll_interval,
                wake=fleet.woken,
            )
        finally:
            stop.set()
            await _ended(daemons)
            await fleet.aclose()

    from envtui.commands.dashboard_sources import alert_command_for

    name = fleet.name or fleet.hosts[0].files.name
    alerts = _alerts(args, config)
    options = dashboard_options(
        args,
        config,
        source_name=f"sessions {name}",
        export_dir=export_dir(),
        alerts=alerts,
        alert_command=alert_command_for(alerts),
    )
    named = any(host.name or host.daemon for host in fleet.hosts)
    app = SessionsApp(
        watch, fleet.thread_source, options, hosts=named, poll_interval=args.poll_interval
    )
    app.run()
    return 0


def _alerts(args: argparse.Namespace, config: Config) -> AlertsConfig:
    """The config's ``[alerts]`` with the flags added: a thread of any host that starts
    waiting on a person is told once per request."""
    import shlex

    update: dict[str, object] = {}
    if args.bell:
        update["bell"] = True
    if args.notify:
        update["notify"] = True
    if args.alert_command:
        update["command"] = shlex.split(args.alert_command)
    return config.alerts.model_copy(update=update)
