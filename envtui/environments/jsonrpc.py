"""A small JSON-RPC client over a message channel: what the exec-server handshake needs.

Messages are JSON objects, one per line on stdio (or one per frame on a websocket).
Requests may carry ``"jsonrpc": "2.0"``; Codex's responses omit it. When the channel
closes, or the peer sends something that is not JSON, the client closes: every pending
request fails and :attr:`JsonRpcClient.closed` completes with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from envtui.debug_log import excerpt

log = logging.getLogger(__name__)


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
METHOD_NOT_FOUND = -32601


class JsonRpcClient:
    """Requests with ids, notifications to ``on_notification`` (or kept, bounded).

    A request *from* the server gets a JSON-RPC error -32601: envtui only observes.
    """

    def __init__(
        self,
        channel: MessageChannel,
        on_notification: NotificationHandler | None = None,
        *,
        peer: str = "exec-server",
    ) -> None:
        """``peer`` names the other side in reasons and in the debug log."""
        self._channel = channel
        self.peer = peer
        self._on_notification = on_notification
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next_id = 1
        self._reader: asyncio.Task[None] | None = None
        self.closed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.notifications: list[dict[str, Any]] = []  # kept for callers that want them (bounded)

    def start(self) -> None:
        if self._reader is None:
            self._reader = asyncio.get_running_loop().create_task(self._read_loop(), name="jsonrpc")

    async def request(self, method: str, params: dict[str, Any], *, timeout: float) -> Any:
        if self.closed.done():
            raise ChannelClosedError(self.closed.result())
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        try:
            await self._send(message)
            return await asyncio.wait_for(future, timeout=timeout)
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)

    async def _send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message, separators=(",", ":"))
        if log.isEnabledFor(logging.DEBUG):
            log.debug("to %s: %s", self.peer, excerpt(text))
        await self._channel.send(text)

    async def _read_loop(self) -> None:
        try:
            while True:
                text = await self._channel.receive()
                if text is None:
                    self._close(await self._channel.close_reason())
                    return
                if not text.strip():
                    continue
                if log.isEnabledFor(logging.DEBUG):
                    log.debug("from %s: %s", self.peer, excerpt(text))
                try:
                    message = json.loads(text)
                except (json.JSONDecodeError, RecursionError):
                    self._close(f"{self.peer} sent malformed JSON: {text[:120]!r}")
                    return
                if not isinstance(message, dict):
                    self._close(f"{self.peer} sent a non-object message: {text[:120]!r}")
                    return
                self._dispatch(message)
        except asyncio.CancelledError:
            self._close("closed by envtui")
            raise
        except Exception as exc:  # a broken channel: the reason is all we can give
            self._close(f"{self.peer} channel failed: {exc}")

    def _dispatch(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        if request_id is not None and "method" in message:
            answer = {
                "id": request_id,
                "error": {"code": METHOD_NOT_FOUND, "message": "envtui only observes"},
            }
            asyncio.get_running_loop().create_task(self._channel.send(json.dumps(answer)))
            return
        if isinstance(request_id, int) and ("result" in message or "error" in message):
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
        elif "method" in message:
            if self._on_notification is not None:
                self._on_notification(message)
            elif len(self.notifications) < 1000:
                self.notifications.append(message)

    def _close(self, reason: str) -> None:
        if not self.closed.done():
            self.closed.set_result(reason)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ChannelClosedError(reason))

    async def aclose(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        self._close("closed by envtui")
        await self._channel.close()
