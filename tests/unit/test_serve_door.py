"""The door of ``envtui serve``'s listening socket, on real loopback connections: the cap
closes the oldest idle connection (never one inside a request), and a failed accept is
said once and counted. The whole server under a flood is in
``tests/integration/test_serve_flood.py``."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import textwrap

from tests.support.waiting import wait_until

from envtui.commands.serve.web_door import (
    MAX_CONNECTIONS,
    MIN_CONNECTIONS,
    SUMMARY_INTERVAL,
    Door,
    Tally,
    connection_cap,
)


def test_the_cap_is_half_the_descriptors_within_its_bounds() -> None:
    assert connection_cap(1024) == 512
    assert connection_cap(200) == 100
    assert connection_cap(10) == MIN_CONNECTIONS
    assert connection_cap(1 << 20) == MAX_CONNECTIONS


def test_a_trouble_is_said_once_then_counted_at_most_once_an_interval() -> None:
    said: list[str] = []
    now = [0.0]
    tally = Tally(said.append, clock=lambda: now[0])
    for _ in range(1000):
        tally.add("first", "{count} more")
    assert said == ["first"]
    now[0] += SUMMARY_INTERVAL
    tally.add("first", "{count} more")
    assert said == ["first", "1000 more"]
    tally.add("first", "{count} more")
    tally.flush()
    assert said == ["first", "1000 more", "1 more"]
    assert tally.total == 1002


class Held(asyncio.Protocol):
    """A connection's protocol that only holds it."""


async def test_at_the_cap_the_oldest_idle_connection_is_closed_never_one_inside_a_request() -> None:
    said: list[str] = []
    door = Door(2, said.append)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: door.protocol(Held()), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        first = await asyncio.open_connection("127.0.0.1", port)
        await wait_until(lambda: len(door.open) == 1, 30, "the first connection")
        busy = next(iter(door.open))
        second = await asyncio.open_connection("127.0.0.1", port)
        await wait_until(lambda: len(door.open) == 2, 30, "the second connection")
        with door.inside(busy):  # the first is answering a request: the second goes
            third = await asyncio.open_connection("127.0.0.1", port)
            async with asyncio.timeout(30):
                assert await second[0].read() == b""  # closed by the server
            assert busy in door.open
            fourth = await asyncio.open_connection("127.0.0.1", port)  # every one is busy?
            await wait_until(lambda: door.closed.total == 2, 30, "the next one turned away")
        assert said == [
            "2 connections are open (the cap): the oldest idle one is closed, and so on "
            "for each one more (counted here, not said each time)"
        ]
        for _reader, writer in (first, third, fourth):
            writer.close()
    finally:
        server.close()


ACCEPTS_WITH_FEW_DESCRIPTORS = textwrap.dedent(
    """
    import asyncio, resource, sys
    from envtui.commands.serve.web_door import Door

    async def main():
        door = Door(10_000, lambda line: print(line, file=sys.stderr, flush=True))
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(door.exception_handler)
        server = await loop.create_server(
            lambda: door.protocol(asyncio.Protocol()), "127.0.0.1", 0)
        resource.setrlimit(resource.RLIMIT_NOFILE, (40, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        print(server.sockets[0].getsockname()[1], flush=True)
        await loop.run_in_executor(None, sys.stdin.readline)
        print(door.accept_failures.total, flush=True)

    asyncio.run(main())
    """
)


def test_a_failed_accept_is_said_once_with_no_traceback_and_counted() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", ACCEPTS_WITH_FEW_DESCRIPTORS],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    assert child.stderr is not None
    connections = []
    try:
        port = int(child.stdout.readline())
        connections = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(80)]
        first = child.stderr.readline()  # past 40 descriptors, an accept failed
        child.stdin.write("done\n")
        child.stdin.flush()
        failures = int(child.stdout.readline())
        rest = child.communicate(timeout=60)[1]
    finally:
        for connection in connections:
            connection.close()
        if child.poll() is None:
            child.kill()
            child.wait()
    assert failures >= 1
    assert first == (
        "cannot accept connections: Too many open files; asyncio retries each second "
        "(counted here, not said each time)\n"
    )
    assert rest == ""  # the others counted, within a minute not said again; no traceback
