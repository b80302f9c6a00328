"""The daemon channel: JSON-RPC over a websocket on a Unix socket, and the reasons it gives;
whether a daemon listens, and ``envtui sessions`` on a CODEX_HOME whose tree is not made."""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, unix_serve

from tests.support.main_in_process import run_cli

from envtui.environments.daemon_socket import (
    DaemonSocketChannel,
    daemon_listens,
    daemon_socket,
)
from envtui.environments.jsonrpc import JsonRpcClient
from envtui.environments.remote import RetryableError


@pytest.fixture
def home() -> Iterator[Path]:
    """A short CODEX_HOME: a Unix socket's path is limited to about 100 bytes."""
    made = Path(tempfile.mkdtemp(prefix="cx"))
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


async def _echo_initialize(connection: ServerConnection) -> None:
    async for message in connection:
        assert isinstance(message, str)
        request_id = message.split('"id":', 1)[1].split(",", 1)[0]
        await connection.send('{"id":' + request_id + ',"result":{"userAgent":"test"}}')


def test_a_request_is_answered_over_the_unix_socket(home: Path) -> None:
    path = daemon_socket(home)
    path.parent.mkdir()

    async def scenario() -> object:
        async with unix_serve(_echo_initialize, str(path)):
            channel = await DaemonSocketChannel.connect(path)
            rpc = JsonRpcClient(channel, peer="codex app-server daemon")
            rpc.start()
            try:
                return await rpc.request("initialize", {}, timeout=10)
            finally:
                await rpc.aclose()

    assert asyncio.run(scenario()) == {"userAgent": "test"}


def test_no_socket_says_how_to_start_a_daemon(home: Path) -> None:
    with pytest.raises(RetryableError, match="codex app-server daemon start"):
        asyncio.run(DaemonSocketChannel.connect(daemon_socket(home)))


def test_a_socket_left_behind_is_refused_with_the_reason(home: Path) -> None:
    import socket

    path = daemon_socket(home)
    path.parent.mkdir()
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(path))
    left.close()  # the file stays, nobody listens: what a killed daemon leaves
    with pytest.raises(RetryableError, match="does not answer"):
        asyncio.run(DaemonSocketChannel.connect(path))


@pytest.mark.parametrize("command", ["codex", "events"])
def test_the_0150_profile_has_no_daemon_and_says_so_in_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('profile = "codex-0.150"\n')
    home = tmp_path / "home"
    daemon_socket(home).parent.mkdir(parents=True)
    daemon_socket(home).touch()  # as if a daemon ran: the profile decides, not the socket
    argv = [command, *(["--codex"] if command == "events" else [])]
    code, out, err = run_cli([*argv, "--config", str(config), "--codex-home", str(home)], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "codex-0.150 has no app-server daemon" in err
    assert "--no-daemon" in err


def test_a_missing_default_tree_without_a_daemon_is_exit_2(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No daemon answers on CODEX_HOME's socket (none there, or one left behind by a daemon
    that was killed): a missing tree is still an error."""
    monkeypatch.setenv("CODEX_HOME", str(home))
    code, _, err = run_cli(["sessions", "--json"], capsys)
    assert code == 2
    assert f"{home / 'sessions'}: no such directory" in err
    left = daemon_socket(home)
    left.parent.mkdir(parents=True)
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(left))  # bound, never listening: refused
    assert not daemon_listens(home)
    code, _, err = run_cli(["sessions", "--json"], capsys)
    assert code == 2
    assert "no such directory" in err


def test_a_daemon_listens_where_its_socket_accepts(home: Path) -> None:
    path = daemon_socket(home)
    path.parent.mkdir(parents=True)
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))
        listening.listen()
        assert daemon_listens(home)
