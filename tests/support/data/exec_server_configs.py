"""Config files for tests that run the fake exec-server under envtui as a process."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.files import FAKE_EXEC_SERVER


def spawn_child_config(directory: Path, *, head: str = "", extra: str = "") -> tuple[Path, Path]:
    """``directory/config.toml`` with one exec-server ("codex") that starts a child of its
    own and writes both pids to ``directory/pids``; the config's path and the pid file's.

    ``head`` goes before the environment (top-level keys), ``extra`` into it.
    """
    pid_file = directory / "pids"
    config = directory / "config.toml"
    config.write_text(
        f"""{head}
[[environments]]
id = "codex"
kind = "exec-server"
cwd = "{directory}"
program = "{sys.executable}"
args = ["{FAKE_EXEC_SERVER}", "spawn-child"]
env = {{ FAKE_PID_FILE = "{pid_file}" }}
{extra}"""
    )
    return config, pid_file
