"""The real ``codex exec-server`` (npm @openai/codex@0.171.0), always in an empty network."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fakes.fake_environments import Recorder
from tests.support.files import NETNS_WEBSOCKET_SCENARIO
from tests.support.real.codex_tools import CODEX, IP, needs_codex, offline
from tests.support.real.ssh_servers import SSHD, OpenSshServer
from tests.support.waiting import wait_until

from envtui.environments.exec_server import ExecServerEnvironment, ExecServerSettings
from envtui.environments.manager import EnvironmentManager
from envtui.steps.selection import Selection

pytestmark = needs_codex


def _stdio_settings(**overrides: object) -> ExecServerSettings:
    program, *args = offline(str(CODEX), "exec-server", "--listen", "stdio")
    values: dict[str, object] = {
        "program": program,
        "args": tuple(args),
        "initialize_timeout": 30.0,
        "backoff_initial": 30.0,
        "backoff_max": 30.0,
    }
    values.update(overrides)
    return ExecServerSettings(**values)  # type: ignore[arg-type]


async def test_stdio_exec_server_is_ready_and_killing_it_disconnects(tmp_path: Path) -> None:
    recorder = Recorder()
    manager = EnvironmentManager(recorder)
    environment = ExecServerEnvironment("codex", str(tmp_path), _stdio_settings())
    manager.register(environment)
    manager.update_selections([Selection("codex", str(tmp_path))])
    try:
        (entry,) = (await manager.snapshot_blocking(timeout=60)).entries
        assert entry.state == "ready", entry.error
        assert entry.readiness is not None
        assert entry.readiness.shell_name
        assert entry.readiness.shell_path
        assert os.path.basename(entry.readiness.shell_path) == entry.readiness.shell_name
        await wait_until(
            lambda: recorder.connection_events() == [("", "environment_connected", "codex")]
        )
        pid = environment.pid
        assert pid is not None
        assert Path(f"/proc/{pid}/exe").resolve() == CODEX.resolve()  # type: ignore[union-attr]
        os.kill(pid, signal.SIGKILL)  # only that process
        await wait_until(
            lambda: ("", "environment_disconnected", "codex") in recorder.connection_events(),
            timeout=30,
        )
        (unavailable,) = recorder.messages_of_status("unavailable")
        assert unavailable.error == "exec-server was killed by SIGKILL"
        assert unavailable.next_retry_at is not None
    finally:
        await manager.aclose()


@pytest.mark.skipif(IP is None, reason="needs ip (iproute2) to bring up the namespace's loopback")
def test_websocket_exec_server_in_its_own_network(tmp_path: Path) -> None:
    script = NETNS_WEBSOCKET_SCENARIO
    result = subprocess.run(
        offline(sys.executable, str(script), str(CODEX)),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen = json.loads(result.stdout)
    assert seen["state"] == "ready", seen
    assert seen["shell"]
    assert seen["connection"] == [["", "environment_connected"], ["", "environment_disconnected"]]
    assert seen["unavailable"][0] == "websocket to ws://127.0.0.1:47631 was lost"


@pytest.mark.skipif(
    SSHD is None, reason="needs OpenSSH sshd (Debian openssh-server, which .ci/run installs)"
)
async def test_exec_server_over_real_ssh_is_ready_then_the_link_drops(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = OpenSshServer(tmp_path, port).start()
    recorder = Recorder()
    manager = EnvironmentManager(recorder)
    try:
        await server.accepting()
        ssh = server.settings(keepalive_interval=1, keepalive_count_max=2)
        environment = ExecServerEnvironment("remote", str(tmp_path), _stdio_settings(ssh=ssh))
        manager.register(environment)
        manager.update_selections([Selection("remote", str(tmp_path))])
        (entry,) = (await manager.snapshot_blocking(timeout=60)).entries
        assert entry.state == "ready", entry.error
        assert entry.readiness is not None
        assert entry.readiness.shell_name
        await wait_until(
            lambda: recorder.connection_events() == [("", "environment_connected", "remote")]
        )
        server.drop_connections()
        await wait_until(
            lambda: ("", "environment_disconnected", "remote") in recorder.connection_events(),
            timeout=30,
        )
        (unavailable,) = recorder.messages_of_status("unavailable")
        assert unavailable.error is not None
        assert unavailable.error.startswith(("connection lost", "exec-server on 127.0.0.1"))
    finally:
        await manager.aclose()
        server.stop()
