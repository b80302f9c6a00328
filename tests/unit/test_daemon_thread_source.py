"""A daemon thread opened on its own (what the thread list opens) against a scripted daemon:
fault injection and exact shapes; the real daemon is tests/integration/test_codex_daemon_threads.py."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, unix_serve

from tests.support.waiting import running, wait_until

from envtui.environments.backoff import Backoff
from envtui.environments.daemon.address import DaemonAddress
from envtui.environments.daemon_socket import daemon_socket
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.vocabulary.events import Event, SourceStatus
from envtui.vocabulary.thread_choices import thread_choices_of
from envtui.vocabulary.thread_messages import ThreadStatusChanged

IDLE = {"type": "idle"}
WAITING = {"type": "active", "activeFlags": ["waitingOnApproval"]}


ROLLOUTS = Path(tempfile.gettempdir())


def _thread(thread_id: str, status: dict[str, Any]) -> dict[str, Any]:
    return {"id": thread_id, "path": str(ROLLOUTS / f"rollout-{thread_id}.jsonl"), "cwd": "/w",
            "source": "cli", "name": f"name {thread_id}", "status": status}  # fmt: skip


class Peer:
    """Three threads of work: ``t-a`` idle, ``t-b`` waiting on an approval, ``t-c`` idle;
    their rollouts are in the test's folder (``t-a``'s written, the others not yet); and a
    past one, ``t-old``, that ``thread/list`` names but the daemon has not loaded."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.connection: ServerConnection | None = None

    async def serve(self, connection: ServerConnection) -> None:
        self.connection = connection
        async for text in connection:
            message = json.loads(text)
            self.received.append(message)
            if "id" in message and "method" in message:
                reply = {"id": message["id"], "result": self.result(message["method"])}
                await connection.send(json.dumps(reply))

    @staticmethod
    def result(method: str) -> object:
        if method == "thread/loaded/list":
            return {"data": ["t-a", "t-b", "t-c"], "nextCursor": None}
        if method == "thread/list":
            threads = [_thread("t-a", IDLE), _thread("t-b", WAITING), _thread("t-c", IDLE),
                       _thread("t-old", {"type": "notLoaded"})]  # fmt: skip
            return {"data": threads, "nextCursor": None}
        return {}

    async def say(self, method: str, params: dict[str, Any]) -> None:
        assert self.connection is not None
        await self.connection.send(json.dumps({"method": method, "params": params}))

    def resumed(self) -> list[str]:
        return [
            m["params"]["threadId"] for m in self.received if m.get("method") == "thread/resume"
        ]


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="cx"))
    daemon_socket(made).parent.mkdir()
    monkeypatch.setattr(sys.modules[__name__], "ROLLOUTS", made)
    (made / "rollout-t-a.jsonl").write_text('{"type":"session_meta","payload":{}}\n')
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def _run(home: Path, scenario: Any) -> None:
    async def served() -> None:
        peer = Peer()
        async with unix_serve(peer.serve, str(daemon_socket(home))):
            source = DaemonSource(
                DaemonOptions(address=DaemonAddress(path=daemon_socket(home)), poll_interval=0.05)
            )
            async with running(lambda stop: source.run(lambda event: None, stop)):
                await wait_until(lambda: source.down is None and bool(source.thread_choices()))
                await scenario(peer, source)

    asyncio.run(served())


def test_the_loaded_threads_are_listed_the_waiting_one_first_the_followed_one_marked(
    home: Path,
) -> None:
    async def scenario(peer: Peer, source: DaemonSource) -> None:
        assert thread_choices_of(source) is source
        choices = source.thread_choices()
        assert [(c.id, c.status, c.waiting) for c in choices] == [
            ("t-b", "waiting_on_approval", True),
            ("t-a", "idle", False),
            ("t-c", "idle", False),
        ]
        assert [c.followed for c in choices] == [c.id == source.followed for c in choices]

    _run(home, scenario)


def test_an_opened_thread_hears_its_own_status_and_environments_only(home: Path) -> None:
    async def scenario(peer: Peer, source: DaemonSource) -> None:
        events: list[Event] = []
        async with running(lambda stop: source.open_thread("t-a")(events.append, stop)):
            await wait_until(lambda: "t-a" in peer.resumed(), what="the opened thread subscribed")
            await peer.say("thread/status/changed", {"threadId": "t-b", "status": IDLE})
            await peer.say("thread/environment/disconnected",
                           {"threadId": "t-b", "environmentId": "other"})  # fmt: skip
            await peer.say("thread/environment/disconnected",
                           {"threadId": "t-a", "environmentId": "devbox"})  # fmt: skip
            await peer.say("thread/status/changed", {"threadId": "t-a", "status": WAITING})
            await wait_until(lambda: len(_statuses(events)) == 2, what="t-a's new status")
        assert _statuses(events) == [("t-a", "idle"), ("t-a", "waiting_on_approval")]
        environments = [getattr(e.msg, "environment_id", None) for e in events]
        assert "devbox" in environments
        assert "other" not in environments

    _run(home, scenario)


def test_an_opened_thread_shows_the_daemon_going_away(home: Path) -> None:
    async def scenario(peer: Peer, source: DaemonSource) -> None:
        events: list[Event] = []
        async with running(lambda stop: source.open_thread("t-a")(events.append, stop)):
            await wait_until(lambda: "t-a" in peer.resumed())
            assert peer.connection is not None
            await peer.connection.close()
            await wait_until(
                lambda: any(isinstance(e.msg, SourceStatus) and e.msg.state == "down"
                            for e in events),
                what="the daemon said down in the opened thread",
            )  # fmt: skip
        down = [e.msg for e in events if isinstance(e.msg, SourceStatus) and e.msg.state == "down"]
        assert down[0].thread == "t-a"  # the opened thread's header names its own thread

    _run(home, scenario)


def _statuses(events: list[Event]) -> list[tuple[str | None, str]]:
    return [(e.msg.thread, e.msg.status) for e in events if isinstance(e.msg, ThreadStatusChanged)]


def test_a_thread_is_not_subscribed_to_before_its_rollout_is_written(home: Path) -> None:
    async def scenario(peer: Peer, source: DaemonSource) -> None:
        async with (
            running(lambda stop: source.open_thread("t-c")(lambda event: None, stop)),
            running(lambda stop: source.open_thread("t-a")(lambda event: None, stop)),
        ):
            await wait_until(lambda: "t-a" in peer.resumed(), what="the written one subscribed")
            assert "t-c" not in peer.resumed()  # Codex would refuse it with a -32600
            (home / "rollout-t-c.jsonl").write_text('{"type":"session_meta","payload":{}}\n')
            await wait_until(lambda: "t-c" in peer.resumed(), what="subscribed once written")

    _run(home, scenario)


def test_the_daemon_away_is_said_by_the_threads_and_they_are_listed_again_when_back(
    home: Path,
) -> None:
    """The scripted daemon stops serving (its socket refused), then serves again."""

    async def scenario() -> None:
        source = DaemonSource(
            DaemonOptions(address=DaemonAddress(path=daemon_socket(home)), poll_interval=0.05),
            restart=Backoff(0.2, 0.5),
        )
        assert source.unavailable() is not None  # not attached yet: never "no threads"
        async with running(lambda stop: source.run(lambda event: None, stop)):
            async with unix_serve(Peer().serve, str(daemon_socket(home))):
                await wait_until(lambda: len(source.thread_choices()) == 3, what="listed")
                assert source.unavailable() is None
            await wait_until(lambda: source.down is not None, what="the daemon said away")
            away = source.unavailable()
            assert away is not None
            assert source.thread_choices() == []
            assert "daemon" in away.reason
            assert away.retry_in is not None
            await wait_until(lambda: (source.unavailable() or away).restarts >= 1, what="a try")
            async with unix_serve(Peer().serve, str(daemon_socket(home))):
                await wait_until(lambda: len(source.thread_choices()) == 3, what="listed again")
                assert source.unavailable() is None

    asyncio.run(scenario())
