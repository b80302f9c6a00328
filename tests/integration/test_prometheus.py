"""A real Prometheus scrapes ``envtui events --metrics`` and sees an SSH environment go from
ready to unavailable when its sshd is stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.real.prometheus_server import PROMETHEUS, prometheus, query
from tests.support.real.ssh_servers import SSHD, OpenSshServer, free_port
from tests.support.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(
        PROMETHEUS is None,
        reason="Prometheus is not installed (Debian package prometheus, which .ci/run installs)",
    ),
    pytest.mark.skipif(
        SSHD is None,
        reason="OpenSSH sshd is not installed (Debian package openssh-server, which .ci/run installs)",
    ),
]


def _config(path: Path, server: OpenSshServer, cwd: Path) -> Path:
    settings = server.settings()
    path.write_text(
        f"""
[[environments]]
id = "build"
kind = "ssh"
cwd = "{cwd}"
host = "127.0.0.1"
port = {server.port}
user = "{settings.user}"
identity_files = ["{settings.identity_files[0] if settings.identity_files else ""}"]
known_hosts = "{settings.known_hosts[0]}"
keepalive_interval = 0.5
keepalive_count_max = 2
backoff_initial = 0.2
backoff_max = 1
"""
    )
    return path


def _value(base: str, status: str) -> str | None:
    result = query(base, f'envtui_environment_status{{environment="build",status="{status}"}}')
    return result[0]["value"][1] if result else None


async def test_prometheus_sees_ready_then_unavailable_after_sshd_stops(tmp_path: Path) -> None:
    server = OpenSshServer(tmp_path, free_port()).start()
    metrics_port, prometheus_port = free_port(), free_port()
    envtui = None
    try:
        await server.accepting()
        config = _config(tmp_path / "envtui.toml", server, tmp_path)
        envtui = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "envtui",
                "events",
                "--config",
                str(config),
                "--metrics",
                f"127.0.0.1:{metrics_port}",
                "--out",
                str(tmp_path / "events.jsonl"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        with prometheus(tmp_path, prometheus_port, f"127.0.0.1:{metrics_port}") as base:
            await wait_until(lambda: _value(base, "ready") == "1", timeout=60, what="ready == 1")
            assert _value(base, "unavailable") == "0"
            up = query(base, 'envtui_source_up{source="engine"}')
            assert up[0]["value"][1] == "1"
            server.drop_connections()
            server.stop()
            await wait_until(
                lambda: _value(base, "unavailable") == "1", timeout=60, what="unavailable == 1"
            )
            assert _value(base, "ready") == "0"
    finally:
        server.stop()
        if envtui is not None:
            envtui.terminate()
            _, err = envtui.communicate(timeout=20)
            assert envtui.returncode == 0, err.decode()
