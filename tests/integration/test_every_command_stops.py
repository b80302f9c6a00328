"""Every subcommand, as a process, ends on SIGTERM and SIGHUP whenever they come: while
Python is still importing, while the command starts, and once it runs, with its standard
output a pipe and with it a terminal (a pty). The exit status is the one
docs/signals-and-exit-status.md gives.

The processes of a round run side by side, so the whole matrix takes about a minute.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import signal
import socket
import stat
import struct
import subprocess
import sys
import termios
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.files import EXAMPLE_STATE, FAKE_APP_SERVER, ROLLOUTS
from tests.support.scenarios.scripted_stream import scripted_events

from envtui.cli import build_parser
from envtui.vocabulary.events import encode_event

ENVTUI = [sys.executable, "-m", "envtui"]
BOUND = 10.0
"""Seconds a signalled command is given to exit (it needs well under one; the machine the
tests run on may be loaded, and the assertion is that it ended, not how fast)."""
TIMES = (0.1, 0.5, 2.0)
"""When the signal is sent: while Python imports, while the command starts, and later."""
RUNNING = -1.0
"""The time that stands for "once it runs": a moment after its first output."""
DRAWING = -2.0
"""The time that stands for "as it first draws": at once after its first output."""
DASHBOARDS = ("demo", "watch", "replay", "codex", "rollout", "sessions")
LEFT_SCREEN = b"\x1b[?1049l"
"""What a dashboard writes as it gives the terminal back: it leaves the alternate screen."""
ROLLOUT = sorted(ROLLOUTS.glob("rollout-*.jsonl"))[0]


def subcommands() -> list[str]:
    subparsers = next(
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    return sorted(subparsers.choices)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def arguments(command: str, tmp_path: Path) -> list[str]:
    """An invocation of ``command`` that does real work and, where it can, keeps running."""
    stream = tmp_path / "stream.jsonl"
    if not stream.exists():
        stream.write_text("".join(encode_event(e) + "\n" for e in scripted_events()))
    codex = tmp_path / "codex"
    if not codex.exists():
        codex.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_APP_SERVER} normal "$@"\n')
        codex.chmod(codex.stat().st_mode | stat.S_IEXEC)
    sessions = tmp_path / "sessions"
    sessions.mkdir(exist_ok=True)
    return {
        "render": ["render", str(EXAMPLE_STATE)],
        "snapshot": ["snapshot"],
        "events": ["events", "--duration", "60"],
        "check": ["check", str(ROLLOUT)],
        "demo": ["demo"],
        "watch": ["watch"],
        "replay": ["replay", str(stream), "--follow"],  # runs until it is stopped
        "codex": ["codex", "--codex", str(codex), "--cwd", str(tmp_path)],
        "rollout": ["rollout", str(ROLLOUT), "--follow"],
        "info": ["info"],
        "serve": ["serve", "--port", str(free_port()), "--", "demo"],
        "sessions": ["sessions", str(sessions)],
        "completion": ["completion", "bash"],
        "manpage": ["manpage"],
    }[command]


@dataclass(frozen=True)
class Run:
    command: str
    terminal: bool
    delay: float
    signum: int

    def __str__(self) -> str:
        where = "pty" if self.terminal else "pipe"
        when = {RUNNING: "once it runs", DRAWING: "as it first draws"}.get(
            self.delay, f"at {self.delay} s"
        )
        return f"{self.command} ({where}, {signal.Signals(self.signum).name} {when})"


def _drain(fd: int, written: threading.Event, tail: bytearray) -> None:
    """Read ``fd`` to its end; ``written`` once something came, the last KiB in ``tail``."""
    with contextlib.suppress(OSError):
        while chunk := os.read(fd, 65536):
            written.set()
            tail[:] = (tail + chunk)[-1024:]


def run_and_signal(run: Run, tmp_path: Path) -> tuple[int | None, bytes]:
    """The exit status of ``run`` (None when it had not ended :data:`BOUND` s after it)
    and the end of what it wrote."""
    home = tmp_path / f"home-{id(run)}"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_DATA_HOME": str(home / "data"),
        "CODEX_HOME": str(home / "codex"),
        "TERM": "xterm-256color",
    }
    env.pop("TEXTUAL_DRIVER", None)
    env.pop("ENVTUI_CONFIG", None)
    if run.terminal:
        ours, theirs = pty.openpty()
        fcntl.ioctl(theirs, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    else:
        ours, theirs = os.pipe()
    written = threading.Event()
    tail = bytearray()
    reader = threading.Thread(target=_drain, args=(ours, written, tail), daemon=True)
    reader.start()
    try:
        process = subprocess.Popen(
            [*ENVTUI, *arguments(run.command, tmp_path)],
            stdin=theirs if run.terminal else subprocess.DEVNULL,
            stdout=theirs,
            stderr=theirs,
            cwd=home,
            env=env,
            start_new_session=True,
        )
    finally:
        os.close(theirs)
    try:
        if run.delay in (RUNNING, DRAWING):
            assert written.wait(timeout=60), f"{run}: nothing written in 60 s"
            time.sleep(0.5 if run.delay == RUNNING else 0.0)
        else:
            time.sleep(run.delay)
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(run.signum)
        try:
            status: int | None = process.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            status = None
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # anything it left behind
        process.wait()
        reader.join(timeout=5)
        os.close(ours)
    return status, bytes(tail)


LASTING = {"events", "serve", "demo", "watch", "replay", "codex", "rollout", "sessions"}
"""The commands that run until they are stopped (a dashboard refused a pipe ends at once)."""


def documented(run: Run) -> set[int]:
    """The statuses docs/signals-and-exit-status.md allows for ``run``.

    A signal before envtui took it over ends the process as the signal would (the shell's
    128 + N; -N when it came while Python itself was starting); once the command runs, it
    ends with the command's own status (a command that does its work and ends may have
    finished it when the signal comes, and then be on its way out, as a signal ends it).
    """
    dashboards = set(DASHBOARDS)
    lasting = run.command in LASTING and (run.terminal or run.command not in dashboards)
    killed = set() if run.delay == RUNNING and lasting else {128 + run.signum, -run.signum}
    if run.command in dashboards:
        return killed | ({0} if run.terminal else {2})
    return (
        killed
        | {
            "render": {0},
            "info": {0},
            "completion": {0},
            "manpage": {0},
            "check": {0, 1},
            "snapshot": {0, 1},
            "events": {0},
            "serve": {0},
        }[run.command]
    )


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "pty"])
def test_every_command_ends_on_a_signal_at_any_moment(tmp_path: Path, terminal: bool) -> None:
    runs = [
        Run(command, terminal, delay, signum)
        for command in subcommands()
        for delay, signum in (
            *((delay, signal.SIGTERM) for delay in TIMES),
            (RUNNING, signal.SIGTERM),
            (RUNNING, signal.SIGHUP),
        )
    ]
    arguments("replay", tmp_path)  # the shared files, written before the runs read them
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda run: run_and_signal(run, tmp_path), runs))
    wrong = [
        f"{run}: {'still running' if status is None else f'exit {status}'}, after {tail[-300:]!r}"
        for run, (status, tail) in zip(runs, statuses, strict=True)
        if status not in documented(run)
    ]
    assert wrong == []


def test_a_dashboard_signalled_as_it_first_draws_quits_as_q_does(tmp_path: Path) -> None:
    """Its first output is Textual taking the terminal, before the screen is composed; a
    signal from then on (a terminal closed, a kill, while a loaded machine still builds
    the screen) quits the clean way: status 0, the terminal given back."""
    runs = [
        Run(command, True, DRAWING, signum)
        for command in DASHBOARDS
        for signum in (signal.SIGTERM, signal.SIGHUP)
    ]
    arguments("replay", tmp_path)
    # three at once: each signalled one still composes its screen, then quits, before the
    # last resort (5 s after the signal) would end it; twelve starting together on a
    # loaded machine could make that a timing
    with ThreadPoolExecutor(max_workers=3) as pool:
        ended = list(pool.map(lambda run: run_and_signal(run, tmp_path), runs))
    wrong = [
        f"{run}: {'still running' if status is None else f'exit {status}'}, after {tail[-300:]!r}"
        for run, (status, tail) in zip(runs, ended, strict=True)
        if status != 0 or LEFT_SCREEN not in tail
    ]
    assert wrong == []
