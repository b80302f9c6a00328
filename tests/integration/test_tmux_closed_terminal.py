"""A dashboard whose terminal goes away as it quits (``q``, then the tmux server killed at
once) still ends: the process never lives on, orphaned, after its terminal.

Before the surviving writer (``envtui.tui.upstream.terminal_writer``) this left the dashboard alive in
about 1 run in 7 under load: Textual's writer thread died on the closed pty's EIO and the
app's next writes waited on its full queue for ever.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import psutil
import pytest

from tests.support.scenarios.scripted_stream import scripted_events
from tests.support.waiting import poll_until

from envtui.vocabulary.events import encode_event

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="needs tmux (Debian package tmux, which .ci/run installs)"
)
ATTEMPTS = 5


def tmux(socket: str, *args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True)
    return done.stdout


def ended(process: psutil.Process) -> bool:
    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.parametrize("attempt", range(ATTEMPTS))
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
    dashboard: psutil.Process | None = None
    try:
        poll_until(
            lambda: "environments" in tmux(socket, "capture-pane", "-p", "-t", "p"),
            timeout=60,
            what="the dashboard drawn",
        )
        dashboard = psutil.Process(int(tmux(socket, "display", "-p", "-t", "p", "#{pane_pid}")))
        tmux(socket, "send-keys", "-t", "p", "q")
        tmux(socket, "kill-server")  # the terminal goes away while the dashboard quits
        poll_until(lambda: ended(dashboard), timeout=30, what="the dashboard ended")
    finally:
        tmux(socket, "kill-server")
        if dashboard is not None and not ended(dashboard):
            dashboard.kill()
