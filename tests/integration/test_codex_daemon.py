"""envtui as one more client of the real Codex 0.171 app-server daemon (offline).

The thread's owner (:class:`~tests.support.real.codex_daemon.Owner`, a client of the socket
as the Codex TUI is) starts a turn whose model asks to run a command outside the sandbox;
envtui, attached to the same socket, hears the thread wait without subscribing, subscribes,
is asked the same request again and answers it, or hears it answered elsewhere. What Codex
did is read from the thread's rollout: the ground truth, not envtui's own account.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import Owner, daemon_home
from tests.support.real.codex_tools import needs_codex
from tests.support.waiting import wait_until

from envtui.environments.daemon.client import READ_METHODS, DaemonClient
from envtui.environments.daemon_socket import DaemonSocketChannel
from envtui.environments.jsonrpc import MessageChannel
from envtui.vocabulary.events import Event
from envtui.vocabulary.thread_messages import (
    RequestAnswered,
    RequestPending,
    RequestResolved,
    ThreadStatusChanged,
)

pytestmark = [needs_codex, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

REJECTED = "rejected by user"


class Recording:
    """The channel to the socket, with every text envtui sent kept."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket
        self.sent: list[dict[str, object]] = []
        self.channel: DaemonSocketChannel | None = None

    async def __call__(self) -> MessageChannel:
        self.channel = await DaemonSocketChannel.connect(self.socket)
        inner, sent = self.channel, self.sent
        original = inner.send

        async def send(text: str) -> None:
            sent.append(json.loads(text))
            await original(text)

        inner.send = send  # type: ignore[method-assign]
        return inner


def _of(events: list[Event], kind: type) -> list:  # type: ignore[type-arg]
    return [e.msg for e in events if isinstance(e.msg, kind)]


def _pending(events: list[Event]) -> Callable[[], bool]:
    return lambda: bool(_of(events, RequestPending))


async def _attached(
    socket: Path, events: list[Event], **options: bool
) -> tuple[DaemonClient, Recording]:
    recording = Recording(socket)
    client = DaemonClient(recording, events.append, **options)
    await client.connect()
    await client.list_threads()
    return client, recording


async def test_a_waiting_thread_is_marked_its_request_replayed_and_declined_through_the_daemon() -> (
    None
):
    with daemon_home([escalated("echo should-not-run", "devbox"), {"message": "done"}]) as daemon:
        owner = await Owner.connect(daemon.socket)
        events: list[Event] = []
        client, _ = await _attached(daemon.socket, events)
        try:
            thread = await owner.start_turn(daemon.codex.work)
            await wait_until(lambda: bool(owner.requests), timeout=90)
            await wait_until(_pending(events), timeout=30)
            statuses = [(s.thread, s.status) for s in _of(events, ThreadStatusChanged)]
            assert (thread, "waiting_on_approval") in statuses
            (request,) = _of(events, RequestPending)
            assert request.request_id == owner.requests[0]["id"]
            assert (request.thread, request.environment_id) == (thread, "devbox")
            assert "should-not-run" in (request.command or "")
            decline = RequestAnswered(
                request_id=request.request_id, kind="command", answer="decline", thread=thread
            )
            assert client.answer(decline) is None
            await wait_until(lambda: bool(_of(events, RequestResolved)), timeout=30)
            assert [r.how for r in _of(events, RequestResolved)] == ["answered"]
            await wait_until(lambda: bool(owner.resolved), timeout=30)
            assert client.threads[thread].path is not None
            rollout = Path(str(client.threads[thread].path))
            await wait_until(lambda: REJECTED in rollout.read_text(), timeout=60)
        finally:
            await client.aclose()
            await owner.aclose()


async def test_a_request_answered_by_its_owner_is_resolved_elsewhere() -> None:
    with daemon_home([escalated("echo from-owner", "devbox"), {"message": "done"}]) as daemon:
        owner = await Owner.connect(daemon.socket)
        events: list[Event] = []
        client, _ = await _attached(daemon.socket, events)
        try:
            await owner.start_turn(daemon.codex.work)
            await wait_until(_pending(events), timeout=90)
            owner.answer(owner.requests[0]["id"], "accept")
            await wait_until(lambda: bool(_of(events, RequestResolved)), timeout=30)
            assert [r.how for r in _of(events, RequestResolved)] == ["elsewhere"]
            assert not client.requests.pending
        finally:
            await client.aclose()
            await owner.aclose()


async def test_read_only_sends_nothing_but_reads_and_answers_nothing() -> None:
    with daemon_home([escalated("echo should-wait", "devbox"), {"message": "done"}]) as daemon:
        owner = await Owner.connect(daemon.socket)
        events: list[Event] = []
        client, recording = await _attached(daemon.socket, events, read_only=True)
        try:
            await owner.start_turn(daemon.codex.work)
            await wait_until(_pending(events), timeout=90)
            (request,) = _of(events, RequestPending)
            decline = RequestAnswered(
                request_id=request.request_id, kind="command", answer="decline"
            )
            assert "--read-only" in (client.answer(decline) or "")
            await client.list_threads()  # the reads once more, with the request pending
            methods = [m.get("method") for m in recording.sent]
            assert set(methods) <= READ_METHODS, methods
            assert all("method" in m for m in recording.sent), "envtui answered something"
            resumes = [m["params"] for m in recording.sent if m.get("method") == "thread/resume"]
            assert resumes
            assert all(p.get("excludeTurns") is True for p in resumes)  # type: ignore[union-attr]
            assert not owner.resolved  # the request still waits for its owner
        finally:
            await client.aclose()
            await owner.aclose()
