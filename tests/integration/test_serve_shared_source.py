"""``envtui serve`` of a live command: one source for every tab, at a real sshd and Codex.

Three tabs (aiohttp websockets, as a browser opens them) on a config of two SSH hosts: the
sshd sees two connections (it forks one child per connection), not six, and each tab's
dashboard (in the tab host) is a replay following the server's stream. Ctrl+C ends the
tabs, the source and its connections, and removes the stream. ``serve -- codex`` with three tabs runs one real
``codex app-server``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import psutil
import pytest

from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.real.serve_process import (
    Served,
    browser_client,
    logged_in,
    open_tabs,
    screen_bytes,
    serving,
    tab_hosts,
)
from tests.support.real.ssh_servers import (
    SSHD,
    OpenSshServer,
    environments_toml,
    open_ssh_server,
)
from tests.support.waiting import wait_until

needs_sshd = pytest.mark.skipif(
    SSHD is None,
    reason="needs OpenSSH's sshd (Debian package openssh-server, which .ci/run installs)",
)
TABS = 3
HOSTS = ("alpha", "beta")


def _config(tmp_path: Path, server: OpenSshServer) -> Path:
    config = tmp_path / "envtui.toml"
    entries = [server.environment(name, "/") for name in HOSTS]
    config.write_text("step_interval = 1\n" + environments_toml(entries))
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
    async with open_ssh_server(sshd_dir) as sshd:
        config = _config(tmp_path, sshd)
        with serving(["--", "watch", "--config", str(config)], tmp_path) as served:
            assert "a dashboard per tab, at most 8 on one shared source" in served.log.read_text()
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
        assert not stream.parent.exists()  # the stream and its folder are removed
        await wait_until(lambda: not sshd.children(), what="the source's connections to close")


async def _three_tabs(served: Served, sshd: OpenSshServer) -> tuple[int, Path]:
    """Open three tabs; the most connections the sshd held meanwhile, and the stream the
    tabs' dashboards follow."""
    most = 0
    async with browser_client() as client:
        await logged_in(client, served)
        async with open_tabs(client, served, TABS) as tabs:
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
    arguments = ["--", "codex", "--codex", str(CODEX), "--cwd", str(tmp_path),
                 "--codex-home", str(home)]  # fmt: skip
    with serving(arguments, tmp_path) as served:  # the app-server ends with the server
        await wait_until(lambda: len(_app_servers(served)) == 1, what="the one app-server")
        async with browser_client() as client:
            await logged_in(client, served)
            async with open_tabs(client, served, TABS) as tabs:
                for tab in tabs:
                    await screen_bytes(tab, 1_000)
                assert len(served.dashboards()) == TABS
                assert "--answers" in _tab_host_command(served)  # the tabs answer too
                assert len(_app_servers(served)) == 1  # not one per tab
