"""The JSON-RPC client: answers, errors, notifications, server requests, a closing channel."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.support.waiting import DEFAULT_TIMEOUT, wait_until

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
    assert await client.request("ping", {}, timeout=DEFAULT_TIMEOUT) == {"pong": True}
    assert seen == [{"method": "note", "params": {"n": 1}}]
    await wait_until(lambda: len(channel.sent) == 2, what="the answer to the server's request")
    assert channel.sent[-1] == {
        "id": 99,
        "error": {"code": -32601, "message": "envtui only observes"},
    }
    with pytest.raises(RpcError, match="nope"):
        await client.request("fail", {}, timeout=DEFAULT_TIMEOUT)
    channel.incoming.put_nowait(None)
    assert await asyncio.wait_for(client.closed, timeout=DEFAULT_TIMEOUT) == "peer went away"
    with pytest.raises(ChannelClosedError, match="peer went away"):
        await client.request("ping", {}, timeout=DEFAULT_TIMEOUT)
    await client.aclose()


async def test_malformed_json_closes_with_the_reason() -> None:
    channel = ScriptedChannel()
    client = JsonRpcClient(channel)
    client.start()
    pending = asyncio.ensure_future(client.request("wait", {}, timeout=DEFAULT_TIMEOUT))
    await wait_until(lambda: bool(channel.sent), what="the request to be sent")
    channel.incoming.put_nowait("{not json")
    with pytest.raises(ChannelClosedError, match="malformed JSON"):
        await pending
    await client.aclose()


class DeafPeer(ScriptedChannel):
    """A peer that floods requests and never reads what it is sent: writes block for ever."""

    async def send(self, text: str) -> None:
        await asyncio.Event().wait()


async def test_a_peer_that_asks_without_reading_the_answers_is_disconnected() -> None:
    from envtui.environments.jsonrpc import MAX_UNSENT_REPLIES

    channel = DeafPeer()
    client = JsonRpcClient(channel, peer="exec-server")
    client.start()
    for n in range(MAX_UNSENT_REPLIES * 4):
        channel.incoming.put_nowait(json.dumps({"id": n, "method": "server/ask", "params": {}}))
    reason = await asyncio.wait_for(client.closed, timeout=DEFAULT_TIMEOUT)
    assert reason == (
        f"exec-server sent requests without reading the answers ({MAX_UNSENT_REPLIES} unsent); "
        "disconnected"
    )
    assert client._replies.qsize() <= MAX_UNSENT_REPLIES  # bounded, whatever the peer sends
    await asyncio.wait_for(client.aclose(), timeout=DEFAULT_TIMEOUT)


async def test_a_request_is_bounded_also_while_the_peer_does_not_read() -> None:
    client = JsonRpcClient(DeafPeer())
    client.start()
    with pytest.raises(TimeoutError):
        await client.request("initialize", {}, timeout=0.2)
    await client.aclose()


async def test_with_a_problem_handler_bad_messages_are_reported_and_skipped() -> None:
    channel = ScriptedChannel()
    problems: list[str] = []

    def handler(message: dict[str, Any]) -> None:
        if message["method"] == "boom":
            raise ValueError("cannot take it")

    client = JsonRpcClient(channel, handler, peer="codex app-server", on_problem=problems.append)
    client.start()
    for text in ("{not json", "[1]", '{"method": "boom"}', "[" * 500 + "]" * 500):
        channel.incoming.put_nowait(text)
    assert await client.request("ping", {}, timeout=DEFAULT_TIMEOUT) == {"pong": True}
    assert problems == [
        "codex app-server sent malformed JSON: '{not json'",
        "codex app-server sent a non-object message: '[1]'",
        "codex app-server notification 'boom': cannot take it",
        "codex app-server sent unusable JSON (nested deeper than 100 levels): '" + "[" * 120 + "'",
    ]
    assert not client.closed.done()
    await client.aclose()


async def test_a_closed_channel_leaves_no_exception_unretrieved() -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))

    class ClosingPeer(ScriptedChannel):
        client_closed: asyncio.Future[str] | None = None  # not the client: del must free it

        async def send(self, text: str) -> None:
            self.incoming.put_nowait("{bad")  # the reader closes the client meanwhile
            closed = self.client_closed
            assert closed is not None
            await wait_until(closed.done, what="the reader to close the client")
            raise ChannelClosedError("gone")

    peer = ClosingPeer()
    client = JsonRpcClient(peer)
    peer.client_closed = client.closed
    client.start()
    for _ in range(5):
        with pytest.raises(ChannelClosedError):
            await client.request("initialize", {}, timeout=DEFAULT_TIMEOUT)
    await client.aclose()
    del client
    import gc

    gc.collect()
    await asyncio.sleep(0)
    assert reported == []


async def test_a_request_the_handler_takes_waits_for_its_answer_and_others_are_refused() -> None:
    channel = ScriptedChannel()
    taken: list[dict[str, Any]] = []

    def on_request(message: dict[str, Any]) -> bool:
        if message["method"] == "item/commandExecution/requestApproval":
            taken.append(message)
            return True
        return False

    client = JsonRpcClient(channel, lambda _note: None, on_request=on_request)
    client.start()
    ask = {"id": 1, "method": "item/commandExecution/requestApproval", "params": {}}
    channel.incoming.put_nowait(json.dumps(ask))
    channel.incoming.put_nowait(json.dumps({"id": 2, "method": "item/tool/call", "params": {}}))
    await wait_until(lambda: len(channel.sent) == 1, what="the refusal of the other")
    assert channel.sent == [{"id": 2, "error": {"code": -32601, "message": "envtui only observes"}}]
    assert [m["id"] for m in taken] == [1]  # its id may equal one of envtui's own: apart
    assert client.respond(1, {"decision": "accept"})
    await wait_until(lambda: len(channel.sent) == 2, what="the answer")
    assert channel.sent[-1] == {"id": 1, "result": {"decision": "accept"}}
    channel.incoming.put_nowait(None)
    await asyncio.wait_for(client.closed, timeout=DEFAULT_TIMEOUT)
    assert not client.respond(1, {"decision": "decline"})  # too late: nothing is sent


async def test_a_request_handler_that_fails_is_reported_and_the_request_refused() -> None:
    channel = ScriptedChannel()
    problems: list[str] = []

    def broken(message: dict[str, Any]) -> bool:
        raise ValueError("cannot take it")

    client = JsonRpcClient(
        channel, lambda _note: None, on_problem=problems.append, on_request=broken
    )
    client.start()
    channel.incoming.put_nowait(json.dumps({"id": 5, "method": "item/ask", "params": {}}))
    await wait_until(lambda: bool(channel.sent), what="the refusal")
    assert channel.sent[0]["error"]["code"] == -32601
    assert problems == ["exec-server request 'item/ask': cannot take it"]
    await client.aclose()
