"""The same happy path and drop against a real OpenSSH ``sshd`` on 127.0.0.1."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from tests.support.fakes.fake_environments import Recorder
from tests.support.real.ssh_servers import SSHD, OpenSshServer, free_port
from tests.support.waiting import wait_until

from envtui.environments.manager import EnvironmentManager
from envtui.environments.ssh import SshEnvironment
from envtui.steps.selection import Selection

pytestmark = pytest.mark.skipif(
    SSHD is None,
    reason="OpenSSH sshd is not installed (Debian package openssh-server, which .ci/run installs)",
)


async def test_real_sshd_ready_then_dropped_then_back(tmp_path: Path) -> None:
    server = OpenSshServer(tmp_path, free_port()).start()
    manager: EnvironmentManager | None = None
    try:
        await server.accepting()
        settings = server.settings(
            keepalive_interval=0.5, keepalive_count_max=2, backoff_initial=0.1, backoff_max=0.5
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
