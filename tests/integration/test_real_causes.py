"""Errors that name the real cause: the missing file, the process that really died."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest

from tests.support.files import FAKE_EXEC_SERVER

from envtui.environments.channels import ProcessChannel
from envtui.environments.exec_server import ExecServerEnvironment, ExecServerSettings
from envtui.environments.jsonrpc import JsonRpcClient
from envtui.environments.manager import EnvironmentManager
from envtui.environments.remote import PermanentError
from envtui.environments.ssh import SshSettings, open_connection
from envtui.steps.selection import Selection


async def test_a_missing_identity_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "id_ed25519"
    settings = SshSettings(
        host="127.0.0.1", port=1, identity_files=(str(missing),), read_ssh_config=False
    )
    with pytest.raises(PermanentError) as caught:
        await open_connection(settings, asyncio.get_running_loop().create_future())
    assert str(caught.value) == f"identity file {missing} does not exist"


async def test_a_dead_app_server_is_called_the_app_server() -> None:
    channel = await ProcessChannel.spawn(
        "/bin/sh", ["-c", "echo boom >&2; exit 3"], role="codex app-server"
    )
    rpc = JsonRpcClient(channel, peer="codex app-server")
    rpc.start()
    reason = await rpc.closed
    assert reason == "codex app-server exited with status 3: boom"
    await rpc.aclose()


async def test_the_debug_log_holds_protocol_messages_but_no_env_values(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = ExecServerSettings(
        program=sys.executable,
        args=(str(FAKE_EXEC_SERVER), "normal"),
        env={"API_TOKEN": "s3cret-value"},
        initialize_timeout=5.0,
    )
    environment = ExecServerEnvironment("codex", "/w", settings)
    manager = EnvironmentManager(lambda event: None)
    manager.register(environment)
    with caplog.at_level(logging.DEBUG, logger="envtui"):
        manager.update_selections([Selection("codex", "/w")])
        (entry,) = (await manager.snapshot_blocking(timeout=20)).entries
        await manager.aclose()
    assert entry.state == "ready"
    assert 'to exec-server: {"jsonrpc":"2.0","id":1,"method":"initialize"' in caplog.text
    assert "from exec-server:" in caplog.text
    assert "codex ready" in caplog.text
    assert "s3cret-value" not in caplog.text
