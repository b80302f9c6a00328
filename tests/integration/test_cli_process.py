"""``envtui render`` as its own process: the exact bytes to a pipe, escapes on a terminal, the
console script, and no traceback for bad input."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.main_in_process import render_json, write_json

ONE = {"environments": [{"id": "local", "cwd": "file:///repo", "shell": "bash"}]}
ONE_TEXT = (
    "<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n</environment_context>"
)


def test_pipe_gets_the_exact_bytes(tmp_path: Path) -> None:
    doc = {"environments": [{"id": "a", "cwd": "/x\x1b[31my"}]}
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "render", write_json(tmp_path / "s.json", doc)],
        capture_output=True,
        check=True,
    )
    assert b"<cwd>/x\x1b[31my</cwd>" in result.stdout


def test_terminal_sees_control_characters_escaped(tmp_path: Path) -> None:
    doc = {"environments": [{"id": "a", "cwd": "/x\x1b[31my"}]}
    main_fd, child_fd = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "envtui", "render", write_json(tmp_path / "s.json", doc)],
            stdout=child_fd,
            stderr=subprocess.PIPE,
            check=True,
        )
        os.close(child_fd)
        output = b""
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(main_fd)
    assert proc.returncode == 0
    assert b"\x1b" not in output
    assert b"<cwd>/x\\x1b[31my</cwd>" in output


def test_console_script_and_module_agree(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    script = Path(sys.executable).with_name("envtui")
    if not script.exists():
        pytest.skip(f"the envtui console script is not installed beside {sys.executable}")
    state = write_json(tmp_path / "s.json", ONE)
    via_script = subprocess.run(
        [str(script), "render", state, "--json"], capture_output=True, check=True
    )
    via_module = subprocess.run(
        [sys.executable, "-m", "envtui", "render", state, "--json"], capture_output=True, check=True
    )
    assert via_script.stdout == via_module.stdout
    result = json.loads(via_script.stdout)
    assert result["text"] == ONE_TEXT
    assert result == render_json([state], capsysbinary)  # and both agree with main()


def test_bad_input_in_a_subprocess_has_no_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "render", write_json(tmp_path / "s.json", "{oops")],
        capture_output=True,
    )
    assert result.returncode == 2
    assert result.stderr.count(b"\n") == 1
    assert b"Traceback" not in result.stderr
