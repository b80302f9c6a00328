"""A real ``envtui serve`` with 1,024 descriptors, flooded with 1,100 half-sent requests
(anyone on the machine can connect; no token is needed for that): the browser's requests
are still answered, the server holds no more connections than its cap, the half-sent ones
are closed once their headers are late, and the log says so in a line, not a line (or a
traceback) per connection.

Everything here waits on conditions, with generous bounds; nothing is timed.
"""

from __future__ import annotations

import asyncio
import select
import shutil
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.support.real.serve_process import (
    Served,
    browser_client,
    open_tabs,
    screen_bytes,
    start_served,
    stop_serve,
)
from tests.support.waiting import poll_until

from envtui.commands.serve.web_door import connection_cap

pytestmark = pytest.mark.skipif(
    shutil.which("prlimit") is None, reason="needs prlimit (util-linux) to give serve 1,024 fds"
)
DESCRIPTORS = 1024
FLOOD = 1100
HALF_SENT = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: "
"""A request whose headers never end, as a slow (or hostile) client sends it."""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    served = start_served(["--", "demo"], tmp_path, descriptors=DESCRIPTORS)
    try:
        yield served
    finally:
        stop_serve(served.process)


def _flood(port: int) -> list[socket.socket]:
    sockets = []
    for _ in range(FLOOD):
        connection = socket.create_connection(("127.0.0.1", port), timeout=60)
        connection.sendall(HALF_SENT)
        connection.setblocking(False)
        sockets.append(connection)
    return sockets


def _closed_by_server(sockets: list[socket.socket], closed: set[socket.socket]) -> int:
    """How many of ``sockets`` the server has closed (read as end of file or a reset)."""
    waiting = {s.fileno(): s for s in sockets if s not in closed}
    poller = select.poll()  # select() cannot take descriptors past 1,023
    for descriptor in waiting:
        poller.register(descriptor, select.POLLIN)
    for descriptor, _event in poller.poll(0):
        connection = waiting[descriptor]
        try:
            if connection.recv(4096) == b"":
                closed.add(connection)
        except BlockingIOError:
            pass
        except OSError:
            closed.add(connection)
    return len(closed)


def _page_status(served: Served) -> int:
    with urllib.request.urlopen(f"{served.origin}/", timeout=60) as page:
        return int(page.status)


async def _a_tab_draws(served: Served) -> int:
    async with browser_client() as client, open_tabs(client, served, 1) as (tab,):
        return await screen_bytes(tab, 1_000)


def _open_connections(served: Served) -> int:
    return sum(
        1
        for c in psutil.Process(served.process.pid).net_connections(kind="tcp")
        if c.status == psutil.CONN_ESTABLISHED and c.laddr and c.laddr.port == served.port
    )  # its own connections (the demo's SSH servers) apart


def test_1100_half_sent_requests_neither_starve_the_browser_nor_flood_the_log(
    served: Served,
) -> None:
    cap = connection_cap(DESCRIPTORS)
    sockets = _flood(served.port)
    closed: set[socket.socket] = set()
    try:
        poll_until(
            lambda: _closed_by_server(sockets, closed) >= FLOOD - cap,
            timeout=120,
            what=lambda: f"the server to close the flood past its cap of {cap}: {len(closed)}",
        )
        assert _open_connections(served) <= cap  # what it holds stays within its cap
        assert [_page_status(served) for _ in range(4)] == [200] * 4  # the browser is answered
        assert asyncio.run(_a_tab_draws(served)) >= 1_000  # and a tab gets its dashboard
        poll_until(  # the rest: their headers never came, so the timeout closes them
            lambda: _closed_by_server(sockets, closed) == FLOOD,
            timeout=180,
            what=lambda: f"the half-sent requests to be closed: {len(closed)} of {FLOOD}",
        )
    finally:
        for connection in sockets:
            connection.close()
    log = served.log.read_text(errors="replace")
    print(f"serve's log after {FLOOD} half-sent requests: {len(log)} bytes")
    assert log.count("connections are open (the cap)") == 1, log
    assert "Traceback" not in log
    assert "out of system resource" not in log
    assert len(log.encode()) < 2_000, log  # a few lines, not one per connection
