"""The tab host of ``envtui serve``: every browser tab's dashboard, in one process.

The server starts it as ``python -m envtui.commands.serve.tab_process --listen-fd N -- COMMAND
ARGS...``, with a listening Unix socket of its own (in the server's private folder) as
file descriptor N; each connection to that socket is a browser tab, and gets a dashboard
of the command (:mod:`envtui.tui.web.tab_host`). For a live command the command is the replay
that follows the server's stream (:mod:`envtui.commands.serve.shared_source`); ``replay`` and
``rollout`` read their file per tab, as in a terminal.

Why a process beside the server and not the server itself: Textual's state that belongs
to a process (the standard streams it redirects, the signals, the processes envtui started
and ends when a dashboard quits, the interpreter's lock) stays away from the server and
the shared source it runs, and a tab that never quits can still be ended, by ending this
process (a thread cannot be killed).

It ends on SIGTERM, SIGINT (Ctrl+C reaches the server's whole process group) or SIGHUP:
every tab is asked to quit, as a browser's ``quit`` asks, and gets :data:`QUIT_GRACE`
seconds. It also ends by itself when its server is gone (its parent changes), and the
server ends it when no tab has been open for a while (:mod:`envtui.commands.serve.hosted_tabs`).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from envtui.commands.serve.command import check_dashboard, dashboard_arguments
from envtui.vocabulary.safe_text import for_terminal
from envtui.vocabulary.stopping import STOP_SIGNALS

if TYPE_CHECKING:
    from envtui.tui.app import DriverClass, EnvTuiApp

ACCEPT_TICK = 0.2
"""Seconds between two looks at whether to stop (a signal, or the server gone)."""
QUIT_GRACE = 5.0
"""Seconds the tabs get to quit (a replay closes its file) before the process ends."""


def say(message: str) -> None:
    print(for_terminal(f"envtui serve: {message}"), file=sys.__stderr__, flush=True)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m envtui.commands.serve.tab_process")
    parser.add_argument("--listen-fd", type=int, required=True)
    parser.add_argument("dashboard", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    checked = check_dashboard(dashboard_arguments(options.dashboard))
    if isinstance(checked, int):
        return checked
    # the dashboard's modules are imported now, not while the first tab waits
    from envtui.tui import app  # noqa: F401
    from envtui.tui.web.tab_host import TabHost

    listener = socket.socket(fileno=options.listen_fd)
    host = TabHost(lambda driver: dashboard(checked, driver), report=say)
    stopping = threading.Event()
    for signum in STOP_SIGNALS:
        signal.signal(signum, lambda *_: stopping.set())
    try:
        accept_tabs(listener, host.open, stopping)
    finally:
        listener.close()
        host.quit_all()
    if host.wait(QUIT_GRACE):
        return 0
    say(f"a tab's dashboard did not quit within {QUIT_GRACE:.0f} s; it ends with this process")
    os._exit(1)  # a thread cannot be ended; the process can


def accept_tabs(
    listener: socket.socket, open_tab: Callable[[socket.socket], object], stopping: threading.Event
) -> None:
    """Each connection to ``listener`` to ``open_tab``, until ``stopping`` is set or the
    server (this process's parent) is gone."""
    server = os.getppid()
    listener.settimeout(ACCEPT_TICK)
    while not stopping.is_set() and os.getppid() == server:
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            continue
        open_tab(connection)


def dashboard(args: argparse.Namespace, driver: DriverClass) -> EnvTuiApp:
    """A new tab's dashboard of the served command (its source made anew, as a dashboard
    process would make it)."""
    from envtui.commands.dashboard_sources import app_for, source_for
    from envtui.vocabulary.answers import answers_of

    prepared = source_for(args)
    if isinstance(prepared, int):  # the file went away since the server checked it (said)
        raise RuntimeError(f"the {args.mode} dashboard cannot start")
    config, source = prepared
    return app_for(args, config, source, answers_of(source), driver_class=driver)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
