"""The daemon client against a scripted peer (fault injection: shapes the real daemon does not
send on demand); what the real one does is tests/integration/test_codex_daemon.py."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, unix_serve

from tests.support.waiting import wait_until

from envtui.environments.daemon import client as client_module
from envtui.environments.daemon.address import DaemonAddress, parse_remote, read_token
from envtui.environments.daemon.client import OPTED_OUT, DaemonClient
from envtui.environments.daemon.threads import DaemonThread
from envtui.environments.daemon_socket import DaemonSocketChannel, daemon_socket
from envtui.vocabulary.events import Event, WarningMessage
from envtui.vocabulary.thread_messages import RequestResolved, ThreadStatusChanged

WORK = {"id": "t-work", "path": "/r/rollout-t-work.jsonl", "cwd": "/w", "source": "vscode",
        "name": "fix it", "status": {"type": "idle"}}  # fmt: skip
TITLE = {"id": "t-title", "path": None, "cwd": "/w", "source": "vscode", "status": {"type": "idle"}}


@pytest.fixture
def home() -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="cx"))
    daemon_socket(made).parent.mkdir()
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


class Peer:
    """A daemon that answers the reads from a script and sends what a test tells it to."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.connection: ServerConnection | None = None

    async def serve(self, connection: ServerConnection) -> None:
        self.connection = connection
        async for text in connection:
            message = json.loads(text)
            self.received.append(message)
            if "id" in message and "method" in message:
                await connection.send(
                    json.dumps({"id": message["id"], "result": self.result(message)})
                )

    @staticmethod
    def result(message: dict[str, Any]) -> object:
        method = message["method"]
        if method == "thread/loaded/list":
            return {"data": ["t-work", "t-title"], "nextCursor": None}
        if method == "thread/list":
            return {"data": [WORK], "nextCursor": None}
        if method == "thread/read":
            return {"thread": TITLE}
        return {}

    async def say(self, method: str, params: dict[str, Any]) -> None:
        assert self.connection is not None
        await self.connection.send(json.dumps({"method": method, "params": params}))


async def _attached(home: Path, peer: Peer, events: list[Event]) -> DaemonClient:
    path = daemon_socket(home)
    client = DaemonClient(lambda: DaemonSocketChannel.connect(path), events.append)
    await client.connect()
    await client.list_threads()
    return client


def _run(home: Path, scenario: Any) -> None:
    async def served() -> None:
        peer = Peer()
        async with unix_serve(peer.serve, str(daemon_socket(home))):
            await scenario(peer)

    asyncio.run(served())


def test_the_title_thread_is_not_a_thread_of_work(home: Path) -> None:
    async def scenario(peer: Peer) -> None:
        client = await _attached(home, peer, [])
        assert [t.id for t in client.work_threads()] == ["t-work"]
        assert client.threads["t-title"].loaded
        assert (client.threads["t-work"].name, client.threads["t-work"].source) == (
            "fix it",
            "vscode",
        )
        await client.aclose()

    _run(home, scenario)


def test_initialize_names_envtui_and_opts_out_of_the_delta_streams(home: Path) -> None:
    async def scenario(peer: Peer) -> None:
        client = await _attached(home, peer, [])
        (initialize,) = [m for m in peer.received if m.get("method") == "initialize"]
        assert initialize["params"]["clientInfo"]["name"] == "envtui"
        opted = initialize["params"]["capabilities"]["optOutNotificationMethods"]
        assert opted == list(OPTED_OUT)
        assert "item/agentMessage/delta" in opted
        await client.aclose()

    _run(home, scenario)


def test_unknown_methods_are_counted_and_goal_cleared_is_no_news(home: Path) -> None:
    events: list[Event] = []

    async def scenario(peer: Peer) -> None:
        client = await _attached(home, peer, events)
        before = len(events)
        await peer.say("thread/goal/cleared", {"threadId": "t-work"})
        await peer.say("thread/somethingNew", {"threadId": "t-work"})
        await peer.say("thread/somethingNew", {})
        await peer.say(
            "thread/status/changed",
            {"threadId": "t-work", "status": {"type": "active", "activeFlags": []}},
        )
        await wait_until(lambda: client.threads["t-work"].status == "active")
        assert client.unknown == {"thread/somethingNew": 2}
        news = events[before:]
        assert [type(e.msg) for e in news] == [ThreadStatusChanged]
        await client.aclose()

    _run(home, scenario)


def test_a_flood_of_new_threads_keeps_a_bounded_number_and_the_loaded_ones(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_module, "MAX_THREADS", 50)

    async def scenario(peer: Peer) -> None:
        client = await _attached(home, peer, [])
        for n in range(400):
            await peer.say(
                "thread/status/changed",
                {"threadId": f"flood-{n}", "status": {"type": "notLoaded"}},
            )
        await wait_until(lambda: "flood-399" in client.threads)
        assert len(client.threads) == 50
        assert {"t-work", "t-title"} <= set(client.threads)  # loaded: kept
        assert "flood-0" not in client.threads  # the oldest not loaded went first
        await client.aclose()

    _run(home, scenario)


def test_a_waiting_thread_is_marked_at_once_and_subscribed_without_its_turns(home: Path) -> None:
    events: list[Event] = []

    async def scenario(peer: Peer) -> None:
        client = await _attached(home, peer, events)
        waiting = {"type": "active", "activeFlags": ["waitingOnApproval"]}
        await peer.say("thread/status/changed", {"threadId": "t-work", "status": waiting})
        await wait_until(lambda: any(m.get("method") == "thread/resume" for m in peer.received))
        statuses = [e.msg.status for e in events if isinstance(e.msg, ThreadStatusChanged)]
        assert statuses[-1] == "waiting_on_approval"
        (resume,) = [m["params"] for m in peer.received if m.get("method") == "thread/resume"]
        assert resume == {"threadId": "t-work", "excludeTurns": True}
        await client.aclose()

    _run(home, scenario)


def test_a_request_resolved_while_its_thread_stopped_was_withdrawn(home: Path) -> None:
    events: list[Event] = []
    request = {"id": 0, "method": "item/commandExecution/requestApproval",
               "params": {"threadId": "t-work", "turnId": "u", "itemId": "i", "command": "ls"}}  # fmt: skip

    async def scenario(peer: Peer) -> None:
        client = await _attached(home, peer, events)
        assert peer.connection is not None
        await peer.connection.send(json.dumps(request))
        await wait_until(lambda: bool(client.requests.pending))
        await peer.say("thread/status/changed", {"threadId": "t-work", "status": {"type": "idle"}})
        await peer.say("serverRequest/resolved", {"threadId": "t-work", "requestId": 0})
        await wait_until(lambda: not client.requests.pending)
        (resolved,) = [e.msg for e in events if isinstance(e.msg, RequestResolved)]
        assert resolved.how == "withdrawn"
        assert not [m for m in peer.received if "result" in m or "error" in m]  # never refused
        await client.aclose()

    _run(home, scenario)


def test_a_malformed_notification_is_said_and_skipped(home: Path) -> None:
    events: list[Event] = []

    async def scenario(peer: Peer) -> None:
        client = await _attached(home, peer, events)
        assert peer.connection is not None
        await peer.connection.send("not json")
        await peer.say(
            "thread/status/changed", {"threadId": "t-work", "status": {"type": "systemError"}}
        )
        await wait_until(lambda: client.threads["t-work"].status == "system_error")
        assert any(
            isinstance(e.msg, WarningMessage) and "malformed" in e.msg.message for e in events
        )
        await client.aclose()

    _run(home, scenario)


def test_a_thread_object_of_another_source_shape_is_read() -> None:
    thread = DaemonThread("t")
    thread.take({"source": {"subAgent": {"thread_spawn": {}}}, "status": {"type": "notLoaded"}})
    assert (thread.source, thread.status, thread.loaded, thread.work) == (
        "subAgent",
        "not_loaded",
        False,
        False,
    )


def test_remote_addresses_in_codexs_forms(tmp_path: Path) -> None:
    assert parse_remote("unix://", tmp_path).path == daemon_socket(tmp_path)
    assert parse_remote("unix:///run/x.sock", tmp_path).path == Path("/run/x.sock")
    assert parse_remote("ws://127.0.0.1:4500", tmp_path).url == "ws://127.0.0.1:4500"
    assert parse_remote("wss://host", tmp_path).url == "wss://host"
    for bad in ("http://x", "ws://", "/path", ""):
        with pytest.raises(ValueError, match="not a server address"):
            parse_remote(bad, tmp_path)


def test_the_token_is_read_from_a_file_or_a_variable_and_never_shown(tmp_path: Path) -> None:
    file = tmp_path / "token"
    file.write_text("s3cret\n")
    assert read_token(str(file), None) == "s3cret"
    os.environ["ENVTUI_TEST_TOKEN"] = "v4riable"
    try:
        assert read_token(None, "ENVTUI_TEST_TOKEN") == "v4riable"
    finally:
        del os.environ["ENVTUI_TEST_TOKEN"]
    with pytest.raises(ValueError, match="not set") as missing:
        read_token(None, "ENVTUI_TEST_TOKEN")
    assert "v4riable" not in str(missing.value)
    address = DaemonAddress(url="ws://h:1", token="s3cret")
    assert "s3cret" not in repr(address)
    assert "s3cret" not in address.label


def test_a_subscribed_threads_environments_are_handed_on_with_its_id(home: Path) -> None:
    heard: list[tuple[str, Event]] = []

    async def scenario(peer: Peer) -> None:
        path = daemon_socket(home)
        client = DaemonClient(
            lambda: DaemonSocketChannel.connect(path),
            lambda event: None,
            on_environment=lambda thread, event: heard.append((thread, event)),
        )
        await client.connect()
        await client.list_threads()
        params = {"threadId": "t-work", "environmentId": "devbox"}
        await peer.say("thread/environment/disconnected", params)
        await peer.say("thread/environment/connected", params)
        await peer.say("thread/environment/connected", {"threadId": "t-work"})  # no id
        await wait_until(lambda: len(heard) == 2 and bool(client.unknown))
        assert [(t, e.msg.type, getattr(e.msg, "environment_id", None)) for t, e in heard] == [
            ("t-work", "environment_disconnected", "devbox"),
            ("t-work", "environment_connected", "devbox"),
        ]
        assert client.unknown == {"thread/environment/connected": 1}
        await client.aclose()

    _run(home, scenario)


Said = tuple[str, dict[str, Any]]
"""A notification: its method and its params but the thread id."""


class LateReadPeer(Peer):
    """Answers ``thread/read`` with what the thread was when asked, after notifications the
    daemon sent meanwhile: the order the real daemon gave once under load (its answers are
    made apart from its notifications)."""

    def __init__(self, said_meanwhile: list[Said]) -> None:
        super().__init__()
        self.said_meanwhile = said_meanwhile

    async def serve(self, connection: ServerConnection) -> None:
        self.connection = connection
        async for text in connection:
            message = json.loads(text)
            self.received.append(message)
            asked = message.get("params") or {}
            if message.get("method") == "thread/read" and asked.get("threadId") == "t-work":
                for method, params in self.said_meanwhile:
                    await self.say(method, {"threadId": "t-work", **params})
                entry = {**WORK, "preview": "fix the build", "status": {"type": "idle"}}
                await connection.send(
                    json.dumps({"id": message["id"], "result": {"thread": entry}})
                )
            elif "id" in message and "method" in message:
                await connection.send(
                    json.dumps({"id": message["id"], "result": self.result(message)})
                )


WORKS: Said = ("thread/status/changed", {"status": {"type": "active", "activeFlags": []}})
RENAMED: Said = ("thread/name/updated", {"threadName": "renamed"})
CLOSED: Said = ("thread/closed", {})


@pytest.mark.parametrize(
    ("heard_first", "meanwhile", "expected"),
    [
        ([WORKS], [], ("idle", True, "fix it")),  # asked after the news: the answer is newer
        ([], [WORKS], ("active", True, "fix it")),
        ([], [RENAMED], ("idle", True, "renamed")),
        ([], [CLOSED], ("not_loaded", False, "fix it")),
    ],
    ids=["asked-after", "works-meanwhile", "renamed-meanwhile", "closed-meanwhile"],
)
def test_a_read_answered_after_newer_news_keeps_the_newer_news(
    home: Path,
    heard_first: list[Said],
    meanwhile: list[Said],
    expected: tuple[str, bool, str],
) -> None:
    """A read asked before a notification does not roll back what it said (status, loaded,
    name); one asked after it is news of its own and is taken."""
    peer = LateReadPeer(meanwhile)

    async def scenario(_: Peer) -> None:
        client = await _attached(home, peer, [])
        for method, params in heard_first:
            await peer.say(method, {"threadId": "t-work", **params})
        await wait_until(lambda: client.news_heard == len(heard_first))
        thread = await client.read("t-work")
        assert thread is not None
        assert thread.preview == "fix the build"  # the rest of the answer is taken
        assert (thread.status, thread.loaded, thread.name) == expected
        await client.aclose()

    async def served() -> None:
        async with unix_serve(peer.serve, str(daemon_socket(home))):
            await scenario(peer)

    asyncio.run(served())
