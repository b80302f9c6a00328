"""Who ``envtui serve`` answers: its own names and origins, the token a websocket offers,
the size clamp; then the guard in front of the real app, in process, on a loopback port.

The in-process server's dashboard command would leave a file behind; no refused request
may start it. The served subprocess, a real browser and the session cap are in
``tests/integration/test_serve_access.py``.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from yarl import URL

from envtui.commands.serve.hosted_tabs import TabHosts
from envtui.commands.serve.web_access import (
    MAX_SIZE,
    MIN_SIZE,
    Access,
    TokenFileError,
    access_for,
    clamp_size,
    read_token_file,
    token_protocol,
    url_with_token,
)
from envtui.commands.serve.web_page import STORAGE_KEY, TOKEN_SCRIPT
from envtui.commands.serve.web_server import DashboardServer, relay

TOKEN = "s3cret-token"


def _loopback(port: int = 8000, token: str = TOKEN) -> Access:
    return access_for(
        host="127.0.0.1",
        port=port,
        public_url=f"http://127.0.0.1:{port}",
        token=token,
        loopback=True,
        chosen_url=True,
    )


def test_on_loopback_the_three_local_names_are_answered_and_nothing_else() -> None:
    access = _loopback()
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST:8000"):
        assert access.host_allowed(host), host
    for refused in ("evil.example:8000", "127.0.0.1:8001", "127.0.0.1", "", None):
        assert not access.host_allowed(refused), refused


def test_a_websocket_origin_must_be_the_servers_own_not_another_port_or_site() -> None:
    access = _loopback()
    for origin in ("http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"):
        assert access.origin_allowed(origin), origin
    for foreign in (
        "http://127.0.0.1:8001",  # another local service's page: same site, other origin
        "https://127.0.0.1:8000",
        "http://evil.example",
        "http://evil.example:8000",
        "null",  # a sandboxed frame or a file
        None,
    ):
        assert not access.origin_allowed(foreign), foreign


def test_behind_a_public_url_its_origin_and_host_are_answered() -> None:
    access = access_for(
        host="0.0.0.0",
        port=8000,
        public_url="https://dash.example",
        token=TOKEN,
        loopback=False,
        chosen_url=False,
    )
    assert access.origin_allowed("https://dash.example")
    assert not access.origin_allowed("http://dash.example")
    assert not access.origin_allowed("http://127.0.0.1:8000")  # not served on loopback
    assert access.host_allowed("dash.example")
    assert access.host_allowed("dash.example:443")
    assert not access.host_allowed("evil.example")
    assert access.secure
    assert access.canonical is None


def test_port_80_is_answered_with_and_without_the_port_as_browsers_send_it() -> None:
    access = _loopback(port=80)
    assert access.canonical == "127.0.0.1"  # as the browser sends it: no redirect loop
    assert access.host_allowed("127.0.0.1")
    assert access.host_allowed("127.0.0.1:80")
    assert access.origin_allowed("http://127.0.0.1")


def test_the_token_a_websocket_offers_is_checked_beside_the_pages_protocol() -> None:
    access = _loopback()
    good = f"envtui-serve, {token_protocol(TOKEN)}"
    assert access.offered_token(good) is True
    assert access.offered_token(f"envtui-serve, {token_protocol(TOKEN[:-1])}") is False
    assert access.offered_token(f"envtui-serve, {token_protocol('other')}") is False
    assert access.offered_token(token_protocol(TOKEN)) is False  # the page's protocol missing
    assert access.offered_token(f"{good}, {token_protocol('x')}") is False  # two tokens
    assert access.offered_token("envtui-serve") is None
    assert access.offered_token(None) is None
    assert token_protocol("a b&é") == "envtui-token.61206226c3a9"  # any character


def test_the_printed_url_carries_the_token_in_its_fragment_quoted() -> None:
    assert url_with_token("http://127.0.0.1:8000", "a b&c") == (
        "http://127.0.0.1:8000/#token=a%20b%26c"
    )


def test_the_pages_script_keeps_the_token_per_tab_and_offers_it_to_the_websocket() -> None:
    assert "sessionStorage.setItem" in TOKEN_SCRIPT
    assert STORAGE_KEY in TOKEN_SCRIPT
    assert "history.replaceState" in TOKEN_SCRIPT  # out of the address bar
    assert '["envtui-serve","envtui-token."+hex]' in TOKEN_SCRIPT
    assert "cookie" not in TOKEN_SCRIPT


@pytest.mark.parametrize(
    ("asked", "used"),
    [
        (("120", "40"), (120, 40)),
        (("2000", "2000"), MAX_SIZE),
        (("1", "1"), MIN_SIZE),
        (("-5", "0"), MIN_SIZE),
        (("wide", None), (80, 24)),
        ((10**30, 10**30), MAX_SIZE),
        (("9" * 5000, "3"), (80, 5)),  # a digit string too long to be a size
        ((True, 3.5), (80, 24)),
    ],
)
def test_the_size_a_client_asks_for_is_clamped(
    asked: tuple[object, object], used: tuple[int, int]
) -> None:
    assert clamp_size(*asked) == used


FIXED_TOKEN = "fixed-token-of-thirty-two-chars-"


def test_a_token_file_is_read_stripped_and_refused_when_empty_or_huge(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(f"  {FIXED_TOKEN}\n", encoding="utf-8")
    path.chmod(0o600)
    assert read_token_file(path) == FIXED_TOKEN
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(TokenFileError, match="empty"):
        read_token_file(path)
    path.write_text("x" * 5000, encoding="utf-8")
    with pytest.raises(TokenFileError, match="longer than"):
        read_token_file(path)
    with pytest.raises(TokenFileError, match="no such file"):
        read_token_file(tmp_path / "missing")


@pytest.mark.parametrize("mode", [0o640, 0o620, 0o604, 0o602, 0o666])
def test_a_token_file_others_may_read_or_change_is_refused(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "token"
    path.write_text(FIXED_TOKEN, encoding="utf-8")
    path.chmod(mode)
    with pytest.raises(TokenFileError, match=f"others may read or change it \\(mode {mode:o}\\)"):
        read_token_file(path)
    path.chmod(0o400)
    assert read_token_file(path) == FIXED_TOKEN


def test_a_token_under_32_characters_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("x" * 31 + "\n", encoding="utf-8")
    path.chmod(0o600)
    with pytest.raises(TokenFileError, match="the token has 31 characters; use at least 32"):
        read_token_file(path)
    path.write_text("x" * 32, encoding="utf-8")
    assert read_token_file(path) == "x" * 32


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def _served(folder: Path) -> AsyncIterator[tuple[aiohttp.ClientSession, int]]:
    """The guarded app on a loopback port; a tab that reached its dashboard would start the
    tab host, with its socket in ``folder``."""
    port = _free_port()
    server = DashboardServer(
        TabHosts(folder, ["demo"]),
        host="127.0.0.1",
        port=port,
        title="t",
        public_url=f"http://127.0.0.1:{port}",
        access=_loopback(port),
        max_sessions=2,
    )
    test_server = TestServer(server.make_app(), host="127.0.0.1", port=port)
    await test_server.start_server()
    try:
        async with aiohttp.ClientSession() as client:
            yield client, port
    finally:
        await test_server.close()


async def test_refused_requests_never_reach_the_dashboard(tmp_path: Path) -> None:
    async with _served(tmp_path) as (client, port):
        base = f"http://127.0.0.1:{port}"
        async with client.get(f"{base}/", headers={"Host": f"evil.example:{port}"}) as r:
            assert r.status == 403
            assert "evil.example" not in await r.text()  # nothing the request sent is echoed
        async with client.get(f"{base}/download/any-key") as r:
            assert r.status == 404  # a download's key is the random one a tab was told
        async with client.get(f"{base}/", headers={"Origin": "http://evil.example"}) as r:
            assert r.status == 403  # a script of another origin asking, even for the page
        for origin in ("http://evil.example", f"http://127.0.0.1:{port + 1}", None):
            headers = {"Origin": origin} if origin else {}
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(f"ws://127.0.0.1:{port}/ws", headers=headers)
            assert refused.value.status == 403, origin
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # own origin, no token
            await client.ws_connect(f"ws://127.0.0.1:{port}/ws", headers={"Origin": base})
        assert refused.value.status == 401
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # a cookie is nothing
            await client.ws_connect(
                f"ws://127.0.0.1:{port}/ws",
                headers={"Origin": base, "Cookie": f"envtui-serve-{port}=anything"},
            )
        assert refused.value.status == 401
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:  # another token
            await client.ws_connect(
                f"ws://127.0.0.1:{port}/ws",
                headers={"Origin": base},
                protocols=("envtui-serve", token_protocol("guess")),
            )
        assert refused.value.status == 403
        for disguised in ("/static/../ws", "/static/..%2Fws", "/static%2F..%2Fws"):
            url = URL(f"{base}{disguised}", encoded=True)
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(url, headers={"Origin": base})
            assert refused.value.status in (401, 403, 404), disguised
    assert list(tmp_path.iterdir()) == []  # no tab host was started


async def test_the_page_is_the_same_for_everyone_and_sets_no_cookie(tmp_path: Path) -> None:
    async with _served(tmp_path) as (client, port):
        base = f"http://127.0.0.1:{port}"
        async with client.get(f"{base}/?fontsize=20") as r:
            assert r.status == 200
            page = await r.text()
            assert "Set-Cookie" not in r.headers
            assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
            assert page.index(TOKEN_SCRIPT) < page.index("js/textual.js")  # before textual.js
            assert TOKEN not in page
            assert r.headers["X-Frame-Options"] == "DENY"  # no framing by another page
            assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        async with client.get(f"{base}/static/js/textual.js") as r:
            assert r.status == 200
        async with client.get(f"{base}/static/") as r:
            assert r.status in (403, 404)  # no directory listing


async def test_another_loopback_name_is_sent_to_the_address_the_token_is_kept_for(
    tmp_path: Path,
) -> None:
    async with _served(tmp_path) as (client, port):
        headers = {"Host": f"localhost:{port}"}
        async with client.get(
            f"http://127.0.0.1:{port}/?fontsize=9", headers=headers, allow_redirects=False
        ) as r:
            assert r.status == 307  # a browser keeps the fragment (the token) on a redirect
            assert r.headers["Location"] == f"http://127.0.0.1:{port}/?fontsize=9"


class Recorder:
    """Stands in for the tab's dashboard behind the relay: what reached it, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    async def send_bytes(self, data: bytes) -> bool:
        self.calls.append(("stdin", data))
        return True

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.calls.append(("resize", width, height))

    async def blur(self) -> None:
        self.calls.append(("blur",))

    async def focus(self) -> None:
        self.calls.append(("focus",))


async def test_a_resize_message_is_clamped_and_junk_is_ignored_not_fatal() -> None:
    recorder = Recorder()

    async def handler(request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse()
        await websocket.prepare(request)
        await relay(websocket, recorder)
        return websocket

    app = web.Application()
    app.router.add_get("/ws", handler)
    test_server = TestServer(app, host="127.0.0.1")
    await test_server.start_server()
    try:
        async with aiohttp.ClientSession() as client:
            websocket = await client.ws_connect(test_server.make_url("/ws"))
            for text in (
                '["resize", {"width": 100000, "height": 100000}]',
                "not json",
                '{"not": "a list"}',
                "[]",
                '["stdin", 5]',
                '["resize", "big"]',
                '["stdin", "?"]',
                '["ping", "7"]',
            ):
                await websocket.send_str(text)
            pong = await websocket.receive_json(timeout=10)
            await websocket.send_str('["focus"]')
            await websocket.close()
    finally:
        await test_server.close()
    assert pong == ["pong", "7"]
    assert recorder.calls == [("resize", *MAX_SIZE), ("stdin", b"?"), ("focus",)]
