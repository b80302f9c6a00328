"""``envtui sessions``: every Codex thread of a sessions tree, here or on an SSH host.

Without ``--json`` it opens the sessions table (``enter`` opens a thread's rollout
dashboard). With ``--json`` it prints one line per thread and exits: 0, or 1 when a live
thread has an active incident; with ``--metrics`` too it keeps running (a line for each
thread that changed) and serves the metrics until Ctrl+C or SIGTERM.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from envtui.commands.common import dashboard_options, load, metrics_for
from envtui.commands.options import CONFIG, METRICS, Arg, Command, Group, lasting, seconds, switch
from envtui.commands.output import fail, needs_terminal, write_output
from envtui.settings.locations import export_dir
from envtui.vocabulary.safe_text import dumps_json_line

if TYPE_CHECKING:
    import asyncio

    from envtui.incidents.sessions_view import SessionsView
    from envtui.incidents.thread_summary import ThreadSummary
    from envtui.sources.metrics_state import MetricsState
    from envtui.sources.sessions.session_files import SessionFiles
    from envtui.sources.sessions.sessions_index import SessionsIndex

COMMAND = "sessions"


SESSIONS = Command(
    COMMAND,
    summary="every Codex thread of a sessions tree, live",
    description="One row per Codex thread of a sessions tree (the rollouts under "
    "CODEX_HOME/sessions): its environments at the latest step, active incidents and "
    "whether it is live. enter opens a thread in the rollout dashboard.",
    options=Group(
        Arg(
            "directory",
            nargs="?",
            metavar="DIR",
            help="the sessions tree (default: $CODEX_HOME/sessions, else ~/.codex/sessions; "
            "with --ssh, .codex/sessions in the login directory)",
        ),
        Arg("--ssh", metavar="HOST", help="read the tree on HOST over SSH (SFTP)"),
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
        Arg("--theme", metavar="NAME", help="the theme (as for the dashboard)"),
        switch("--ascii", "draw every glyph in ASCII"),
    ),
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    SESSIONS.add_to(subparsers, handler=run)


def files_for(args: argparse.Namespace) -> SessionFiles | int:
    """The tree to read, or the exit code when it is not there."""
    if args.ssh:
        from envtui.environments.ssh import SshSettings
        from envtui.sources.sessions.sessions_sftp import SftpSessionFiles, remote_root

        return SftpSessionFiles(SshSettings(host=args.ssh), remote_root(args.directory))
    from envtui.sources.sessions.session_files import LocalSessionFiles, default_sessions_dir

    root = Path(args.directory).expanduser() if args.directory else default_sessions_dir()
    if not root.is_dir():
        return fail(COMMAND, f"{root}: no such directory")
    return LocalSessionFiles(root)


def index_for(args: argparse.Namespace, files: SessionFiles) -> SessionsIndex:
    from envtui.sources.sessions.sessions_index import SessionsIndex

    return SessionsIndex(files, since=args.since, live_window=args.live_window)


def run(args: argparse.Namespace) -> int:
    files = files_for(args)
    if isinstance(files, int):
        return files
    if not args.json:
        refused = needs_terminal(COMMAND, "`envtui sessions --json`")
        if refused is not None:
            return refused
    served = metrics_for(COMMAND, args)
    if isinstance(served, int):
        return served
    state = served[0] if served is not None else None
    try:
        if args.json and state is None and not args.ssh:
            return _json_once(args, files)
        if args.json:
            import asyncio

            return asyncio.run(_json(args, files, state))
        return _dashboard(args, files, state)
    finally:
        if served is not None:
            served[1].close()


def failing(threads: list[ThreadSummary]) -> bool:
    """Exit 1: a live thread has an active incident."""
    return any(t.live and t.incidents for t in threads)


def _print(threads: list[ThreadSummary]) -> None:
    """One JSON line per thread; ids and paths from the files can hold anything, so the
    characters a terminal would act on are written as escapes (the values stay the same)."""
    for summary in sorted(threads, key=lambda s: s.thread_id):
        write_output(dumps_json_line(summary.as_json()) + "\n")


def _say_outside(outside: list[str]) -> None:
    from envtui.incidents.sessions_view import outside_note

    note = outside_note(outside)
    if note is not None:
        print(f"envtui {COMMAND}: {note}", file=sys.stderr)


def _json_once(args: argparse.Namespace, files: SessionFiles) -> int:
    """A tree on this machine printed once: a poll in this thread, no event loop."""
    view = index_for(args, files).poll()
    if not view.up:
        print(f"envtui {COMMAND}: {view.problem}", file=sys.stderr)
        return 1
    _print(view.threads)
    _say_outside(view.outside)
    return 1 if failing(view.threads) else 0


def publisher(
    files: SessionFiles, state: MetricsState | None, show: Callable[[SessionsView], None]
) -> Callable[[SessionsView], None]:
    """Each view shown, and folded into the metrics when they are served."""

    def publish(view: SessionsView) -> None:
        if state is not None:
            state.sessions(view.changed_threads(), view.gone)
            state.source_up(files.name, view.up)
        show(view)

    return publish


async def _json(args: argparse.Namespace, files: SessionFiles, state: MetricsState | None) -> int:
    import asyncio

    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.vocabulary.stopping import stop_on_signals

    if not await _opened(files):
        return 1
    index = index_for(args, files)
    try:
        view = await asyncio.to_thread(index.poll)
        if not view.up:
            print(f"envtui {COMMAND}: {view.problem}", file=sys.stderr)
            return 1
        _print(view.threads)
        _say_outside(view.outside)
        if state is None:
            return 1 if failing(view.threads) else 0
        publisher(files, state, lambda v: None)(view)
        stop = asyncio.Event()
        said = list(view.outside)

        def changed(v: SessionsView) -> None:
            _print(v.changed_threads())
            view.threads = v.threads
            if v.outside != said:
                said[:] = v.outside
                _say_outside(v.outside)

        with stop_on_signals(stop):
            await watch_sessions(
                index, publisher(files, state, changed), stop, poll=args.poll_interval
            )
        return 1 if failing(view.threads) else 0
    finally:
        await files.aclose()


async def _opened(files: SessionFiles) -> bool:
    """Connect to the host first (over SSH); False, said why, when it cannot be reached."""
    try:
        await files.open()
    except OSError as exc:
        print(f"envtui {COMMAND}: {exc}", file=sys.stderr)
        return False
    return True


def _dashboard(args: argparse.Namespace, files: SessionFiles, state: MetricsState | None) -> int:
    config = load(COMMAND, args)
    if isinstance(config, int):
        return config
    from envtui.sources.sessions.sessions_index import watch_sessions
    from envtui.tui.sessions.sessions_app import SessionsApp

    index = index_for(args, files)

    async def watch(show: Callable[[SessionsView], None], stop: asyncio.Event) -> None:
        if not await _opened(files):
            raise OSError(f"cannot reach {files.name}")
        try:
            await watch_sessions(
                index, publisher(files, state, show), stop, poll=args.poll_interval
            )
        finally:
            await files.aclose()

    options = dashboard_options(
        args, config, source_name=f"sessions {files.name}", export_dir=export_dir()
    )
    SessionsApp(watch, lambda summary: files.rollout_source(summary.path), options).run()
    return 0
