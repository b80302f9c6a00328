"""A real ``envtui serve`` process on a loopback port, asked by aiohttp as a browser, an
attacker or a flood would ask it: what it refuses, what it answers, how many dashboards it
runs. Its dashboards are the demo's, counted as the tab host's connections to its tabs.

The browser's side of the same (a page on another port in a real Chromium) is in
``test_serve_browser.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import psutil
import pytest

from tests.support.liveness import alive
from tests.support.real.serve_process import (
    Served,
    browser_client,
    drawn_size,
    first_frame,
    logged_in,
    open_tabs,
    screen_bytes,
    start_served,
    stop_serve,
    tab_hosts,
)
from tests.support.waiting import poll_until

MAX_SESSIONS = 2


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("serve-home")
    served = start_served(["--max-sessions", str(MAX_SESSIONS), "--", "demo"], home)
    try:
        yield served
    finally:
        stop_serve(served.process)


def _no_dashboards_left(served: Served) -> None:
    poll_until(lambda: not served.dashboards(), timeout=30, what="the dashboards to end")


async def test_refused_requests_get_403_or_401_and_start_no_dashboard(served: Served) -> None:
    async with browser_client() as client:
        await logged_in(client, served)  # the token is offered: the Origin alone refuses
        for origin in ("http://evil.example", f"http://127.0.0.1:{served.port + 1}"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(f"ws://127.0.0.1:{served.port}/ws",
                                        headers={"Origin": origin},
                                        protocols=served.protocols)  # fmt: skip
            assert refused.value.status == 403, origin
        rebound = {"Host": f"evil.example:{served.port}"}  # a DNS-rebound name
        async with client.get(f"{served.origin}/", headers=rebound) as page:
            assert page.status == 403
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(f"ws://127.0.0.1:{served.port}/ws",
                                    headers={**rebound, "Origin": f"http://evil.example:{served.port}"})  # fmt: skip
        assert refused.value.status == 403
    async with browser_client() as stranger:  # another local user: no token
        async with stranger.get(f"{served.origin}/") as page:
            assert page.status == 200  # the page holds no data
            assert served.token not in await page.text()
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await stranger.ws_connect(f"ws://127.0.0.1:{served.port}/ws",
                                      headers={"Origin": served.origin})  # fmt: skip
        assert refused.value.status == 401
    assert served.dashboards() == []


async def test_the_token_offered_with_the_websocket_opens_the_dashboard(
    served: Served,
) -> None:
    assert "#token=" in served.url  # in the fragment: a browser never sends it to a server
    async with browser_client() as client:
        async with client.get(f"{served.origin}/") as page:
            assert page.status == 200
            assert "Set-Cookie" not in page.headers
            assert f"ws://127.0.0.1:{served.port}/ws" in await page.text()
        websocket = await client.ws_connect(
            f"ws://127.0.0.1:{served.port}/ws?width=100&height=30",
            headers={"Origin": served.origin},
            protocols=served.protocols,
        )
        try:
            assert await screen_bytes(websocket, 10_000) >= 10_000
            assert len(served.dashboards()) == 1
        finally:
            await websocket.close()
    _no_dashboards_left(served)


async def test_one_dashboard_more_than_max_sessions_is_refused_with_the_reason(
    served: Served,
) -> None:
    async with browser_client() as client:
        await logged_in(client, served)
        async with open_tabs(client, served, MAX_SESSIONS) as tabs:
            for websocket in tabs:
                await screen_bytes(websocket, 1_000)  # each has its dashboard
            extra = await client.ws_connect(
                served.tab_url, headers={"Origin": served.origin}, protocols=served.protocols
            )
            async with asyncio.timeout(30):  # closed at once, never left hanging
                refusal = await extra.receive()
            assert refusal.type == aiohttp.WSMsgType.CLOSE
            assert refusal.data == aiohttp.WSCloseCode.TRY_AGAIN_LATER
            assert refusal.extra == (
                f"envtui serve: all {MAX_SESSIONS} dashboards are taken (--max-sessions)"
            )
            async with client.get(f"{served.origin}/") as page:
                assert page.status == 503
                assert page.headers["Retry-After"] == "5"
            dashboards = served.dashboards()
            assert len(dashboards) == MAX_SESSIONS
            (host,) = tab_hosts(served.process.pid)
            rss = host.memory_info().rss / 2**20
            print(f"{MAX_SESSIONS} dashboards at the cap: {rss:.0f} MB RSS, their tab host")
    _no_dashboards_left(served)
    async with browser_client() as client:  # room again
        await logged_in(client, served)


async def test_a_huge_terminal_size_is_clamped_before_the_dashboard_starts(
    served: Served,
) -> None:
    async with browser_client() as client:
        await logged_in(client, served)
        websocket = await client.ws_connect(
            f"ws://127.0.0.1:{served.port}/ws?width=2000&height=2000",
            headers={"Origin": served.origin},
            protocols=served.protocols,
        )
        try:
            assert drawn_size(await first_frame(websocket)) == (500, 200)
            assert len(served.dashboards()) == 1
        finally:
            await websocket.close()
    _no_dashboards_left(served)


def test_nothing_is_left_when_the_server_stops(served: Served) -> None:
    """Last in the module: Ctrl+C, and the server exits 0 with no child left."""
    started = psutil.Process(served.process.pid).children(recursive=True)
    assert stop_serve(served.process) == 0
    assert not any(alive(p.pid) for p in started)  # whatever it started is gone with it
    output = served.log.read_text(errors="replace")
    assert output.count("token=") == 1  # printed once, logged nowhere else


FIXED_TOKEN = "my-fixed-token-of-32-characters-x"


async def _a_tab_opens(served: Served) -> None:
    async with browser_client() as client, open_tabs(client, served, 1) as (tab,):
        await screen_bytes(tab, 1_000)


def test_a_token_file_fixes_the_token(tmp_path: Path) -> None:
    """The printed address carries the file's token, and a tab's websocket that offers it
    is answered."""
    token_file = tmp_path / "token"
    token_file.write_text(f"{FIXED_TOKEN}\n", encoding="utf-8")
    token_file.chmod(0o600)
    served = start_served(["--token-file", str(token_file)], tmp_path)
    try:
        assert served.url == f"http://127.0.0.1:{served.port}/#token={FIXED_TOKEN}"
        asyncio.run(_a_tab_opens(served))  # the file's token is the one taken
    finally:
        assert stop_serve(served.process) == 0
