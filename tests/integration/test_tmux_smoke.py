"""A real terminal: tmux runs ``envtui`` (the demo); we read the screen and press keys."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import psutil
import pytest

from tests.support.data.exec_server_configs import spawn_child_config
from tests.support.liveness import alive
from tests.support.waiting import poll_until

from envtui.vocabulary.events import Event, decode_lines

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
        # d is the context panel's key: 3 gives it the focus, which its title then shows
        _tmux(socket, "send-keys", "-t", "envtui", "3")
        poll_until(
            lambda: "▶ context" in _tmux(socket, "capture-pane", "-p", "-t", "envtui").stdout,
            what="the context panel marked as focused after 3",
        )
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


def _start_watch(tmp_path: Path, socket: str) -> tuple[Path, list[int]]:
    """``envtui watch --record`` in a tmux pane whose shell stays after envtui exits; the
    record's path and the pids of envtui, its exec-server and the exec-server's child."""
    assert TMUX is not None
    config, pid_file = spawn_child_config(tmp_path, head="step_interval = 0.2")
    record = tmp_path / "record.jsonl"
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path),
        "TERM": "xterm-256color",
    }
    env.pop("TMUX", None)
    command = (
        f"cd {tmp_path} && {sys.executable} -m envtui watch --config {config} --record {record};"
        " echo envtui-exited-$?; sleep 600"
    )
    started = subprocess.run(
        [TMUX, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "envtui", "-x", "120", "-y", "40", command],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    shell = psutil.Process(
        int(_tmux(socket, "display", "-p", "-t", "envtui", "#{pane_pid}").stdout)
    )
    poll_until(
        lambda: pid_file.exists() and bool(pid_file.read_text().strip()),
        timeout=30,
        what="the exec-server",
    )
    poll_until(
        lambda: "● ready" in _tmux(socket, "capture-pane", "-p", "-t", "envtui").stdout,
        timeout=30,
        what="the dashboard drawn",
    )
    envtui = next(p for p in shell.children() if "envtui" in " ".join(p.cmdline()))
    return record, [envtui.pid, *map(int, pid_file.read_text().split())]


def _pane(socket: str, fmt: str) -> str:
    return _tmux(socket, "display", "-p", "-t", "envtui", fmt).stdout.strip()


def _whole_record(record: Path) -> list[Event]:
    text = record.read_text()
    assert text.endswith("\n"), "the record ends in a partial line"
    items = list(decode_lines(text.splitlines()))
    assert items
    assert all(isinstance(item, Event) for item in items)
    return [item for item in items if isinstance(item, Event)]


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP"])
def test_a_signal_quits_as_q_does(tmp_path: Path, signal_name: str) -> None:
    """SIGTERM (and SIGHUP, a closed terminal) leave the terminal as it was, end every process
    envtui started, and flush the record."""
    socket = f"envtui-test-{uuid.uuid4().hex[:8]}"
    try:
        record, (envtui, server, grandchild) = _start_watch(tmp_path, socket)
        assert _pane(socket, "#{alternate_on} #{mouse_any_flag}") == "1 1"
        os.kill(envtui, getattr(signal, signal_name))
        poll_until(
            lambda: not any(alive(pid) for pid in (envtui, server, grandchild)),
            timeout=30,
            what="envtui, its exec-server and that one's child to end",
        )
        if signal_name == "SIGTERM":
            poll_until(
                lambda: (
                    "envtui-exited-0" in _tmux(socket, "capture-pane", "-p", "-t", "envtui").stdout
                ),
                what="the shell's prompt again",
            )
            # out of the alternate screen, mouse tracking off, the cursor shown
            assert _pane(socket, "#{alternate_on} #{mouse_any_flag} #{cursor_flag}") == "0 0 1"
        events = _whole_record(record)
        assert any(e.msg.type == "environment_status" for e in events)
    finally:
        _tmux(socket, "kill-server")
