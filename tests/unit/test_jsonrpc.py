"""The JSON-RPC client: answers, errors, notifications, server requests, a closing channel."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.support.waiting import wait_until

from envtui.environments.jsonrpc import ChannelClosedError, JsonRpcClient, RpcError


class ScriptedChannel:
    """A channel whose peer answers from a script; ``sent`` keeps what the client wrote."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.incoming: asyncio.Queue[str | None] = asyncio.Queue()

    async def send(self, text: str) -> None:
        message = json.loads(text)
        self.sent.append(message)
        if message.get("method") == "ping":
            self.incoming.put_nowait(json.dumps({"method": "note", "params": {"n": 1}}))
            self.incoming.put_nowait(json.dumps({"id": 99, "method": "item/ask", "params": {}}))
            self.incoming.put_nowait(json.dumps({"id": message["id"], "result": {"pong": True}}))
        elif message.get("method") == "fail":
            self.incoming.put_nowait(
                json.dumps({"id": message["id"], "error": {"code": -32600, "message": "nope"}})
            )

    async def receive(self) -> str | None:
        return await self.incoming.get()

    async def close_reason(self) -> str:
        return "peer went away"

    async def close(self) -> None:
        pass


async def test_results_errors_notifications_and_server_requests() -> None:
    channel = ScriptedChannel()
    seen: list[dict[str, Any]] = []
    client = JsonRpcClient(channel, seen.append)
    client.start()
    assert await client.request("ping", {}, timeout=5) == {"pong": True}
    assert seen == [{"method": "note", "params": {"n": 1}}]
    await wait_until(lambda: len(channel.sent) == 2, what="the answer to the server's request")
    assert channel.sent[-1] == {
        "id": 99,
        "error": {"code": -32601, "message": "envtui only observes"},
    }
    with pytest.raises(RpcError, match="nope"):
        await client.request("fail", {}, timeout=5)
    channel.incoming.put_nowait(None)
    assert await asyncio.wait_for(client.closed, timeout=5) == "peer went away"
    with pytest.raises(ChannelClosedError, match="peer went away"):
        await client.request("ping", {}, timeout=5)
    await client.aclose()


async def test_malformed_json_closes_with_the_reason() -> None:
    channel = ScriptedChannel()
    client = JsonRpcClient(channel)
    client.start()
    pending = asyncio.ensure_future(client.request("wait", {}, timeout=5))
    await wait_until(lambda: bool(channel.sent), what="the request to be sent")
    channel.incoming.put_nowait("{not json")
    with pytest.raises(ChannelClosedError, match="malformed JSON"):
        await pending
    await client.aclose()
