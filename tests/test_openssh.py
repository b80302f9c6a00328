"""The same happy path and drop against a real OpenSSH ``sshd`` on 127.0.0.1."""

from __future__ import annotations

import asyncio
import getpass
import os
import pwd
import socket
from pathlib import Path

import pytest
from fakes import Recorder
from ssh_servers import SSHD, OpenSshServer
from waiting import wait_until

from envtui.environments.manager import EnvironmentManager, Selection
from envtui.environments.ssh import SshEnvironment, SshSettings

pytestmark = pytest.mark.skipif(
    SSHD is None,
    reason="OpenSSH sshd is not installed (Debian package openssh-server, which .ci/run installs)",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _accepting(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    return True


async def test_real_sshd_ready_then_dropped_then_back(tmp_path: Path) -> None:
    server = OpenSshServer(tmp_path, _free_port()).start()
    manager: EnvironmentManager | None = None
    try:
        for _ in range(500):
            if await _accepting(server.port):
                break
            await asyncio.sleep(0.01)
        settings = SshSettings(
            host="127.0.0.1",
            port=server.port,
            user=getpass.getuser(),
            identity_files=(str(tmp_path / "clientkey"),),
            known_hosts=(str(tmp_path / "known_hosts"),),
            keepalive_interval=0.5,
            keepalive_count_max=2,
            backoff_initial=0.1,
            backoff_max=0.5,
            read_ssh_config=False,
            use_agent=False,
        )
        recorder = Recorder()
        manager = EnvironmentManager(recorder)
        manager.register(SshEnvironment("real", str(tmp_path), settings))
        manager.update_selections([Selection("real", str(tmp_path))])
        (entry,) = (await manager.snapshot_blocking(timeout=30)).entries
        assert entry.state == "ready", entry.error
        login_shell = pwd.getpwuid(os.getuid()).pw_shell
        assert entry.readiness is not None
        assert entry.readiness.shell_path == login_shell
        assert entry.readiness.shell_name == os.path.basename(login_shell)
        await wait_until(
            lambda: recorder.connection_events() == [("", "environment_connected", "real")]
        )
        server.drop_connections()
        await wait_until(
            lambda: len(recorder.connection_events()) == 3, timeout=30, what="drop and reconnect"
        )
        assert recorder.connection_events() == [
            ("", "environment_connected", "real"),
            ("", "environment_disconnected", "real"),
            ("", "environment_connected", "real"),
        ]
    finally:
        if manager is not None:
            await manager.aclose()
        server.stop()
    assert server.children() == [] or server.process is None or server.process.poll() is not None
