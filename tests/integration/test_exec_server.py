"""Exec-server environments against a fake exec-server (stdio, SSH, websocket)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest
from websockets.asyncio.server import ServerConnection, serve

from tests.support.fakes.recorded_manager import managed
from tests.support.files import FAKE_EXEC_SERVER
from tests.support.liveness import alive
from tests.support.real.ssh_servers import in_process_server
from tests.support.waiting import wait_until

from envtui.environments.channels import ProcessChannel
from envtui.environments.exec_server import ExecServerEnvironment, ExecServerSettings
from envtui.environments.manager import EnvironmentManager
from envtui.vocabulary.events import WarningMessage

FAKE = str(FAKE_EXEC_SERVER)


def _settings(mode: str = "normal", **overrides: Any) -> ExecServerSettings:
    values: dict[str, Any] = {
        "program": sys.executable,
        "args": (FAKE, mode),
        "initialize_timeout": 5.0,
        "backoff_initial": 0.05,
        "backoff_max": 0.2,
    }
    values.update(overrides)
    return ExecServerSettings(**values)


async def _first_entry(manager: EnvironmentManager) -> Any:
    (entry,) = (await manager.snapshot_blocking(timeout=20)).entries
    return entry


async def test_ready_with_shell_and_cwd_from_environment_info() -> None:
    environment = ExecServerEnvironment("codex", "/home/me/repo", _settings())
    manager, recorder = managed(environment)
    entry = await _first_entry(manager)
    assert entry.state == "ready"
    assert entry.readiness.shell_name == "fish"
    assert entry.readiness.shell_path == "/usr/bin/fish"
    assert entry.readiness.cwd == "/srv/work"
    await wait_until(
        lambda: recorder.connection_events() == [("", "environment_connected", "codex")]
    )
    await manager.aclose()


async def test_slow_initialize_is_starting_then_ready() -> None:
    environment = ExecServerEnvironment(
        "codex", "/w", _settings("slow-initialize", env={"FAKE_DELAY": "0.8"})
    )
    manager, recorder = managed(environment)
    await wait_until(lambda: environment.pid is not None, what="the exec-server to be spawned")
    assert manager.snapshot().entries[0].state == "starting"  # it answers after 0.8 s
    assert (await _first_entry(manager)).state == "ready"
    assert [s[1] for s in recorder.statuses()] == ["starting", "ready"]
    await manager.aclose()


async def test_initialize_timeout_is_unavailable_and_retried() -> None:
    environment = ExecServerEnvironment(
        "codex", "/w", _settings("never-initialize", initialize_timeout=0.3)
    )
    manager, _ = managed(environment)
    entry = await _first_entry(manager)
    assert entry.error == "exec-server did not answer initialize within 0.3 s"
    await wait_until(
        lambda: environment.status.value.next_retry_at is not None, what="a retry time"
    )
    await manager.aclose()


async def test_malformed_json_is_unavailable_with_the_reason() -> None:
    manager, _ = managed(ExecServerEnvironment("codex", "/w", _settings("malformed")))
    entry = await _first_entry(manager)
    assert entry.error == "exec-server sent malformed JSON: '{this is not json\\n'"
    await manager.aclose()


async def test_error_answer_is_unavailable_with_code_and_message() -> None:
    manager, _ = managed(ExecServerEnvironment("codex", "/w", _settings("error")))
    entry = await _first_entry(manager)
    assert entry.error == "exec-server refused initialize: error -32602: missing field `clientName`"
    await manager.aclose()


async def test_unanswered_environment_info_is_ready_without_a_shell() -> None:
    # A short bound for the unanswered request only: the one on initialize includes the
    # interpreter's start-up, which on a loaded machine can take longer than that.
    settings = _settings("no-info", initialize_timeout=60.0, info_timeout=0.3)
    manager, _ = managed(ExecServerEnvironment("codex", "/w", settings))
    entry = await _first_entry(manager)
    assert entry.state == "ready"
    assert (entry.readiness.shell_name, entry.readiness.cwd) == (None, "/w")
    await manager.aclose()


async def test_killed_child_disconnects_then_a_new_one_connects() -> None:
    environment = ExecServerEnvironment("codex", "/w", _settings())
    manager, recorder = managed(environment)
    await wait_until(lambda: len(recorder.connection_events()) == 1)
    first_pid = environment.pid
    assert first_pid is not None
    os.kill(first_pid, signal.SIGKILL)
    await wait_until(
        lambda: len(recorder.connection_events()) == 3, what="disconnect and reconnect"
    )
    assert recorder.connection_events() == [
        ("", "environment_connected", "codex"),
        ("", "environment_disconnected", "codex"),
        ("", "environment_connected", "codex"),
    ]
    (unavailable, *_) = recorder.messages_of_status("unavailable")
    assert unavailable.error == "exec-server was killed by SIGKILL"
    assert environment.pid not in (None, first_pid)
    await manager.aclose()


async def test_exit_status_and_last_stderr_line_are_the_reason() -> None:
    environment = ExecServerEnvironment(
        "codex", "/w", _settings("exit-after-ready", backoff_initial=5, backoff_max=5)
    )
    manager, recorder = managed(environment)
    await wait_until(lambda: bool(recorder.messages_of_status("unavailable")), what="the exit")
    (unavailable,) = recorder.messages_of_status("unavailable")
    assert (
        unavailable.error == "exec-server exited with status 3: fatal: the fake exec-server gave up"
    )
    assert recorder.connection_events()[-1] == ("", "environment_disconnected", "codex")
    await manager.aclose()


async def test_missing_program_is_not_retried() -> None:
    environment = ExecServerEnvironment("codex", "/w", _settings(program="/nonexistent/codex"))
    manager, _ = managed(environment)
    entry = await _first_entry(manager)
    assert entry.error == "exec-server program not found: /nonexistent/codex"
    assert environment.status.value.next_retry_at is None
    await manager.aclose()


async def test_closing_ends_the_child_and_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    environment = ExecServerEnvironment(
        "codex", "/w", _settings("spawn-child", env={"FAKE_PID_FILE": str(pid_file)})
    )
    manager, _ = managed(environment)
    assert (await _first_entry(manager)).state == "ready"
    server_pid, grandchild_pid = map(int, pid_file.read_text().split())
    assert alive(server_pid)
    assert alive(grandchild_pid)
    await manager.aclose()
    await wait_until(
        lambda: not alive(server_pid) and not alive(grandchild_pid), what="every process to end"
    )


async def test_a_start_cancelled_half_way_ends_its_process_without_reaping_it_behind_asyncio(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Cancelled while it connects the pipes, asyncio closes the new transport itself, and
    that close reaps a child that has just exited before asyncio's child watcher does: the
    watcher then prints "Unknown child process pid …" on stderr. (A command stopping while
    an exec-server restarts is cancelled there.) A start lets the spawn finish and ends the
    process as every channel is ended."""
    with caplog.at_level(logging.WARNING, logger="asyncio"):
        for attempt in range(300):
            start = asyncio.ensure_future(ProcessChannel.spawn("/bin/true", []))
            await asyncio.sleep(attempt % 8 * 0.0002)  # cancelled at a different moment each time
            start.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await (await start).close()  # started before the cancel came: close it
        await wait_until(  # each watcher thread has seen its child's exit and said what it saw
            lambda: not any(t.name.startswith("waitpid-") for t in threading.enumerate()),
            what="asyncio's child watcher threads to end",
        )
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []
    assert [child.name() for child in psutil.Process().children()] == []


async def test_exec_server_over_ssh_is_ready_and_a_drop_disconnects(tmp_path: Path) -> None:
    async with in_process_server(streaming=True) as server:
        ssh = server.settings(tmp_path / "known_hosts")
        settings = _settings(ssh=ssh)
        environment = ExecServerEnvironment(
            "codex", "/w", settings, client_keys=[server.client_key]
        )
        manager, recorder = managed(environment)
        entry = await _first_entry(manager)
        assert entry.state == "ready", entry.error
        assert entry.readiness.shell_name == "fish"
        assert server.commands == [f"{sys.executable} {FAKE} normal"]
        server.drop_all()
        await wait_until(
            lambda: ("", "environment_disconnected", "codex") in recorder.connection_events()
        )
        (unavailable, *_) = recorder.messages_of_status("unavailable")
        assert unavailable.error is not None
        assert unavailable.error.startswith("connection lost")
        await manager.aclose()


async def test_an_accepted_host_key_of_an_exec_servers_host_is_a_warning(tmp_path: Path) -> None:
    async with in_process_server(streaming=True) as server:
        known_hosts = tmp_path / "known_hosts"
        ssh = server.settings(known_hosts, accept_new_host_keys=True)
        known_hosts.write_text("")  # the host is new: its key is accepted and noted
        environment = ExecServerEnvironment(
            "codex", "/w", _settings(ssh=ssh), client_keys=[server.client_key]
        )
        manager, recorder = managed(environment)
        assert (await _first_entry(manager)).state == "ready"
        (warning,) = recorder.messages(WarningMessage)
        assert warning.environment_id == "codex"
        assert warning.message.startswith(f"accepted the new host key of [127.0.0.1]:{server.port}")
        assert known_hosts.read_text() == server.known_hosts_line()
        await manager.aclose()


async def test_websocket_exec_server_ready_then_closed() -> None:
    info = {"shell": {"name": "zsh", "path": "/bin/zsh"}, "cwd": "file:///srv/ws"}
    connections: list[ServerConnection] = []

    async def handler(connection: ServerConnection) -> None:
        connections.append(connection)
        async for frame in connection:
            request = json.loads(frame)
            if request.get("method") == "initialize":
                await connection.send(
                    json.dumps({"id": request["id"], "result": {"environmentInfo": info}})
                )
            elif request.get("method") == "environment/info":
                await connection.send(json.dumps({"id": request["id"], "result": info}))

    async with serve(handler, "127.0.0.1", 0) as ws_server:
        port = next(iter(ws_server.sockets)).getsockname()[1]
        settings = ExecServerSettings(
            url=f"ws://127.0.0.1:{port}", backoff_initial=5, backoff_max=5
        )
        environment = ExecServerEnvironment("ws", "/w", settings)
        manager, recorder = managed(environment)
        entry = await _first_entry(manager)
        assert (entry.state, entry.readiness.shell_name, entry.readiness.cwd) == (
            "ready",
            "zsh",
            "/srv/ws",
        )
        await connections[0].close(code=1001, reason="going away")
        await wait_until(
            lambda: ("", "environment_disconnected", "ws") in recorder.connection_events()
        )
        (unavailable,) = recorder.messages_of_status("unavailable")
        assert unavailable.error == f"websocket to ws://127.0.0.1:{port} closed (1001: going away)"
        await manager.aclose()


async def test_unreachable_websocket_is_retried() -> None:
    settings = ExecServerSettings(
        url="ws://127.0.0.1:9", connect_timeout=1, backoff_initial=5, backoff_max=5
    )
    manager, _ = managed(ExecServerEnvironment("ws", "/w", settings))
    entry = await _first_entry(manager)
    assert entry.error is not None
    assert entry.error.startswith("cannot connect to ws://127.0.0.1:9")
    await manager.aclose()


def test_settings_need_exactly_one_of_program_and_url() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        ExecServerSettings()
    with pytest.raises(ValueError, match="exactly one"):
        ExecServerSettings(program="codex", url="ws://x")
