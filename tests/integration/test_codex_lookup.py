"""Which codex runs is the one the person chose: ``--codex``, ``$ENVTUI_CODEX`` or PATH.

A repository cloned from anywhere may carry a ``node_modules/.bin/codex`` of its own; running
``envtui codex`` (or ``events --codex``) inside it must never start that file as the user.
(Attaching to a running daemon starts no codex at all: these runs start envtui's own
app-server, ``--no-daemon``.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ENVTUI = [sys.executable, "-m", "envtui"]


def plant_codex(directory: Path) -> Path:
    """A ``node_modules/.bin/codex`` that leaves a mark when it runs; the mark's path."""
    mark = directory / "planted-codex-ran"
    planted = directory / "node_modules" / ".bin" / "codex"
    planted.parent.mkdir(parents=True)
    planted.write_text(f'#!/bin/sh\necho "$@" > {mark}\nexit 1\n')
    planted.chmod(0o755)
    return mark


def without_codex_on_path() -> dict[str, str]:
    """This environment, with no codex reachable: PATH holds only Python's folder and /bin."""
    env = {k: v for k, v in os.environ.items() if k != "ENVTUI_CODEX"}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    return env


@pytest.mark.parametrize(
    "argv",
    [["events", "--codex", "--no-daemon", "--duration", "1"], ["info"]],
    ids=["events --codex", "info"],
)
def test_a_codex_in_the_current_directory_is_never_run(tmp_path: Path, argv: list[str]) -> None:
    mark = plant_codex(tmp_path)
    env = without_codex_on_path()
    assert subprocess.run(["sh", "-c", "command -v codex"], env=env).returncode != 0
    done = subprocess.run(
        [*ENVTUI, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert not mark.exists()
    if argv[0] == "events":
        assert done.returncode == 2
        assert done.stderr.startswith("envtui events: error: codex not found on PATH")
        assert done.stderr.count("\n") == 1
    else:
        codex_line = next(line for line in done.stdout.splitlines() if "codex" in line.split()[:1])
        assert "node_modules" not in codex_line
        assert "codex not found on PATH" in codex_line


def test_codex_named_by_the_variable_is_the_one_run(tmp_path: Path) -> None:
    mark = plant_codex(tmp_path)
    env = {**without_codex_on_path(), "ENVTUI_CODEX": str(tmp_path / "node_modules/.bin/codex")}
    done = subprocess.run(
        [*ENVTUI, "events", "--codex", "--no-daemon", "--duration", "5"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert mark.exists()  # chosen by the person: run, and its failure said in one line
    assert mark.read_text().startswith("app-server")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
