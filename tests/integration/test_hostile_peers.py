"""Peers that misbehave on purpose: exec-servers, a fake ``codex app-server``, SSH hosts.

Each one gets a bounded, clear answer: it is disconnected with a reason, or its bad message
is logged and skipped; memory stays bounded; every process it started ends with envtui.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncssh
import psutil
import pytest

from tests.support.fakes.recorded_manager import managed
from tests.support.files import FAKE_APP_SERVER, FAKE_EXEC_SERVER
from tests.support.liveness import alive
from tests.support.real.ssh_servers import InProcessServer, in_process_server
from tests.support.waiting import running, wait_until

from envtui.environments.exec_server import ExecServerEnvironment, ExecServerSettings
from envtui.environments.jsonrpc import MAX_UNSENT_REPLIES
from envtui.environments.ssh import SshEnvironment, _KnownHostsPolicy
from envtui.sources.codex_attach import CodexError, CodexOptions, CodexSource
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentStatus,
    Event,
    UnknownMessage,
    WarningMessage,
)

MIB = 1 << 20


def exec_server(mode: str, **env: str) -> ExecServerEnvironment:
    settings = ExecServerSettings(
        program=sys.executable,
        args=(str(FAKE_EXEC_SERVER), mode),
        env=env,
        initialize_timeout=5.0,
        backoff_initial=0.05,
        backoff_max=0.2,
    )
    return ExecServerEnvironment("x", "/w", settings)


async def test_an_exec_server_that_floods_requests_is_disconnected_and_memory_stays_flat() -> None:
    rss = psutil.Process().memory_info().rss
    manager, recorder = managed(exec_server("requests"))
    reason = (
        f"exec-server sent requests without reading the answers ({MAX_UNSENT_REPLIES} unsent); "
        "disconnected"
    )

    def disconnected() -> bool:
        return any(m.error == reason for m in recorder.messages_of_status("unavailable"))

    await wait_until(disconnected, timeout=30, what="the flood to be cut off")
    await asyncio.sleep(2)  # retried with the backoff, cut off again each time
    assert psutil.Process().memory_info().rss - rss < 100 * MIB
    await asyncio.wait_for(manager.aclose(), timeout=10)


async def test_a_notification_flood_is_read_without_starving_the_loop() -> None:
    manager, _ = managed(exec_server("notifications"))
    ticks = 0
    for _ in range(20):  # the loop keeps turning while the peer floods
        await asyncio.sleep(0.05)
        ticks += 1
    assert ticks == 20
    await asyncio.wait_for(manager.aclose(), timeout=10)


async def test_a_grandchild_in_a_session_of_its_own_is_ended_too(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    manager, _ = managed(exec_server("escape-child", FAKE_PID_FILE=str(pid_file)))
    assert (await manager.snapshot_blocking(timeout=20)).entries[0].state == "ready"
    await wait_until(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    escaped = int(pid_file.read_text())
    assert os.getsid(escaped) == escaped  # really in a session of its own, ignoring SIGTERM
    await asyncio.sleep(1)  # sampled while still a descendant
    await asyncio.wait_for(manager.aclose(), timeout=15)
    await wait_until(lambda: not alive(escaped), timeout=10, what="the escaped grandchild to end")


async def test_lone_surrogates_from_an_exec_server_are_kept_and_never_fatal() -> None:
    manager, recorder = managed(exec_server("surrogates"))
    (entry,) = (await manager.snapshot_blocking(timeout=20)).entries
    assert entry.state == "ready"
    assert entry.readiness is not None
    assert entry.readiness.shell_path == "/bin/sh\udfff"
    assert any(m.status == "ready" for m in recorder.messages(EnvironmentStatus))
    await manager.aclose()


# --- a fake codex app-server ----------------------------------------------------------------


def app_server(tmp_path: Path, mode: str) -> str:
    wrapper = tmp_path / f"codex-{mode}"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_APP_SERVER} {mode} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return str(wrapper)


@asynccontextmanager
async def attached(tmp_path: Path, mode: str) -> AsyncIterator[tuple[CodexSource, list[Event]]]:
    events: list[Event] = []
    options = CodexOptions(codex=app_server(tmp_path, mode), cwd=str(tmp_path), poll_interval=0.2)
    source = CodexSource(options, events.append)
    async with running(source.run, timeout=15):
        yield source, events


def statuses(events: list[Event]) -> list[tuple[str, str, bool]]:
    return [
        (e.msg.environment_id, e.msg.status, e.msg.primary)
        for e in events
        if isinstance(e.msg, EnvironmentStatus)
    ]


def warnings(events: list[Event]) -> list[str]:
    return [e.msg.message for e in events if isinstance(e.msg, WarningMessage)]


async def test_no_false_primary_when_a_remote_connects_before_local_answers(
    tmp_path: Path,
) -> None:
    async with attached(tmp_path, "early-connected") as (_, events):
        await wait_until(lambda: ("local", "ready", True) in statuses(events), timeout=20)
    seen = statuses(events)
    assert ("remote", "ready", True) not in seen
    assert seen.index(("remote", "ready", False)) < seen.index(("local", "ready", True))


async def test_a_notification_time_out_of_range_is_no_time_not_a_teardown(
    tmp_path: Path,
) -> None:
    async with attached(tmp_path, "bad-time") as (source, events):
        await wait_until(
            lambda: any(isinstance(e.msg, EnvironmentConnected) for e in events), timeout=20
        )
        await asyncio.sleep(0.5)
        assert not source.died
    (connected,) = [e for e in events if isinstance(e.msg, EnvironmentConnected)]
    assert connected.at is not None  # the time it was heard


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("bad-status", "codex app-server: environment/status for 'local' answered [1, 2], not an object; skipped"),
        ("thread-environments-bad", "codex app-server: a thread environment without an id: 1; skipped"),
        ("bad-notifications", "codex app-server sent malformed JSON: '{this is not json\\n'; skipped"),
    ],
)  # fmt: skip
async def test_malformed_answers_are_logged_and_skipped_and_polling_goes_on(
    tmp_path: Path, mode: str, expected: str
) -> None:
    async with attached(tmp_path, mode) as (source, events):
        await wait_until(lambda: expected in warnings(events), timeout=20, what=expected)
        problems = source.client.problems
        await asyncio.sleep(1)  # five more polls
        assert not source.died
        if mode == "bad-status":  # each poll meets the bad answer again: the loop goes on
            assert source.client.problems > problems


async def test_bad_notifications_between_good_ones_are_skipped(tmp_path: Path) -> None:
    async with attached(tmp_path, "bad-notifications") as (source, events):
        await wait_until(lambda: ("remote", "ready", False) in statuses(events), timeout=20)
    notices = warnings(events)
    assert any("nested deeper than 100 levels" in notice for notice in notices)
    assert not source.died
    unknown = [e.msg for e in events if isinstance(e.msg, UnknownMessage)]
    assert all(isinstance(m.raw["params"], dict) for m in unknown)


async def test_an_error_object_is_shown_as_json(tmp_path: Path) -> None:
    async with attached(tmp_path, "status-error-object") as (_, events):
        await wait_until(lambda: ("remote", "unavailable", False) in statuses(events))
    errors = [
        e.msg.error
        for e in events
        if isinstance(e.msg, EnvironmentStatus) and e.msg.environment_id == "remote"
    ]
    assert '{"x": 1}' in errors


async def test_a_thread_of_the_wrong_shape_is_a_codex_error(tmp_path: Path) -> None:
    options = CodexOptions(
        codex=app_server(tmp_path, "thread-string"), cwd=str(tmp_path), poll_interval=0.2
    )
    source = CodexSource(options, lambda _event: None)
    with pytest.raises(CodexError) as caught:
        async with running(source.run, timeout=15) as task:
            # it ends by itself, and the end of the block raises its error; a stop that came
            # first, while the app-server still started, would end it without one
            await asyncio.wait({task}, timeout=60)
    assert str(caught.value) == (
        'codex app-server did not start a thread: expected a thread with an id, got {"thread": '
        '"not-an-object"}'
    )


# --- SSH hosts ----------------------------------------------------------------------------------


class EndlessProbeServer(InProcessServer):
    """An SSH host whose answer to any command never ends."""

    async def _run_command(self, process: asyncssh.SSHServerProcess[str]) -> None:
        self.commands.append(process.command or "")
        try:
            while True:
                process.stdout.write("z" * 65536)
                await process.stdout.drain()
        except Exception:
            return


async def test_an_endless_probe_output_is_cut_at_1_mib(tmp_path: Path) -> None:
    server = await EndlessProbeServer().start()
    try:
        settings = server.settings(tmp_path / "known_hosts", connect_timeout=20.0)
        environment = SshEnvironment("h", "/", settings, client_keys=[server.client_key])
        rss = psutil.Process().memory_info().rss
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=30)).entries
        assert entry.error == "127.0.0.1: probe output over 1 MiB"
        assert psutil.Process().memory_info().rss - rss < 100 * MIB
        await manager.aclose()
    finally:
        await server.close()


async def test_known_hosts_that_cannot_be_used_is_a_permanent_clear_error(tmp_path: Path) -> None:
    async with in_process_server() as server:
        known_hosts = tmp_path / "known_hosts"
        settings = server.settings(known_hosts)
        known_hosts.write_bytes(b"\xff\xfe not utf-8\n")
        environment = SshEnvironment("h", "/", settings, client_keys=[server.client_key])
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=20)).entries
        assert entry.error is not None
        assert entry.error.startswith(f"known_hosts file {known_hosts} cannot be used: ")
        assert environment.status.value.next_retry_at is None  # not retried
        assert server.commands == []
        await manager.aclose()


async def test_accepting_a_new_key_creates_private_folders(tmp_path: Path) -> None:
    async with in_process_server() as server:
        known_hosts = tmp_path / "a" / "b" / "known_hosts"
        settings = server.settings(
            tmp_path / "unused", known_hosts=(str(known_hosts),), accept_new_host_keys=True
        )
        manager, _ = managed(SshEnvironment("h", "/", settings, client_keys=[server.client_key]))
        assert (await manager.snapshot_blocking(timeout=20)).entries[0].state == "ready"
        await manager.aclose()
    for folder in (tmp_path / "a", tmp_path / "a" / "b"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(known_hosts.stat().st_mode) == 0o600


def test_a_key_that_cannot_be_written_refuses_the_connection(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    from envtui.environments.ssh import SshSettings

    path = tmp_path / "a-file" / "known_hosts"  # its folder is a file: the write fails
    policy = _KnownHostsPolicy(
        SshSettings(host="h", known_hosts=(str(path),), accept_new_host_keys=True)
    )
    key: Any = asyncssh.generate_private_key("ssh-ed25519")
    assert not policy._append("h", key)
    assert policy.rejection == (
        f"cannot add the new host key of h to {path}: Not a directory; not connecting"
    )


@pytest.mark.parametrize("json_output", [True, False])
def test_snapshot_of_an_exec_server_with_lone_surrogates(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], json_output: bool
) -> None:
    import json

    from envtui.cli import main

    config = tmp_path / "c.toml"
    config.write_text(
        f'[[environments]]\nid = "x"\nkind = "exec-server"\ncwd = "/tmp"\n'
        f'program = "{sys.executable}"\nargs = ["{FAKE_EXEC_SERVER}", "surrogates"]\n'
    )
    code = main(["snapshot", "--config", str(config), *(["--json"] if json_output else [])])
    captured = capsysbinary.readouterr()
    assert (code, captured.err) == (0, b"")
    if json_output:
        (row,) = json.loads(captured.out)["environments"]
        assert (row["status"], row["shell_path"]) == ("ready", "/bin/sh\udfff")
    else:
        assert b" sh\xed\xa0\x80 " in captured.out  # the exact code unit, as in a pipe


async def test_an_exec_server_url_that_cannot_be_parsed_is_not_retried() -> None:
    environment = ExecServerEnvironment("x", "/w", ExecServerSettings(url="ws://[::1"))
    manager, _ = managed(environment)
    (entry,) = (await manager.snapshot_blocking(timeout=20)).entries
    assert entry.error is not None
    assert entry.error.startswith("invalid exec-server url 'ws://[::1'")
    assert environment.status.value.next_retry_at is None
    await manager.aclose()


async def test_a_local_cwd_of_an_unknown_user_is_a_reason_not_an_internal_error() -> None:
    from envtui.environments.local import LocalEnvironment

    manager, _ = managed(LocalEnvironment("local", "~nosuchuser-envtui/x"))
    (entry,) = (await manager.snapshot_blocking(timeout=5)).entries
    assert entry.error == "cwd names an unknown user: ~nosuchuser-envtui/x"
    await manager.aclose()


async def test_an_endless_line_closes_the_channel_at_16_mib_with_the_reason() -> None:
    settings = ExecServerSettings(
        program="cat", args=("/dev/zero",), initialize_timeout=20, backoff_initial=5, backoff_max=5
    )
    rss = psutil.Process().memory_info().rss
    manager, _ = managed(ExecServerEnvironment("zero", "/w", settings))
    (entry,) = (await manager.snapshot_blocking(timeout=30)).entries
    assert entry.error == "exec-server sent a line over 16 MiB"
    assert psutil.Process().memory_info().rss - rss < 100 * MIB
    await manager.aclose()


@pytest.mark.parametrize("which", ["known_hosts file", "identity file"])
async def test_a_device_as_a_key_file_is_refused_not_read(tmp_path: Path, which: str) -> None:
    async with in_process_server() as server:
        settings = server.settings(tmp_path / "known_hosts")
        if which == "known_hosts file":
            settings = dataclasses.replace(settings, known_hosts=("/dev/zero",))
        else:
            settings = dataclasses.replace(settings, identity_files=("/dev/zero",))
        environment = SshEnvironment("h", "/", settings)
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=20)).entries
        assert entry.error == f"{which} /dev/zero cannot be used: not a regular file"
        assert environment.status.value.next_retry_at is None  # not retried
        await manager.aclose()
