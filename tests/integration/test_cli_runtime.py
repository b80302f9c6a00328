"""``envtui snapshot`` and ``envtui events`` as separate processes: against SSH servers, a fake
exec-server, Codex's environments.toml, and no config at all."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.support.data.exec_server_configs import spawn_child_config
from tests.support.files import FAKE_EXEC_SERVER
from tests.support.liveness import alive
from tests.support.real.ssh_servers import InProcessServer, in_process_server
from tests.support.waiting import wait_until

from envtui.vocabulary.events import (
    DecodeError,
    EnvironmentConnected,
    EnvironmentStatus,
    Event,
    decode_lines,
)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(tmp_path: Path, server: InProcessServer, *, extra: str = "") -> Path:
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(server.client_key.export_private_key())
    key_file.chmod(0o600)
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(server.known_hosts_line())
    config = tmp_path / "config.toml"
    config.write_text(
        f"""
[[environments]]
id = "local"
kind = "local"
cwd = "{tmp_path}"

[[environments]]
id = "build"
kind = "ssh"
cwd = "{tmp_path}"
host = "127.0.0.1"
port = {server.port}
user = "envtui"
identity_files = ["{key_file}"]
known_hosts = "{known_hosts}"
keepalive_interval = 1
backoff_initial = 0.1
backoff_max = 0.5
{extra}
"""
    )
    return config


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "SHELL": "/bin/bash",
        "XDG_CONFIG_HOME": str(tmp_path),
    }


async def _run(*argv: str, env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "envtui",
        *argv,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_snapshot_reports_ready_and_unavailable_and_exits_0(tmp_path: Path) -> None:
    async with in_process_server(shell="/bin/zsh") as server:
        dead_port = _closed_port()
        extra = f"""
[[environments]]
id = "gone"
kind = "ssh"
cwd = "/"
host = "127.0.0.1"
port = {dead_port}
known_hosts = "{tmp_path / "known_hosts"}"
"""
        config = write_config(tmp_path, server, extra=extra)
        code, out, err = await _run(
            "snapshot", "--config", str(config), "--timeout", "20", "--json", env=_env(tmp_path)
        )
        assert (code, err) == (0, "")
        data = json.loads(out)
        rows = {row["id"]: row for row in data["environments"]}
        assert [row["id"] for row in data["environments"]] == ["local", "build", "gone"]
        assert (rows["local"]["status"], rows["local"]["primary"]) == ("ready", True)
        assert (rows["build"]["status"], rows["build"]["shell"], rows["build"]["primary"]) == (
            "ready",
            "zsh",
            False,
        )
        assert rows["gone"]["status"] == "unavailable"
        assert rows["gone"]["error"].startswith(f"cannot connect to 127.0.0.1:{dead_port}")
        assert '<environment id="gone" primary="false">' in data["context"]
        assert "<status>failed</status>" in data["context"]


async def test_snapshot_text_lists_every_environment(tmp_path: Path) -> None:
    async with in_process_server() as server:
        config = write_config(tmp_path, server)
        code, out, _ = await _run("snapshot", "--config", str(config), env=_env(tmp_path))
        assert code == 0
        header, local, build = out.splitlines()[:3]
        assert header.split() == ["ID", "STATUS", "PRIMARY", "SHELL", "CWD", "ERROR"]
        assert local.split()[:4] == ["local", "ready", "*", "bash"]
        assert build.split()[:3] == ["build", "ready", "zsh"]


def _read_events(path: Path, *, strict: bool = True) -> list[Event]:
    results = list(decode_lines(path.read_text().splitlines())) if path.exists() else []
    if strict:
        assert not [r for r in results if isinstance(r, DecodeError)]
    return [r for r in results if isinstance(r, Event)]


def _connected_count(path: Path) -> int:
    # While the command starts, the file may still hold the stale line it will truncate.
    return sum(isinstance(e.msg, EnvironmentConnected) for e in _read_events(path, strict=False))


async def test_events_streams_until_ctrl_c_and_closes_every_connection(tmp_path: Path) -> None:
    async with in_process_server() as server:
        config = write_config(tmp_path, server)
        out = tmp_path / "events.jsonl"
        out.write_text("stale\n")
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "envtui",
            "events",
            "--config",
            str(config),
            "--out",
            str(out),
            env=_env(tmp_path),
        )
        await wait_until(
            lambda: _connected_count(out) == 1, timeout=30, what="environment_connected"
        )
        server.drop_all()
        await wait_until(lambda: _connected_count(out) == 2, timeout=30, what="the reconnection")
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), timeout=30) == 0
        await wait_until(lambda: not server.live, what="the server to see the connection closed")
        lines = out.read_text().splitlines()
        assert "stale" not in lines
        prefix = '{"id":"","msg":{"type":"environment_connected","environment_id":"build"},"at":"'
        assert sum(line.startswith(prefix) for line in lines) == 2
        kinds = [
            e.msg.type
            for e in _read_events(out)
            if e.msg.type.startswith("environment_") and "connected" in e.msg.type
        ]
        assert kinds == [
            "environment_connected",
            "environment_disconnected",
            "environment_connected",
        ]
        statuses = [
            e.msg
            for e in _read_events(out)
            if isinstance(e.msg, EnvironmentStatus) and e.msg.environment_id == "local"
        ]
        assert [s.status for s in statuses] == ["starting", "ready"]


async def test_events_stops_after_the_duration(tmp_path: Path) -> None:
    code, out, err = await _run("events", "--duration", "0.3", env={**_env(tmp_path)})
    assert (code, err) == (0, "")
    events = list(decode_lines(out.splitlines()))
    assert [e.msg.type for e in events if isinstance(e, Event)] == [
        "environment_status",
        "environment_status",
    ]


async def test_events_with_an_exec_server_environment_report_its_death(tmp_path: Path) -> None:
    config, pid_file = spawn_child_config(
        tmp_path, extra="backoff_initial = 0.1\nbackoff_max = 0.2\n"
    )
    out = tmp_path / "events.jsonl"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "envtui",
        "events",
        "--config",
        str(config),
        "--out",
        str(out),
        env=_env(tmp_path),
    )
    await wait_until(lambda: _connected_count(out) == 1, timeout=30, what="environment_connected")
    server_pid = int(pid_file.read_text().split()[0])
    os.kill(server_pid, signal.SIGKILL)
    await wait_until(lambda: _connected_count(out) == 2, timeout=30, what="the reconnection")
    proc.send_signal(signal.SIGINT)
    assert await asyncio.wait_for(proc.wait(), timeout=30) == 0
    events = _read_events(out)
    kinds = [
        e.msg.type
        for e in events
        if e.msg.type in ("environment_connected", "environment_disconnected")
    ]
    assert kinds == ["environment_connected", "environment_disconnected", "environment_connected"]
    unavailable = [
        e.msg
        for e in events
        if isinstance(e.msg, EnvironmentStatus) and e.msg.status == "unavailable"
    ]
    assert unavailable[0].error == "exec-server was killed by SIGKILL"
    _, last_child = map(int, pid_file.read_text().split())
    await wait_until(lambda: not alive(last_child), what="the exec-server's child to be ended")


def test_snapshot_without_config_watches_the_current_directory(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "snapshot", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "SHELL": "/bin/zsh",
            "XDG_CONFIG_HOME": str(tmp_path),
        },
    )
    data = json.loads(result.stdout)
    assert data["environments"] == [
        {
            "id": "local",
            "kind": "local",
            "status": "ready",
            "primary": True,
            "shell": "zsh",
            "shell_path": "/bin/zsh",
            "cwd": str(tmp_path),
            "error": None,
        }
    ]
    assert f"<cwd>{tmp_path}</cwd>" in data["context"]


def test_snapshot_runs_codex_environments_like_any_other(tmp_path: Path) -> None:
    (tmp_path / "environments.toml").write_text(
        f'default = "fake"\n[[environments]]\nid = "fake"\nprogram = "{sys.executable}"\nargs = ["{FAKE_EXEC_SERVER}", "normal"]\n'
    )
    result = subprocess.run(
        [sys.executable, "-m", "envtui", "snapshot", "--codex-environments", str(tmp_path / "environments.toml"), "--json"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
        env={**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "SHELL": "/bin/bash"},
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert [
        (e["id"], e["kind"], e["status"], e["primary"], e["shell"]) for e in data["environments"]
    ] == [
        ("fake", "exec-server", "ready", True, "fish"),
        ("local", "local", "ready", False, "bash"),
    ]
    assert '<environment id="fake" primary="true">' in data["context"]
