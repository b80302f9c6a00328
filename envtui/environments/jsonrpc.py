"""A small JSON-RPC client over a message channel: what the exec-server handshake needs.

Messages are JSON objects, one per line on stdio (or one per frame on a websocket).
Requests may carry ``"jsonrpc": "2.0"``; Codex's responses omit it. When the channel
closes, or the peer sends something that is not JSON, the client closes: every pending
request fails and :attr:`JsonRpcClient.closed` completes with the reason. Every request and
notification is bounded in time, and what the peer can make envtui hold is bounded in
size: messages (by the channel), nesting (:mod:`envtui.vocabulary.limits`) and unsent answers.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from envtui.vocabulary import debug_log
from envtui.vocabulary.debug_log import excerpt
from envtui.vocabulary.limits import JsonInputError, load_json
from envtui.vocabulary.stopping import cancel_and_wait

log = debug_log.logger(__name__)


class MessageChannel(Protocol):
    """A bidirectional stream of text messages (lines on stdio, frames on a websocket)."""

    async def send(self, text: str) -> None: ...

    async def receive(self) -> str | None:
        """The next message, or None once the channel is closed."""

    async def close_reason(self) -> str:
        """Why the channel closed, in words for a status line."""

    async def close(self) -> None: ...


class RpcError(Exception):
    """An error answer: ``{"error": {"code", "message"}}``."""

    def __init__(self, code: object, message: str) -> None:
        super().__init__(f"error {code}: {message}")
        self.code = code
        self.message = message


class ChannelClosedError(ConnectionError):
    """The channel closed while a request was waiting; the message is the reason."""


NotificationHandler = Callable[[dict[str, Any]], None]
RequestHandler = Callable[[dict[str, Any]], bool]
"""Takes a request from the peer; True when it will be answered later (with
:meth:`JsonRpcClient.respond`), False to have it refused with -32601 at once."""
ProblemHandler = Callable[[str], None]
METHOD_NOT_FOUND = -32601
MAX_UNSENT_REPLIES = 256
"""Answers to the peer's own requests that may wait to be written. A peer that keeps asking
without reading what it is told is disconnected there, rather than served until memory
runs out."""
NOTIFY_TIMEOUT = 10.0
_YIELD_EVERY = 64  # messages read in a row before the reader lets other tasks run


class JsonRpcClient:
    """Requests with ids, notifications to ``on_notification`` (or kept, bounded).

    A request *from* the server goes to ``on_request``; one it does not take (and every one,
    without it) gets a JSON-RPC error -32601 at once: envtui only observes. The answers go
    out one at a time through a bounded queue (see :data:`MAX_UNSENT_REPLIES`); request ids
    of the two directions are apart, so the peer's may equal envtui's own.

    ``peer`` names the other side in reasons (``exec-server``, ``codex app-server``). With
    ``on_problem``, a message that is not a JSON object, or one the notification handler
    cannot take, is reported there and skipped; without it, such a message closes the client.
    """

    def __init__(
        self,
        channel: MessageChannel,
        on_notification: NotificationHandler | None = None,
        *,
        peer: str = "exec-server",
        on_problem: ProblemHandler | None = None,
        on_request: RequestHandler | None = None,
    ) -> None:
        """``peer`` names the other side in reasons and in the debug log."""
        self._channel = channel
        self.peer = peer
        self._on_notification = on_notification
        self._on_request = on_request
        self._on_problem = on_problem
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 1
        self._tasks: list[asyncio.Task[None]] = []
        self._replies: asyncio.Queue[str] = asyncio.Queue()
        self.closed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.notifications: list[dict[str, Any]] = []  # kept for callers that want them (bounded)

    def start(self) -> None:
        if not self._tasks:
            loop = asyncio.get_running_loop()
            self._tasks = [
                loop.create_task(self._read_loop(), name="jsonrpc-reader"),
                loop.create_task(self._send_replies(), name="jsonrpc-replies"),
            ]

    async def request(self, method: str, params: dict[str, Any], *, timeout: float) -> Any:
        """The result of ``method``; ``timeout`` bounds sending and answering together."""
        if self.closed.done():
            raise ChannelClosedError(self.closed.result())
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        try:
            async with asyncio.timeout(timeout):
                await self._send(message)
                return await future
        finally:
            self._pending.pop(request_id, None)
            if future.done() and not future.cancelled():
                future.exception()  # seen here, so asyncio never calls it "never retrieved"
            else:
                future.cancel()

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        async with asyncio.timeout(NOTIFY_TIMEOUT):
            await self._send(message)

    async def _send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, separators=(",", ":"))
        if log.isEnabledFor(logging.DEBUG):
            log.debug("to %s: %s", self.peer, excerpt(text))
        await self._channel.send(text)

    async def _read_loop(self) -> None:
        try:
            count = 0
            while not self.closed.done():
                text = await self._channel.receive()
                if text is None:
                    self._close(await self._channel.close_reason())
                    return
                count += 1
                if count % _YIELD_EVERY == 0:
                    await asyncio.sleep(0)  # a peer that floods never starves the event loop
                if text.strip():
                    self._take(text)
        except asyncio.CancelledError:
            self._close("closed by envtui")
            raise
        except ChannelClosedError as exc:  # the channel said why (a line too long)
            self._close(str(exc))
        except Exception as exc:  # a broken channel: the reason is all we can give
            self._close(f"{self.peer} channel failed: {exc}")

    def _take(self, text: str) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("from %s: %s", self.peer, excerpt(text))
        try:
            message = load_json(text)
        except JsonInputError as exc:
            problem = "malformed JSON" if exc.line is not None else f"unusable JSON ({exc.reason})"
            self._bad(f"{self.peer} sent {problem}: {text[:120]!r}")
            return
        if not isinstance(message, dict):
            self._bad(f"{self.peer} sent a non-object message: {text[:120]!r}")
            return
        self._dispatch(message)

    def _bad(self, problem: str) -> None:
        """A message that cannot be used: reported and skipped, or the end of the channel."""
        if self._on_problem is not None:
            self._on_problem(problem)
        else:
            self._close(problem)

    def _dispatch(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        if request_id is not None and "method" in message:
            if not self._taken(message):
                self._answer(request_id)
        elif isinstance(request_id, int) and ("result" in message or "error" in message):
            self._resolve(request_id, message)
        elif "method" in message:
            self._notification(message)

    def _taken(self, message: dict[str, Any]) -> bool:
        """Whether ``on_request`` will answer the request later; a handler that fails on it
        is reported, and the request refused."""
        if self._on_request is None:
            return False
        try:
            return self._on_request(message)
        except Exception as exc:
            self._bad(f"{self.peer} request {str(message.get('method'))[:80]!r}: {exc}")
            return False

    def _answer(self, request_id: object) -> None:
        self._reply(
            {
                "id": request_id,
                "error": {"code": METHOD_NOT_FOUND, "message": "envtui only observes"},
            }
        )

    def respond(self, request_id: object, result: Any) -> bool:
        """Answer the peer's request ``request_id`` with ``result``; False when the channel is
        closed (the answer can no longer reach it)."""
        if self.closed.done():
            return False
        self._reply({"id": request_id, "result": result})
        return not self.closed.done()

    def _reply(self, answer: dict[str, Any]) -> None:
        if self._replies.qsize() >= MAX_UNSENT_REPLIES:
            self._close(
                f"{self.peer} sent requests without reading the answers "
                f"({MAX_UNSENT_REPLIES} unsent); disconnected"
            )
            return
        text = json.dumps(answer)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("to %s: %s", self.peer, excerpt(text))
        self._replies.put_nowait(text)

    def _resolve(self, request_id: int, message: dict[str, Any]) -> None:
        future = self._pending.get(request_id)
        if future is None or future.done():
            return
        error = message.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            text = error.get("message") if isinstance(error, dict) else str(error)
            future.set_exception(RpcError(code, str(text)))
        else:
            future.set_result(message.get("result"))

    def _notification(self, message: dict[str, Any]) -> None:
        if self._on_notification is None:
            if len(self.notifications) < 1000:
                self.notifications.append(message)
            return
        try:
            self._on_notification(message)
        except Exception as exc:  # one bad notification must not end the channel
            self._bad(f"{self.peer} notification {str(message.get('method'))[:80]!r}: {exc}")

    async def _send_replies(self) -> None:
        """Write the answers to the peer's requests, one after the other."""
        while True:
            text = await self._replies.get()
            try:
                await self._channel.send(text)
            except Exception:  # the channel is gone; the reader reports why
                return

    def _close(self, reason: str) -> None:
        if not self.closed.done():
            self.closed.set_result(reason)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ChannelClosedError(reason))

    async def aclose(self) -> None:
        tasks, self._tasks = self._tasks, []
        await cancel_and_wait(*tasks)
        self._close("closed by envtui")
        await self._channel.close()
