"""SSH environments against in-process asyncssh servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from tests.support.fakes.recorded_manager import managed
from tests.support.real.ssh_servers import BlackholeProxy, InProcessServer, in_process_server
from tests.support.waiting import wait_until

from envtui.environments.ssh import SshEnvironment, SshSettings, open_connection
from envtui.environments.ssh_probe import probe_command
from envtui.vocabulary.events import WarningMessage


def _environment(server: InProcessServer, tmp_path: Path, **overrides: Any) -> SshEnvironment:
    settings = server.settings(tmp_path / "known_hosts", **overrides)
    return SshEnvironment("build", str(tmp_path), settings, client_keys=[server.client_key])


async def test_ready_with_the_servers_shell_and_a_connected_event(tmp_path: Path) -> None:
    async with in_process_server(shell="/usr/bin/zsh") as server:
        manager, recorder = managed(_environment(server, tmp_path))
        snapshot = await manager.snapshot_blocking(timeout=10)
        (entry,) = snapshot.entries
        assert entry.state == "ready"
        assert entry.readiness is not None
        assert (entry.readiness.shell_name, entry.readiness.shell_path) == ("zsh", "/usr/bin/zsh")
        await wait_until(
            lambda: recorder.connection_events() == [("", "environment_connected", "build")]
        )
        await manager.aclose()
        await wait_until(lambda: not server.live, what="the server to see the connection closed")


async def test_slow_handshake_shows_starting_then_ready(tmp_path: Path) -> None:
    async with in_process_server(auth_delay=0.5) as server:
        manager, recorder = managed(_environment(server, tmp_path))
        await wait_until(lambda: bool(server.live), what="the server to see the connection")
        assert manager.snapshot().entries[0].state == "starting"  # authenticated after 0.5 s
        assert (await manager.snapshot_blocking(timeout=10)).entries[0].state == "ready"
        assert [s[1] for s in recorder.statuses()] == ["starting", "ready"]
        await manager.aclose()


async def test_server_closing_mid_session_disconnects_then_reconnects(tmp_path: Path) -> None:
    async with in_process_server() as server:
        manager, recorder = managed(_environment(server, tmp_path))
        await wait_until(lambda: len(recorder.connection_events()) == 1)
        server.drop_all()
        await wait_until(
            lambda: len(recorder.connection_events()) == 3, what="disconnect and reconnect"
        )
        assert recorder.connection_events() == [
            ("", "environment_connected", "build"),
            ("", "environment_disconnected", "build"),
            ("", "environment_connected", "build"),
        ]
        unavailable = [m for m in recorder.messages_of_status("unavailable")]
        assert unavailable[0].error is not None
        assert unavailable[0].error.startswith("connection lost")
        assert unavailable[0].next_retry_at is not None
        await manager.aclose()


async def test_dead_link_is_noticed_within_the_keepalive_bound(tmp_path: Path) -> None:
    async with in_process_server() as server:
        proxy = await BlackholeProxy(server.port).start()
        settings = server.settings(
            tmp_path / "known_hosts", port=proxy.port, keepalive_interval=0.3, keepalive_count_max=2
        )
        environment = SshEnvironment(
            "build", str(tmp_path), settings, client_keys=[server.client_key]
        )
        manager, recorder = managed(environment)
        await wait_until(lambda: len(recorder.connection_events()) == 1)
        proxy.frozen = True  # packets vanish; no FIN, no RST: only keepalive can tell
        elapsed = await wait_until(
            lambda: len(recorder.connection_events()) >= 2, timeout=settings.dead_link_bound + 5
        )
        assert recorder.connection_events()[1] == ("", "environment_disconnected", "build")
        assert elapsed >= settings.keepalive_interval  # it was the keepalive, not a closed socket
        await manager.aclose()
        await proxy.close()


async def test_wrong_host_key_is_unavailable_and_runs_nothing(tmp_path: Path) -> None:
    async with in_process_server() as server:
        environment = _environment(server, tmp_path)
        impostor = (
            asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().split()[:2]
        )
        (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{server.port} {' '.join(impostor)}\n")
        manager, recorder = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
        assert entry.state == "failed"
        assert entry.error is not None
        assert "host key mismatch" in entry.error
        # Not retried: the environment stopped trying (its task ended) and announced no retry.
        task = environment._task
        await wait_until(lambda: task is not None and task.done(), what="it to stop trying")
        assert environment.status.value.next_retry_at is None
        assert server.commands == []
        assert recorder.connection_events() == []
        await manager.aclose()


async def test_unknown_host_is_told_apart_from_a_mismatch(tmp_path: Path) -> None:
    async with in_process_server() as server:
        environment = _environment(server, tmp_path)
        (tmp_path / "known_hosts").write_text("")
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
        assert entry.error is not None
        assert entry.error.startswith("unknown host key")
        assert "accept_new_host_keys" in entry.error
        assert server.commands == []
        await manager.aclose()


async def test_non_22_port_needs_a_bracketed_entry(tmp_path: Path) -> None:
    async with in_process_server() as server:
        environment = _environment(server, tmp_path)
        key = server.host_key.export_public_key().decode().split()[:2]
        (tmp_path / "known_hosts").write_text(f"127.0.0.1 {' '.join(key)}\n")  # no [host]:port
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
        assert entry.error is not None
        assert entry.error.startswith("unknown host key")
        await manager.aclose()


async def test_accept_new_host_keys_appends_the_key(tmp_path: Path) -> None:
    async with in_process_server() as server:
        known_hosts = tmp_path / "ssh" / "known_hosts"
        settings = server.settings(
            tmp_path / "unused", known_hosts=(str(known_hosts),), accept_new_host_keys=True
        )
        environment = SshEnvironment(
            "build", str(tmp_path), settings, client_keys=[server.client_key]
        )
        manager, recorder = managed(environment)
        assert (await manager.snapshot_blocking(timeout=10)).entries[0].state == "ready"
        assert known_hosts.read_text() == server.known_hosts_line()
        notes = [
            (w.environment_id, w.message)
            for w in recorder.messages(WarningMessage)
            if w.message.startswith("accepted the new host key")
        ]
        assert len(notes) == 1
        assert notes[0][0] == "build"
        assert f"[127.0.0.1]:{server.port}" in notes[0][1]
        await manager.aclose()


async def test_missing_known_hosts_file_is_its_own_error(tmp_path: Path) -> None:
    async with in_process_server() as server:
        settings = server.settings(tmp_path / "unused", known_hosts=(str(tmp_path / "nope"),))
        environment = SshEnvironment(
            "build", str(tmp_path), settings, client_keys=[server.client_key]
        )
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
        assert (
            entry.error
            == f"known_hosts file {tmp_path / 'nope'} does not exist; create it or set accept_new_host_keys = true"
        )
        await manager.aclose()


async def test_wrong_client_key_is_an_authentication_failure_and_retried(tmp_path: Path) -> None:
    async with in_process_server() as server:
        settings = server.settings(tmp_path / "known_hosts")
        stranger = asyncssh.generate_private_key("ssh-ed25519")
        environment = SshEnvironment("build", str(tmp_path), settings, client_keys=[stranger])
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
        assert entry.error is not None
        assert entry.error.startswith("authentication failed for envtui@127.0.0.1")
        await wait_until(
            lambda: environment.status.value.next_retry_at is not None, what="a retry time"
        )
        assert server.commands == []
        await manager.aclose()


async def test_cwd_cannot_inject_shell_commands(tmp_path: Path) -> None:
    pwned = tmp_path / "pwned"
    evil = f"{tmp_path}/x'; touch {pwned}; echo '"
    async with in_process_server() as server:
        settings = server.settings(tmp_path / "known_hosts")
        environment = SshEnvironment("build", evil, settings, client_keys=[server.client_key])
        manager, _ = managed(environment)
        (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
        assert entry.state == "failed"
        assert entry.error is not None
        assert "is not usable" in entry.error
        assert not pwned.exists()
        await manager.aclose()


async def test_probe_command_quotes_home_relative_paths() -> None:
    proc = await asyncio.create_subprocess_shell(
        probe_command("~/"),
        stdout=asyncio.subprocess.PIPE,
        env={"HOME": "/tmp", "SHELL": "/bin/sh"},
    )
    out, _ = await proc.communicate()
    assert out.decode().splitlines() == ["/bin/sh", "/tmp"]


def test_dead_link_bound_is_interval_times_count_plus_one() -> None:
    assert SshSettings(host="h", keepalive_interval=5, keepalive_count_max=3).dead_link_bound == 20


async def test_ssh_config_alias_keeps_its_own_port_user_and_key(
    tmp_path: Path, monkeypatch: Any
) -> None:
    async with in_process_server() as server:
        home = Path(str(tmp_path))
        (home / ".ssh").mkdir()
        key_file = home / ".ssh" / "bench_key"
        key_file.write_bytes(server.client_key.export_private_key())
        key_file.chmod(0o600)
        (home / ".ssh" / "config").write_text(
            f"Host buildbox\n  HostName 127.0.0.1\n  Port {server.port}\n  User ci\n  IdentityFile {key_file}\n"
            "  UserKnownHostsFile none\n"  # must not switch host-key checking off
        )
        monkeypatch.setenv("HOME", str(home))
        (home / "known_hosts").write_text(server.known_hosts_line())
        settings = SshSettings(
            host="buildbox",
            known_hosts=(str(home / "known_hosts"),),
            use_agent=False,
            backoff_initial=0.05,
            backoff_max=0.1,
        )
        manager, _ = managed(SshEnvironment("build", str(tmp_path), settings))
        assert (await manager.snapshot_blocking(timeout=10)).entries[0].state == "ready"
        await manager.aclose()
        (home / "known_hosts").write_text("")
        manager, _ = managed(SshEnvironment("build", str(tmp_path), settings))
        (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
        assert entry.error is not None
        assert entry.error.startswith("unknown host key")
        await manager.aclose()


async def test_connect_timeout_bounds_a_silent_server(tmp_path: Path) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # accepts the TCP connection and never speaks SSH

    listener = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    (tmp_path / "known_hosts").write_text("")
    settings = SshSettings(
        host="127.0.0.1", port=port, known_hosts=(str(tmp_path / "known_hosts"),), connect_timeout=0.3,
        read_ssh_config=False, use_agent=False, backoff_initial=5, backoff_max=5,
    )  # fmt: skip
    manager, _ = managed(SshEnvironment("build", str(tmp_path), settings))
    (entry,) = (await manager.snapshot_blocking(timeout=10)).entries
    assert entry.error == f"connecting to 127.0.0.1:{port} timed out after 0.3 s"
    await manager.aclose()
    listener.close()


async def test_a_start_cancelled_at_any_moment_of_its_login_ends_and_closes_its_connection(
    tmp_path: Path,
) -> None:
    """Closed while it connects, at moments spread over the whole login (and just after),
    an environment always ends, and leaves no connection open at the server."""
    async with in_process_server(auth_delay=0.05) as server:
        probe = _environment(server, tmp_path)
        started = asyncio.get_running_loop().time()
        probe.start()
        await wait_until(lambda: probe.status.value.state != "starting", what="the first login")
        login = asyncio.get_running_loop().time() - started
        await probe.aclose()
        rounds = 120
        for index in range(rounds):
            environment = _environment(server, tmp_path)
            environment.start()
            await asyncio.sleep(login * 1.2 * index / rounds)
            async with asyncio.timeout(30):  # a hang guard: a close takes milliseconds
                await environment.aclose()
        await wait_until(lambda: not server.live, what="every connection closed at the server")


async def test_a_cancellation_that_asyncssh_drops_still_reaches_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.11's ``asyncio.wait_for`` (which asyncssh's connect uses) returns the result
    instead of raising when a cancellation arrives as the login completes; the connect is
    still cancelled for its caller, and the connection made all the same is closed."""
    made: list[_Connection] = []

    async def connect_that_drops_a_cancellation(*args: object, **options: object) -> object:
        with contextlib.suppress(asyncio.CancelledError):  # as wait_for does when its
            await asyncio.sleep(3600)  # connect completed at that moment
        made.append(_Connection())
        return made[-1], object()

    monkeypatch.setattr(asyncssh, "create_connection", connect_that_drops_a_cancellation)
    (tmp_path / "known_hosts").write_text("")
    settings = SshSettings(
        host="127.0.0.1", port=22, known_hosts=(str(tmp_path / "known_hosts"),),
        read_ssh_config=False, use_agent=False,
    )  # fmt: skip
    connecting = asyncio.ensure_future(open_connection(settings, asyncio.Future()))
    await asyncio.sleep(0.05)
    connecting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await connecting
    await wait_until(lambda: bool(made) and made[0].aborted, what="the late connection closed")


class _Connection:
    """What the injected connect returns: remembers being aborted."""

    def __init__(self) -> None:
        self.aborted = False

    def abort(self) -> None:
        self.aborted = True
