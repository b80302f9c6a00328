"""A dashboard whose terminal goes away as it quits (``q``, then the tmux server killed at
once) still ends: the process never lives on, orphaned, after its terminal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import psutil
import pytest

from tests.support.scripted import scripted_events
from tests.support.waiting import poll_until

from envtui.events import encode_event
from envtui.tui.app import SHUTDOWN_GRACE

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)")


def tmux(socket: str, *args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True)
    return done.stdout


@pytest.mark.parametrize("attempt", range(3))
def test_q_and_a_closed_terminal_at_once_still_end_the_dashboard(
    tmp_path: Path, attempt: int
) -> None:
    stream = tmp_path / "stream.jsonl"
    stream.write_text("".join(encode_event(e) + "\n" for e in scripted_events()))
    script = tmp_path / "run.sh"
    script.write_text(f"exec {sys.executable} -m envtui replay {stream} --speed 0\n")
    socket = f"envtui-closed-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "TERM": "xterm-256color", "HOME": str(tmp_path)}
    env.pop("TMUX", None)
    assert TMUX is not None
    subprocess.run(
        [TMUX, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "p",
         "-x", "120", "-y", "40", f"sh {script}"],
        check=True, env=env,
    )  # fmt: skip
    try:
        poll_until(lambda: "environments" in tmux(socket, "capture-pane", "-p", "-t", "p"),
                   timeout=30, what="the dashboard drawn")  # fmt: skip
        pid = int(tmux(socket, "display", "-p", "-t", "p", "#{pane_pid}").strip())
        dashboard = psutil.Process(pid)
        tmux(socket, "send-keys", "-t", "p", "q")
        tmux(socket, "kill-server")  # the terminal goes away while the dashboard quits
        poll_until(
            lambda: not dashboard.is_running() or dashboard.status() == psutil.STATUS_ZOMBIE,
            timeout=SHUTDOWN_GRACE + 20,
            what="the dashboard ended",
        )
    finally:
        tmux(socket, "kill-server")
