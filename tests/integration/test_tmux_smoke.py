"""A real terminal: tmux runs ``envtui`` (the demo); we read the screen and press keys."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.support.waiting import poll_until

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="needs tmux (Debian package tmux, which .ci/run installs)"
)

EXPECTED = ("● ready", "◐ starting", "✕ unavailable", "★", "<environment_context>", "⚠")


def _tmux(socket: str, *args: str) -> subprocess.CompletedProcess[str]:
    assert TMUX is not None
    return subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True)


def test_demo_in_tmux_shows_everything_and_quits_with_q(tmp_path: Path) -> None:
    socket = f"envtui-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }
    env.pop("TMUX", None)
    assert TMUX is not None
    started = subprocess.run(
        [TMUX, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "envtui", "-x", "140", "-y", "44",
         f"cd {tmp_path} && {sys.executable} -m envtui"],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    screen = ""

    def everything_on_screen() -> bool:
        nonlocal screen
        screen = _tmux(socket, "capture-pane", "-p", "-t", "envtui").stdout
        return all(text in screen for text in EXPECTED)

    def missing() -> str:
        return f"{[text for text in EXPECTED if text not in screen]} on screen\n{screen}"

    try:
        poll_until(everything_on_screen, timeout=60, what=missing, interval=0.5)
        assert "\x1b" not in screen
        _tmux(socket, "send-keys", "-t", "envtui", "d")
        poll_until(
            lambda: "· diff" in _tmux(socket, "capture-pane", "-p", "-t", "envtui").stdout,
            what="the diff view after d",
        )
        _tmux(socket, "send-keys", "-t", "envtui", "q")
        poll_until(
            lambda: _tmux(socket, "has-session", "-t", "envtui").returncode != 0,
            timeout=20,
            what="q to quit",
        )
    finally:
        _tmux(socket, "kill-server")
