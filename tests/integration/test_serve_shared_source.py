"""``envtui serve`` of a live command: one source for every tab, at a real sshd and Codex.

Three tabs (aiohttp websockets, as a browser opens them) on a config of two SSH hosts: the
sshd sees two connections (it forks one child per connection), not six, and each tab's
dashboard (in the tab host) is a replay following the server's stream. Ctrl+C ends the tabs, the source and
its connections, and removes the stream. ``serve -- codex`` with three tabs runs one real
``codex app-server``.
"""

from __future__ import annotations

import asyncio
import getpass
from pathlib import Path

import psutil
import pytest

from tests.support.liveness import alive
from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.real.serve_process import (
    Served,
    browser_client,
    free_port,
    logged_in,
    screen_bytes,
    start_serve,
    stop_serve,
    tab_hosts,
)
from tests.support.real.ssh_servers import SSHD, OpenSshServer
from tests.support.real.ssh_servers import free_port as free_ssh_port
from tests.support.waiting import wait_until

needs_sshd = pytest.mark.skipif(
    SSHD is None,
    reason="needs OpenSSH's sshd (Debian package openssh-server, which .ci/run installs)",
)
TABS = 3
HOSTS = ("alpha", "beta")


def _config(tmp_path: Path, server: OpenSshServer) -> Path:
    entries = [
        f"""
[[environments]]
id = "{name}"
kind = "ssh"
cwd = "/"
host = "127.0.0.1"
port = {server.port}
user = "{getpass.getuser()}"
identity_files = ["{server.directory / "clientkey"}"]
known_hosts = "{server.directory / "known_hosts"}"
"""
        for name in HOSTS
    ]
    config = tmp_path / "envtui.toml"
    config.write_text("step_interval = 1\n" + "".join(entries))
    return config


def _tab_host_command(served: Served) -> list[str]:
    """The command line of the tab host: the dashboard every tab gets, after ``--``."""
    (host,) = tab_hosts(served.process.pid)
    command = host.cmdline()
    return command[command.index("--") + 1 :]


@needs_sshd
async def test_every_tab_follows_one_source_with_one_ssh_connection_per_host(
    tmp_path: Path,
) -> None:
    sshd_dir = tmp_path / "sshd"
    sshd_dir.mkdir()
    sshd = OpenSshServer(sshd_dir, free_ssh_port()).start()
    try:
        await sshd.accepting()
        config = _config(tmp_path, sshd)
        port = free_port()
        arguments = ["--port", str(port), "--", "watch", "--config", str(config)]
        process, url, log = start_serve(arguments, tmp_path)
        served = Served(process, port, url, log)
        try:
            assert "a dashboard per tab, at most 8 on one shared source" in log.read_text()
            await wait_until(  # async: the loop closes the probe's connection meanwhile
                lambda: len(sshd.children()) == len(HOSTS),
                what=f"the source's connections (sshd children: {sshd.children()})",
            )
            most, stream = await _three_tabs(served, sshd)
            assert most == len(HOSTS)  # not one per host per tab
            assert stream.is_file()
            assert stream.stat().st_size > 0  # what the tabs followed
            assert stream.parent.stat().st_mode & 0o777 == 0o700  # and the tabs' sockets
            assert {p.name for p in stream.parent.glob("tabs-*.sock")} == {"tabs-1.sock"}
        finally:
            started = psutil.Process(process.pid).children(recursive=True)
            assert stop_serve(process) == 0, log.read_text(errors="replace")
        assert not any(alive(p.pid) for p in started)
        assert not stream.parent.exists()  # the stream and its folder are removed
        await wait_until(lambda: not sshd.children(), what="the source's connections to close")
    finally:
        sshd.stop()


async def _three_tabs(served: Served, sshd: OpenSshServer) -> tuple[int, Path]:
    """Open three tabs; the most connections the sshd held meanwhile, and the stream the
    tabs' dashboards follow."""
    headers = {"Origin": served.origin}
    url = f"ws://127.0.0.1:{served.port}/ws?width=120&height=40"
    most = 0
    async with browser_client() as client:
        await logged_in(client, served)
        tabs = [await client.ws_connect(url, headers=headers) for _ in range(TABS)]
        try:
            for tab in tabs:
                await screen_bytes(tab, 1_000)  # each shows its dashboard
                most = max(most, len(sshd.children()))
            assert len(served.dashboards()) == TABS
            for _ in range(20):  # two seconds of steps with every tab open
                most = max(most, len(sshd.children()))
                await asyncio.sleep(0.1)  # the poll interval of this bounded watch
            command = _tab_host_command(served)
            assert command[:2] == ["replay", command[1]]
            assert "--follow" in command
            stream = Path(command[1])
            (host,) = tab_hosts(served.process.pid)
            rss = host.memory_info().rss / 2**20
            print(f"{TABS} tabs: {rss:.0f} MB RSS in their tab host, {most} SSH connections")
        finally:
            for tab in tabs:
                await tab.close()
    return most, stream


def _app_servers(served: Served) -> list[psutil.Process]:
    below = psutil.Process(served.process.pid).children(recursive=True)
    return [p for p in below if "app-server" in " ".join(_cmdline(p))]


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


@needs_codex
async def test_every_tab_of_a_served_codex_shares_one_app_server(tmp_path: Path) -> None:
    assert CODEX is not None
    home = tmp_path / "codex-home"
    home.mkdir()
    port = free_port()
    arguments = ["--port", str(port), "--", "codex", "--codex", str(CODEX), "--cwd",
                 str(tmp_path), "--codex-home", str(home)]  # fmt: skip
    process, url, log = start_serve(arguments, tmp_path)
    served = Served(process, port, url, log)
    try:
        await wait_until(lambda: len(_app_servers(served)) == 1, what="the one app-server")
        headers = {"Origin": served.origin}
        async with browser_client() as client:
            await logged_in(client, served)
            ws = f"ws://127.0.0.1:{port}/ws?width=120&height=40"
            tabs = [await client.ws_connect(ws, headers=headers) for _ in range(TABS)]
            try:
                for tab in tabs:
                    await screen_bytes(tab, 1_000)
                assert len(served.dashboards()) == TABS
                assert "--answers" in _tab_host_command(served)  # the tabs answer too
                assert len(_app_servers(served)) == 1  # not one per tab
            finally:
                for tab in tabs:
                    await tab.close()
    finally:
        started = psutil.Process(process.pid).children(recursive=True)
        assert stop_serve(process) == 0, log.read_text(errors="replace")
    assert not any(alive(p.pid) for p in started)  # the app-server ended with the server
