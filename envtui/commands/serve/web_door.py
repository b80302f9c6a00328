"""The door of ``envtui serve``'s listening socket: how many connections it holds, and what
it says when it turns some away, so a flood of connections from anyone on the machine (no
token needed to connect) neither starves the browser's requests nor floods the log.

- A connection that has not sent a whole request's headers within :data:`HEADER_TIMEOUT`
  seconds of connecting (or of its last answer) is closed: aiohttp's keep-alive timeout,
  which it also applies to a connection that never sends a whole request.
- At most :func:`connection_cap` connections are open. One more closes the oldest that is
  not inside a request (half-sent headers, or idle between requests), so a browser's new
  request always gets in, and a flood cannot take every descriptor; only when every open
  connection is inside a request (a tab's websocket, a download) is the new one closed.
- An accept that fails (no descriptor left, which the cap keeps from happening unless
  something else takes them) is said once, then counted, not written out each time:
  asyncio's own handler writes a traceback for each, many per second.

Each of those is one line in the log, the first time, then a count at most once a
:data:`SUMMARY_INTERVAL` (:class:`Tally`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

HEADER_TIMEOUT = 15.0
"""Seconds a connection has to send a whole request's headers (browsers send them at once;
a slow SSH tunnel still takes well under a second)."""
MAX_CONNECTIONS = 512
"""Open connections at most: a browser opens about six per page, and each tab one more."""
MIN_CONNECTIONS = 16
SUMMARY_INTERVAL = 60.0
"""Seconds between two lines that count the same trouble."""
ACCEPT_FAILED = "socket.accept() out of system resource"
"""How asyncio's event loop names a failed accept to its exception handler."""


def connection_cap(descriptors: int) -> int:
    """The connections held open with ``descriptors`` descriptors: half of them (the
    rest for the tabs' sockets, the shared source and the logs), within
    :data:`MIN_CONNECTIONS` and :data:`MAX_CONNECTIONS`."""
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, descriptors // 2))


class Tally:
    """A trouble said once, then counted: a line with the count at most once a
    :data:`SUMMARY_INTERVAL`, and one more at :meth:`flush` for what was left unsaid."""

    def __init__(self, say: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.say = say
        self.clock = clock
        self.total = 0
        self._unsaid = 0
        self._repeated = ""
        self._said_at: float | None = None

    def add(self, first: str, repeated: str) -> None:
        """One more: ``first`` is said the first time; ``repeated`` (with ``{count}``)
        says how many more came since the last line."""
        self.total += 1
        now = self.clock()
        if self._said_at is None:
            self._said_at = now
            self.say(first)
            return
        self._unsaid += 1
        self._repeated = repeated
        if now - self._said_at >= SUMMARY_INTERVAL:
            self.flush()

    def flush(self) -> None:
        if self._unsaid:
            self.say(self._repeated.format(count=self._unsaid))
            self._unsaid = 0
            self._said_at = self.clock()


class Door:
    """The connections of one server (see the module's doc)."""

    def __init__(self, cap: int, say: Callable[[str], None]) -> None:
        self.cap = cap
        self.open: dict[asyncio.Transport, int] = {}
        """Open connections, oldest first, each with the requests inside a handler now."""
        self.closed = Tally(say)
        self.accept_failures = Tally(say)

    def protocol(self, inner: asyncio.Protocol) -> asyncio.Protocol:
        """A new connection's protocol: ``inner`` (aiohttp's request handler), behind the
        door."""
        return Doorway(self, inner)

    def middleware(self) -> Middleware:
        """The aiohttp middleware that tells the door a request is being answered."""

        @web.middleware
        async def inside(request: web.Request, handler: Handler) -> web.StreamResponse:
            with self.inside(request.transport):
                return await handler(request)

        return inside

    def admit(self, transport: asyncio.Transport) -> bool:
        """Whether a new connection is let in; room is made by closing the oldest idle."""
        if len(self.open) >= self.cap:
            idle = next((t for t, inside in self.open.items() if not inside), None)
            if idle is None:
                self._closed("a new one")
                return False
            del self.open[idle]
            idle.abort()
            self._closed("the oldest idle one")
        self.open[transport] = 0
        return True

    def _closed(self, which: str) -> None:
        self.closed.add(
            f"{self.cap} connections are open (the cap): {which} is closed, and so on "
            "for each one more (counted here, not said each time)",
            f"{{count}} more connections were closed at the cap of {self.cap}",
        )

    def left(self, transport: asyncio.Transport) -> None:
        self.open.pop(transport, None)

    @contextlib.contextmanager
    def inside(self, transport: asyncio.Transport | None) -> Iterator[None]:
        """A request is being answered on ``transport``: it is not idle meanwhile."""
        if transport in self.open:
            self.open[transport] += 1
        try:
            yield
        finally:
            if transport in self.open:
                self.open[transport] -= 1

    def exception_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: a failed accept counted, the rest as asyncio
        says them."""
        if context.get("message") != ACCEPT_FAILED:
            loop.default_exception_handler(context)
            return
        exc = context.get("exception")
        code = exc.errno if isinstance(exc, OSError) and exc.errno else errno.EMFILE
        reason = os.strerror(code)
        self.accept_failures.add(
            f"cannot accept connections: {reason}; asyncio retries each second "
            "(counted here, not said each time)",
            f"{{count}} more accepts failed: {reason}",
        )


class Doorway(asyncio.Protocol):
    """One connection: counted by the :class:`Door`, the rest left to aiohttp's protocol."""

    def __init__(self, door: Door, inner: asyncio.Protocol) -> None:
        self.door = door
        self.inner: asyncio.Protocol | None = inner

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # a TCP connection's
        if not self.door.admit(transport):
            self.inner = None
            transport.abort()
            return
        self.transport = transport
        assert self.inner is not None
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.inner is not None:
            self.door.left(self.transport)
            self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()
