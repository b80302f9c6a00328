"""``envtui serve``'s tab host, the one process with every tab's dashboard: started with the
server, ended when no tab has wanted it for a while (what the tabs held goes with it),
started again for the next tab, and replaced when it dies under its tabs."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.support.liveness import alive
from tests.support.real import serve_process as serving
from tests.support.real.serve_process import Served, tab_hosts
from tests.support.waiting import wait_until

from envtui.commands.serve.hosted_tabs import IDLE_LINGER

WAIT = 60.0 + IDLE_LINGER


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    port = serving.free_port()
    process, url, log = serving.start_serve(["--port", str(port), "--", "demo"], tmp_path)
    try:
        yield Served(process, port, url, log)
    finally:
        assert serving.stop_serve(process) == 0, log.read_text(errors="replace")


async def _open_tab(
    client: aiohttp.ClientSession, served: Served
) -> aiohttp.ClientWebSocketResponse:
    tab = await client.ws_connect(
        f"ws://127.0.0.1:{served.port}/ws?width=100&height=30",
        headers={"Origin": served.origin},
        protocols=served.protocols,
    )
    await serving.screen_bytes(tab, 1_000)  # its dashboard draws
    return tab


async def test_the_tab_host_ends_once_no_tab_wanted_it_and_the_next_tab_starts_another(
    served: Served,
) -> None:
    (first,) = tab_hosts(served.process.pid)  # ready before the first tab
    async with serving.browser_client() as client:
        await serving.logged_in(client, served)
        tabs = [await _open_tab(client, served) for _ in range(2)]
        assert len(served.dashboards()) == 2
        assert tab_hosts(served.process.pid) == [first]  # both in the one host
        for tab in tabs:
            await tab.close()
        await wait_until(lambda: not served.dashboards(), WAIT, "the tabs' dashboards to end")
        await wait_until(lambda: not alive(first.pid), WAIT, "the idle tab host to end")
        assert tab_hosts(served.process.pid) == []
        again = await _open_tab(client, served)  # a tab started anew, in a host started anew
        (second,) = tab_hosts(served.process.pid)
        assert second.pid != first.pid
        assert len(served.dashboards()) == 1
        await again.close()


async def test_tabs_whose_host_died_are_closed_and_the_next_tab_gets_a_new_host(
    served: Served,
) -> None:
    async with serving.browser_client() as client:
        await serving.logged_in(client, served)
        orphaned = await _open_tab(client, served)
        (host,) = tab_hosts(served.process.pid)
        os.kill(host.pid, signal.SIGKILL)
        with pytest.raises(AssertionError, match="websocket ended"):
            await serving.screen_bytes(orphaned, 10**9)  # closed, not left hanging
        await orphaned.close()
        replacement = await _open_tab(client, served)
        assert [h.pid for h in tab_hosts(served.process.pid)] != [host.pid]
        assert len(served.dashboards()) == 1
        await replacement.close()
