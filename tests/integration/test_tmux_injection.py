"""In a real terminal, hostile text from every kind of input is shown, never obeyed.

tmux runs each command with ``set-clipboard on``; the raw bytes the pane receives are
saved with ``pipe-pane``. Afterwards the pane title must be the one set before the run
(OSC 2 would change it), tmux must hold no paste buffer (OSC 52 would create one), and the
raw output must hold no OSC 2/52, no C1 CSI and no bidi override: the cases are the
reproductions of every injection the reliability review found, one per input kind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from tests.support.data.handmade_rollouts import RolloutWriter
from tests.support.files import FAKE_APP_SERVER, FAKE_EXEC_SERVER
from tests.support.waiting import poll_until

from envtui.context.model import EnvironmentsState, EnvironmentState

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="needs tmux (Debian package tmux, which .ci/run installs)"
)

ESC = "\x1b]2;EVIL-TITLE\x1b\\\x1b]52;c;RVZJTC1DTElQ\x1b\\\x9b31m\u202e"
"""Sets the title and the clipboard, if obeyed; then a C1 CSI and a bidi override."""
TITLE = "untouched"


def replay_line(msg: dict[str, object]) -> str:
    return json.dumps({"id": "", "msg": msg, "at": "2026-11-30T12:00:00+00:00"}) + "\n"


def step_with(**snapshot: object) -> str:
    text = "<environment_context/>"
    return replay_line(
        {"type": "step", "step": 1, "thread": "t", "text": text, "snapshot": snapshot}
    )


def replay_file(tmp_path: Path, content: str) -> list[str]:
    path = tmp_path / "stream.jsonl"
    path.write_text(content)
    return ["replay", str(path), "--speed", "0"]


def rollout_argv(tmp_path: Path, name: str = "rollout.jsonl") -> list[str]:
    writer = RolloutWriter()
    writer.turn()
    local = EnvironmentState(cwd="/x" + ESC, shell="bash", is_primary=True)
    writer.step(EnvironmentsState(environments={"local": local}, current_date="d" + ESC))
    path = tmp_path / name
    path.write_text(writer.text())
    return ["rollout", str(path)]


def exec_server_config(tmp_path: Path) -> Path:
    config = tmp_path / "config.toml"
    shell = json.dumps("sh" + ESC)  # a TOML basic string is a JSON string here
    config.write_text(
        f'[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/tmp"\n'
        f'program = "{sys.executable}"\nargs = ["{FAKE_EXEC_SERVER}"]\n'
        f"env = {{ FAKE_SHELL_NAME = {shell}, FAKE_SHELL_PATH = {shell} }}\n"
    )
    return config


def theme_home(tmp_path: Path) -> Path:
    themes = tmp_path / "xdg" / "envtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "a.toml").write_text(
        'name = "a"\nprimary = "#112233"\n[variables]\n"x\\u001b]2;EVIL-TITLE\\u0007" = "#000000"\n'
    )
    return tmp_path / "xdg"


def fake_codex(tmp_path: Path, mode: str) -> str:
    wrapper = tmp_path / "codex"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_APP_SERVER} {mode} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


Case = Callable[[Path], list[str]]
CASES: dict[str, tuple[Case, str]] = {
    "finding code": (
        lambda t: replay_file(t, replay_line({"type": "finding", "code": "c" + ESC, "severity": "error", "message": "m"})),
        "finding",
    ),
    "current date": (lambda t: replay_file(t, step_with(environments={}, current_date="D" + ESC)), "step 1"),
    "timezone": (lambda t: replay_file(t, step_with(environments={}, timezone="Z" + ESC)), "step 1"),
    "error toast": (
        lambda t: replay_file(t, replay_line({"type": "warning", "message": "codex app-server exited " + ESC, "severity": "error"})),
        "exited",
    ),
    "naive time": (
        lambda t: replay_file(t, '{"id":"","msg":{"type":"environment_status","environment_id":"a","kind":"local","status":"ready"},"at":"2026-11-30T12:00:01"}\n'),
        "● ready",
    ),
    "rollout world state": (rollout_argv, "step 1"),
    "rollout file name": (lambda t: rollout_argv(t, name="name-\x1b]2;EVIL-TITLE\x07.jsonl"), "step 1"),
    "exec-server info": (lambda t: ["watch", "--config", str(exec_server_config(t))], "● ready"),
    "app-server exit": (
        lambda t: ["codex", "--codex", fake_codex(t, "die-with-escapes"), "--cwd", str(t)],
        "app-server exited",
    ),
    "theme notice": (lambda t: replay_file(t, step_with(environments={})), "theme files"),
    "events on a terminal": (
        lambda t: ["events", "--config", str(exec_server_config(t))],  # until SIGTERM
        '"status":"ready"',
    ),
}  # fmt: skip


class Pane:
    """One tmux server, one pane, its raw output saved to a file."""

    def __init__(self, tmp_path: Path, env: dict[str, str]) -> None:
        self.socket = f"envtui-inj-{uuid.uuid4().hex[:8]}"
        self.raw = tmp_path / "raw.bin"
        self.env = env
        self.tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", "p", "-x", "140", "-y", "44", "sleep 120"
        )
        self.tmux("set-option", "-g", "set-clipboard", "on")
        self.tmux("select-pane", "-t", "p", "-T", TITLE)

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-L", self.socket, *args], capture_output=True, text=True, env=self.env
        )
        return done.stdout

    def run(self, command: str) -> None:
        self.tmux("respawn-pane", "-k", "-t", "p", f"{command}; sleep 120")
        self.tmux("pipe-pane", "-o", "-t", "p", f"cat >> {self.raw}")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "p")

    def terminate_envtui(self) -> None:
        """SIGTERM to the envtui the pane runs (a command that is no dashboard, for ``q``)."""
        pane_pid = int(self.tmux("display", "-p", "-t", "p", "#{pane_pid}"))
        for process in psutil.Process(pane_pid).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if process.cmdline()[1:3] == ["-m", "envtui"]:
                    process.send_signal(signal.SIGTERM)

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_text_is_shown_inert_in_a_real_terminal(case: str, tmp_path: Path) -> None:
    build, expected = CASES[case]
    argv = build(tmp_path)
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": str(tmp_path)}
    env["XDG_CONFIG_HOME"] = str(theme_home(tmp_path) if case == "theme notice" else tmp_path)
    env.pop("TMUX", None)
    pane = Pane(tmp_path, env)
    try:
        script = tmp_path / "run.sh"  # the arguments may hold escapes: quoted in a file
        script.write_text(f"cd {tmp_path} && exec {sys.executable} -m envtui {shlex.join(argv)}\n")
        pane.run(f"sh {script}")
        poll_until(
            lambda: expected in pane.screen(),
            timeout=30,
            what=lambda: f"{expected!r} on screen:\n{pane.screen()}",
        )
        poll_until(
            lambda: pane.raw.exists() and pane.raw.stat().st_size > 0, timeout=10, what="raw output"
        )
        if argv[0] == "events":
            pane.terminate_envtui()
        else:
            pane.tmux("send-keys", "-t", "p", "q")
        poll_until(  # the dashboard has quit (the pane's shell went on to its sleep) before
            # the server goes: a terminal that vanishes mid-shutdown is another test's case
            lambda: (
                pane.tmux("display", "-p", "-t", "p", "#{pane_current_command}").strip() == "sleep"
            ),
            timeout=30,
            what="the dashboard to quit",
        )
        poll_until(lambda: "Traceback" not in pane.screen(), timeout=5, what="no traceback")
        title = pane.tmux("display", "-p", "-t", "p", "#{pane_title}").strip()
        buffers = pane.tmux("list-buffers")
        raw = pane.raw.read_bytes()
    finally:
        pane.close()
    assert title == TITLE
    assert buffers == ""
    for sequence in (b"\x1b]2;", b"\x1b]52;", "\x9b".encode(), "\u202e".encode()):
        assert sequence not in raw, (case, sequence)
