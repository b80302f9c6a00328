"""`y` inside a real tmux whose set-clipboard drops the terminal request: the text reaches the
tmux buffer anyway, and the notice says so and how to let the request through."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.support.scenarios.scripted_stream import scripted_events
from tests.support.waiting import poll_until

from envtui.vocabulary.events import encode_event

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="needs tmux (Debian package tmux, which .ci/run installs)"
)


def _tmux(socket: str, *args: str) -> subprocess.CompletedProcess[str]:
    assert TMUX is not None
    return subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True)


def test_y_in_tmux_without_set_clipboard_fills_the_tmux_buffer_and_says_so(
    tmp_path: Path,
) -> None:
    stream = tmp_path / "stream.jsonl"
    stream.write_text("".join(encode_event(e) + "\n" for e in scripted_events()))
    socket = f"envtui-clip-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "HOME": str(tmp_path), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    for name in ("TMUX", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    command = f"{sys.executable} -m envtui replay {stream} --speed 0"
    assert TMUX is not None
    started = subprocess.run(
        [TMUX, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "e", "-x", "160",
         "-y", "44", command],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    try:
        _tmux(socket, "set-option", "-g", "set-clipboard", "external")

        def screen() -> str:
            return _tmux(socket, "capture-pane", "-p", "-J", "-t", "e").stdout

        poll_until(lambda: "<environment_context>" in screen(), timeout=60, what="the context")
        _tmux(socket, "send-keys", "-t", "e", "y")
        poll_until(lambda: "lets it through" in screen(), what=lambda: f"notice\n{screen()}")
        words = screen().split()  # the notice wraps inside its box
        for said in ("copied", "tmux", "buffer;", "(set-clipboard", "external):", "on`"):
            assert said in words, said
        buffer = _tmux(socket, "show-buffer").stdout
        assert buffer.startswith("<environment_context>")
    finally:
        _tmux(socket, "kill-server")
