"""Headless commands as processes: every signal ends them within seconds, whatever they wait
on (a flooding peer, a blocked or failing write, an environment that never answers), with
everything they started ended too; a write that fails is one line and exit 1, and what was
written is whole JSON lines."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import stat
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.support.files import FAKE_APP_SERVER, FAKE_EXEC_SERVER, ROLLOUTS
from tests.support.liveness import alive
from tests.support.waiting import poll_until

ENVTUI = [sys.executable, "-m", "envtui"]
ROLLOUT_CASE = ROLLOUTS / "cases" / "failed-remote-0171.jsonl"
"""A real rollout whose check reports a finding: its report is written as it is read."""
BOUND = 10.0
"""Seconds within which a signalled command must have exited (it needs about one)."""


def exec_server_config(tmp_path: Path, mode: str, **env: str) -> Path:
    config = tmp_path / f"{mode}.toml"
    variables = ", ".join(f'{key} = "{value}"' for key, value in env.items())
    config.write_text(
        f'[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/tmp"\n'
        f'program = "{sys.executable}"\nargs = ["{FAKE_EXEC_SERVER}", "{mode}"]\n'
        f"env = {{ {variables} }}\ninitialize_timeout = 60\nbackoff_initial = 0.2\nbackoff_max = 0.5\n"
    )
    return config


def descendants(pid: int) -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        return psutil.Process(pid).children(recursive=True)
    return []


def started_child(pid: int, marker: str) -> list[psutil.Process]:
    """Wait until ``pid`` has a descendant whose command line holds ``marker``; all its
    descendants then.

    Any descendant is not enough: importing asyncssh runs ``gcc`` and ``ldconfig``
    (ctypes looking for an optional library) before envtui has installed its signal
    handlers, and a signal sent then would test the interpreter, not envtui.
    """

    def the_child() -> bool:
        for child in descendants(pid):
            with contextlib.suppress(psutil.Error):
                if any(marker in part for part in child.cmdline()):
                    return True
        return False

    poll_until(the_child, timeout=20, what=f"a child running {marker}")
    return descendants(pid)


@contextlib.contextmanager
def started(argv: list[str], tmp_path: Path, **kwargs: object) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [*ENVTUI, *argv],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        **kwargs,  # type: ignore[call-overload]
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _unread(fd: int) -> int:
    """How many bytes wait in the pipe ``fd`` reads from."""
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)


def signal_and_wait(process: subprocess.Popen[bytes], signum: int) -> float:
    """Send ``signum``; the seconds until the process exited (fails after :data:`BOUND`)."""
    sent = time.monotonic()
    process.send_signal(signum)
    process.wait(timeout=BOUND)
    return time.monotonic() - sent


def valid_jsonl(path: Path) -> list[dict[str, object]]:
    text = path.read_text()
    assert text == "" or text.endswith("\n"), "the last line is cut short"
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_events_ends_on_each_signal_while_a_peer_floods_requests(
    tmp_path: Path, signum: int
) -> None:
    out = tmp_path / "events.jsonl"
    config = exec_server_config(tmp_path, "requests")
    with started(["events", "--config", str(config), "--out", str(out)], tmp_path) as process:
        poll_until(lambda: "disconnected" in out.read_text() if out.exists() else False,
                   timeout=30, what="the flood to be cut off")  # fmt: skip
        children = descendants(process.pid)
        signal_and_wait(process, signum)
        assert process.returncode == 0
        assert process.stderr is not None
        assert process.stderr.read() == b""
    assert any("sent requests without reading" in json.dumps(e) for e in valid_jsonl(out))
    poll_until(lambda: not any(alive(c.pid) for c in children), timeout=5, what="no leftovers")


def test_events_to_a_pipe_nobody_reads_ends_on_sigterm(tmp_path: Path) -> None:
    config = exec_server_config(tmp_path, "notifications")
    read_end, write_end = os.pipe()
    try:
        with started(["events", "--config", str(config)], tmp_path, stdout=write_end) as process:
            # a first line out: the command is past its start-up, its signal handlers in place
            poll_until(lambda: _unread(read_end) > 0, timeout=60)
            time.sleep(3)  # the pipe is full long before: every write now blocks
            signal_and_wait(process, signal.SIGTERM)
            assert process.stderr is not None
            err = process.stderr.read().decode()
    finally:
        os.close(read_end)
        os.close(write_end)
    assert process.returncode in (0, 1)  # 1 when lines were still waiting for the pipe
    assert "Traceback" not in err
    assert err.count("\n") <= 1


def test_events_to_dev_full_is_one_line_and_exit_1(tmp_path: Path) -> None:
    config = exec_server_config(tmp_path, "normal")
    result = subprocess.run(
        [*ENVTUI, "events", "--config", str(config), "--duration", "5", "--out", "/dev/full"],
        capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1
    assert (
        result.stderr == "envtui events: error: /dev/full: cannot write: No space left on device\n"
    )


@pytest.mark.parametrize(
    "command", ["render", "snapshot", "check", "check rollout", "check rollout --json", "events"]
)
def test_standard_output_on_dev_full_is_one_line_and_exit_1(tmp_path: Path, command: str) -> None:
    state = tmp_path / "s.json"
    state.write_text('{"environments": [{"id": "a", "cwd": "/"}]}')
    config = tmp_path / "c.toml"
    config.write_text(f'[[environments]]\nid = "local"\nkind = "local"\ncwd = "{tmp_path}"\n')
    argv = {
        "render": ["render", str(state)],
        "snapshot": ["snapshot", "--config", str(config)],
        "check": ["check", "--config", str(config), "--steps", "1", "--interval", "0", "--json"],
        "check rollout": ["check", str(ROLLOUT_CASE)],
        "check rollout --json": ["check", "--json", str(ROLLOUT_CASE)],
        "events": ["events", "--config", str(config), "--duration", "1"],
    }[command]
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [*ENVTUI, *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=30
        )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    # the output's failure, never blamed on the input (a rollout that "cannot be read")
    assert "standard output: cannot write: No space left on device" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, when this process may mount one (root in CI); else the test skips."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_disk_that_fills_mid_stream_ends_events_with_whole_lines(
    tmp_path: Path, tiny_disk: Path
) -> None:
    out = tiny_disk / "events.jsonl"
    config = tmp_path / "restarting.toml"  # 40 exec-servers that fail at once, again and again
    config.write_text("".join(
        f'[[environments]]\nid = "x{n}"\nkind = "exec-server"\ncwd = "/tmp"\nprogram = "/bin/sh"\n'
        f'args = ["-c", "echo not-json"]\nbackoff_initial = 0.1\nbackoff_max = 0.2\n\n'
        for n in range(40)
    ))  # fmt: skip
    # it ends when the disk is full, in seconds when idle; the bounds only guard against a
    # hang, generous enough for a machine loaded many times over
    result = subprocess.run(
        [*ENVTUI, "events", "--config", str(config), "--duration", "900", "--out", str(out)],
        capture_output=True, text=True, timeout=900, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr == f"envtui events: error: {out}: cannot write: No space left on device\n"
    assert len(valid_jsonl(out)) > 100  # everything up to the last whole line


def test_snapshot_and_check_end_on_sigterm_while_an_environment_never_answers(
    tmp_path: Path,
) -> None:
    config = exec_server_config(tmp_path, "never-initialize")
    for argv in (
        ["snapshot", "--config", str(config), "--timeout", "600"],
        ["check", "--config", str(config), "--steps", "100", "--interval", "5"],
    ):
        with started(argv, tmp_path) as process:
            children = started_child(process.pid, str(FAKE_EXEC_SERVER))
            time.sleep(0.5)
            signal_and_wait(process, signal.SIGTERM)
            assert process.stderr is not None
            err = process.stderr.read().decode()
        assert process.returncode == 1
        assert "interrupted" in err
        assert err.count("\n") == 1
        poll_until(lambda: not any(alive(c.pid) for c in children), timeout=5, what="no leftovers")  # noqa: B023


def test_a_setsid_grandchild_of_an_exec_server_is_ended_with_events(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    config = exec_server_config(tmp_path, "escape-child", FAKE_PID_FILE=str(pid_file))
    argv = ["events", "--config", str(config)]
    with started(argv, tmp_path, stdout=subprocess.DEVNULL) as process:
        # written whole by the exec-server once it has answered the handshake and started it
        poll_until(
            lambda: pid_file.exists() and pid_file.read_text().endswith("\n"),
            what="the escaped grandchild's pid",
        )
        escaped = int(pid_file.read_text())
        signal_and_wait(process, signal.SIGTERM)  # ends it as the end of --duration does
        assert process.stderr is not None
        assert process.returncode == 0, process.stderr.read()
    poll_until(lambda: not alive(escaped), what="the escaped grandchild to end")


def fake_codex(tmp_path: Path, mode: str) -> str:
    wrapper = tmp_path / f"codex-{mode}"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_APP_SERVER} {mode} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return str(wrapper)


@pytest.mark.parametrize(
    ("mode", "code", "stderr"),
    [
        ("thread-string", 1, 'envtui events: codex app-server did not start a thread: expected a thread with an id, got {"thread": "not-an-object"}\n'),
        ("die-with-escapes", 1, "envtui events: codex app-server exited: codex app-server exited with status 1: fatal: \\x1b]2;APPSRV-TITLE\\x07\\x1b]52;c;QVBQU1JWLUNMSVA=\\x07\\x9b31m\\u202e\n"),
        ("bad-time", 0, ""),
        ("bad-status", 0, ""),
        ("flood", 0, ""),
    ],
)  # fmt: skip
def test_events_codex_against_a_bad_app_server(
    tmp_path: Path, mode: str, code: int, stderr: str
) -> None:
    out = tmp_path / "events.jsonl"
    # A mode that fails ends the command by itself: its duration is only a bound, long
    # enough for any start-up, so the failure (not the duration) is what ends it.
    duration = "60" if code else "4"
    result = subprocess.run(
        [*ENVTUI, "events", "--codex", fake_codex(tmp_path, mode), "--cwd", str(tmp_path),
         "--duration", duration, "--poll-interval", "0.3", "--out", str(out)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert (result.returncode, result.stderr) == (code, stderr)
    valid_jsonl(out)


def test_events_codex_ends_on_sigterm_while_the_app_server_floods(tmp_path: Path) -> None:
    out = tmp_path / "events.jsonl"
    argv = [
        "events",
        "--codex",
        fake_codex(tmp_path, "flood"),
        "--cwd",
        str(tmp_path),
        "--out",
        str(out),
    ]
    with started(argv, tmp_path) as process:
        poll_until(
            lambda: out.exists() and out.stat().st_size > 1 << 20, timeout=30, what="the flood"
        )
        children = descendants(process.pid)
        signal_and_wait(process, signal.SIGTERM)
    assert process.returncode == 0
    valid_jsonl(out)
    poll_until(lambda: not any(alive(c.pid) for c in children), timeout=5, what="no leftovers")


@pytest.mark.parametrize("command", ["render", "snapshot", "events"])
def test_a_closed_standard_output_is_one_line_and_exit_1(tmp_path: Path, command: str) -> None:
    state = tmp_path / "s.json"
    state.write_text('{"environments": [{"id": "a", "cwd": "/"}]}')
    argv = {
        "render": ["render", str(state)],
        "snapshot": ["snapshot"],
        "events": ["events", "--duration", "0.1"],
    }[command]
    result = subprocess.run(
        [*ENVTUI, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        timeout=30, cwd=tmp_path, preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.startswith(f"envtui {command}: error: standard output: cannot write: ")
    assert result.stderr.count("\n") == 1


def test_events_codex_ends_on_sigterm_while_the_app_server_never_answers(tmp_path: Path) -> None:
    silent = tmp_path / "codex"
    silent.write_text("#!/bin/sh\nexec sleep 600\n")  # reads nothing, answers nothing
    silent.chmod(0o755)
    with started(["events", "--codex", str(silent), "--cwd", str(tmp_path)], tmp_path) as process:
        children = started_child(process.pid, "sleep")
        signal_and_wait(process, signal.SIGTERM)
    assert process.returncode == 0
    poll_until(lambda: not any(alive(c.pid) for c in children), timeout=5, what="no leftovers")
