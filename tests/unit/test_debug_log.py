"""``--debug`` and ``--log-file``: a debug log through ``logging``, silent without them."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.main_in_process import run_cli, write_json

from envtui.vocabulary.debug_log import excerpt

DOCUMENT = {"environments": [{"id": "local", "cwd": "/r"}]}


def test_log_file_before_or_after_the_command_writes_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = write_json(tmp_path / "s.json", DOCUMENT)
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    assert run_cli(["--log-file", str(first), "render", state], capsys)[0] == 0
    assert run_cli(["render", state, "--log-file", str(second)], capsys)[0] == 0
    for log in (first, second):
        assert "DEBUG envtui: envtui 0.1.0: argv" in log.read_text(encoding="utf-8")
    assert not logging.getLogger("envtui").handlers[1:], "the handler is removed afterwards"


def test_debug_writes_where_info_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    state = write_json(tmp_path / "s.json", DOCUMENT)
    code, out, _ = run_cli(["--debug", "render", state], capsys)
    assert code == 0
    assert out.startswith("<environment_context>")
    assert (tmp_path / "state" / "envtui" / "log" / "envtui.log").is_file()


def test_an_unwritable_log_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = write_json(tmp_path / "s.json", DOCUMENT)
    folder = tmp_path / "a-directory"
    folder.mkdir()
    code, out, err = run_cli(["--log-file", str(folder), "render", state], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"envtui: error: {folder}: cannot write the debug log: ")
    assert err.count("\n") == 1


def test_without_debug_nothing_reaches_the_terminal() -> None:
    # In a fresh interpreter: pytest's own log capture would hide Python's last-resort handler.
    code = "from envtui.environments import ssh; ssh.log.warning('not for the terminal')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert result.stderr == b""


def test_excerpts_say_how_much_was_cut() -> None:
    assert excerpt("abc", 5) == "abc"
    assert excerpt("a" * 12, 5) == "aaaaa… (7 more characters)"
