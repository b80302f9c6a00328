"""A dashboard never outlives its terminal, also on a loaded machine.

Its terminal goes away (the pty's other end closed, as when a tmux server is killed or an
SSH session drops) while the dashboard starts or once it runs, with both cores busy, again
and again; each time the dashboard ends within a generous bound, and nothing it started is
left. Two ways: as the terminal's controlling process (the kernel sends a SIGHUP), and
outside its foreground group (no signal at all: only the end of input says the terminal is
gone). Before :mod:`envtui.tui.upstream.terminal_input`, the second kept the dashboard alive at
93 % of a core for as long as anyone let it, reading an empty terminal 21,000 times a second.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from tests.support.data.session_trees import many_threads
from tests.support.waiting import poll_until

ENVTUI = [sys.executable, "-m", "envtui"]
BOUND = 60.0
"""Seconds a dashboard whose terminal went away gets to end: a guard against a hang (the
dashboard needs well under one; the cores are busy on purpose)."""
ROUNDS = 3


@pytest.fixture(scope="module")
def cpu_hog() -> Iterator[None]:
    """Every core busy for the length of the module (two spinning processes a core)."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(2 * (os.cpu_count() or 1))
    ]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


@dataclass(frozen=True)
class Case:
    command: str
    controlling: bool
    """The dashboard is the terminal's controlling process (SIGHUP) or outside it (none)."""
    moment: str
    """``starting`` (a moment after it was started) or ``running`` (once it has drawn)."""


def _argv(command: str, tmp_path: Path) -> list[str]:
    if command == "watch":
        config = tmp_path / "200.toml"
        if not config.exists():
            config.write_text(
                "".join(
                    f'[[environments]]\nid = "env{n:03d}"\nkind = "local"\ncwd = "{tmp_path}"\n'
                    for n in range(200)
                )
            )
        return ["watch", "--config", str(config)]
    tree = tmp_path / "sessions"
    if not tree.exists():
        many_threads(tree, 300)
    return ["sessions", str(tree)]


def _read_until(fd: int, seconds: float, drawn: bytes | None) -> None:
    """Read what the dashboard writes for ``seconds``, or until ``drawn`` appears."""
    seen = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen = (seen + os.read(fd, 65536))[-4096:]
            except OSError:
                return
            if drawn is not None and drawn in seen:
                return


def _start(case: Case, tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    ours, theirs = pty.openpty()
    fcntl.ioctl(theirs, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))

    def take_the_terminal() -> None:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "TERM": "xterm-256color", "HOME": str(home)}
    env.pop("TEXTUAL_DRIVER", None)
    try:
        process = subprocess.Popen(
            [*ENVTUI, *_argv(case.command, tmp_path)],
            stdin=theirs,
            stdout=theirs,
            stderr=theirs,
            env=env,
            cwd=tmp_path,
            start_new_session=True,
            preexec_fn=take_the_terminal if case.controlling else None,
        )
    finally:
        os.close(theirs)
    return process, ours


def _family(process: subprocess.Popen[bytes]) -> list[psutil.Process]:
    with contextlib.suppress(psutil.NoSuchProcess):
        parent = psutil.Process(process.pid)
        return [parent, *parent.children(recursive=True)]
    return []


def _gone(members: list[psutil.Process]) -> bool:
    def alive(member: psutil.Process) -> bool:
        try:
            return member.is_running() and member.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    return not any(alive(m) for m in members)


def _describe(members: list[psutil.Process]) -> str:
    described = []
    for member in members:
        with contextlib.suppress(psutil.Error):
            described.append(f"{member.pid} {member.status()} {member.cpu_percent(0.2)} %")
    return f"the dashboard and its children to end (left: {described})"


CASES = [
    Case(command, controlling, moment)
    for command in ("watch", "sessions")
    for controlling in (True, False)
    for moment in ("starting", "running")
]


@pytest.mark.usefixtures("cpu_hog")
@pytest.mark.parametrize("round_", range(ROUNDS))
@pytest.mark.parametrize(
    "case",
    CASES,
    ids=[f"{c.command}-{'sighup' if c.controlling else 'no-signal'}-{c.moment}" for c in CASES],
)
def test_a_closed_terminal_ends_the_dashboard(tmp_path: Path, case: Case, round_: int) -> None:
    process, ours = _start(case, tmp_path)
    try:
        if case.moment == "starting":
            _read_until(ours, 0.3 + 0.4 * round_, None)
        else:
            _read_until(ours, BOUND, b"environments" if case.command == "watch" else b"threads")
        members = _family(process)
        os.close(ours)  # the terminal goes away
        ours = -1
        poll_until(lambda: _gone(members), timeout=BOUND, what=lambda: _describe(members))
    finally:
        if ours >= 0:
            os.close(ours)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
