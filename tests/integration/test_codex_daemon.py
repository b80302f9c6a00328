"""envtui as one more client of the real Codex 0.171 app-server daemon (offline).

The thread's owner (:class:`~tests.support.real.codex_daemon.Owner`, a client of the socket
as the Codex TUI is) starts a turn whose model asks to run a command outside the sandbox;
envtui, attached to the same socket, hears the thread wait without subscribing, subscribes,
is asked the same request again and answers it, or hears it answered elsewhere. What Codex
did is read from the thread's rollout: the ground truth, not envtui's own account.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from tests.support.liveness import alive
from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import Owner, daemon_home, serve_daemon
from tests.support.real.codex_tools import CODEX, needs_codex
from tests.support.real.ssh_servers import SSHD, OpenSshServer, free_port
from tests.support.waiting import pilot_wait_until, poll_until, running, wait_until

from envtui.environments.daemon.address import DaemonAddress
from envtui.environments.daemon.client import READ_METHODS, DaemonClient
from envtui.environments.daemon_socket import DaemonSocketChannel
from envtui.environments.jsonrpc import MessageChannel
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.needs_you.confirm import ConfirmAnswer
from envtui.tui.needs_you.panel import NeedsYouPanel
from envtui.vocabulary.events import Event, SourceStatus, StepRecorded
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
    client = DaemonClient(recording, events.append, read_only=options.get("read_only", False))
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
            assert all(p.get("excludeTurns") is True for p in resumes)  # type: ignore[attr-defined]
            assert not owner.resolved  # the request still waits for its owner
        finally:
            await client.aclose()
            await owner.aclose()


def _daemon_source(socket: Path, **fields: object) -> DaemonSource:
    return DaemonSource(DaemonOptions(address=DaemonAddress(path=socket), **fields))  # type: ignore[arg-type]


async def test_the_dashboard_shows_the_daemons_request_and_declines_it_with_the_keys() -> None:
    with daemon_home([escalated("echo should-not-run", "devbox"), {"message": "done"}]) as daemon:
        owner = await Owner.connect(daemon.socket)
        source = _daemon_source(daemon.socket)
        app = EnvTuiApp(source, DashboardOptions(source_name="codex daemon", answers=source))
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                store = app.store
                await pilot_wait_until(
                    pilot, lambda: source.unavailable() is None, what="attached and listed"
                )
                thread = await owner.start_turn(daemon.codex.work)
                await pilot_wait_until(
                    pilot,
                    lambda: bool(store.needs_you.unanswered()),
                    timeout=90,
                    what="the request",
                )
                (request,) = store.needs_you.unanswered()
                assert (request.msg.thread, request.msg.environment_id) == (thread, "devbox")
                assert store.needs_you.status == "waiting_on_approval"
                await pilot_wait_until(
                    pilot,
                    lambda: (
                        "echo should-not-run" in str(app.screen.query_one(NeedsYouPanel).render())
                    ),
                    timeout=10,
                    what="the request in the needs-you panel",
                )
                await pilot.press("x")
                await pilot_wait_until(
                    pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed
                )
                await pilot.press("y")
                await pilot_wait_until(
                    pilot,
                    lambda: bool(owner.resolved),
                    timeout=30,
                    what="the owner told it resolved",
                )
                await pilot_wait_until(pilot, lambda: not store.needs_you.pending, timeout=30)
                assert source.followed == thread
                await pilot.press("q")
        finally:
            await owner.aclose()
        rollout = Path(str(source.client.threads[thread].path))  # type: ignore[union-attr]
        await wait_until(lambda: REJECTED in rollout.read_text(), timeout=60, what="the decline")


async def test_a_daemon_that_goes_away_is_said_down_and_listed_again_when_it_is_back() -> None:
    with daemon_home([{"message": "done"}]) as daemon:
        events: list[Event] = []
        source = _daemon_source(daemon.socket)
        async with running(lambda stop: source.run(events.append, stop)):
            await wait_until(lambda: [s.state for s in _of(events, SourceStatus)] == ["up"])
            daemon.stop()
            await wait_until(lambda: source.down is not None, what="the daemon said gone")
            down = [s for s in _of(events, SourceStatus) if s.state == "down"]
            assert "daemon went away" in (down[0].reason or "")
            daemon.process = serve_daemon(daemon.codex).process
            await wait_until(
                lambda: [s.state for s in _of(events, SourceStatus)].count("up") == 2,
                what="attached again",
            )
            assert source.down is None
            assert source.restarts >= 1


def test_events_writes_every_thread_of_the_daemon_with_its_id(tmp_path: Path) -> None:
    with daemon_home([escalated("echo should-wait", "devbox"), {"message": "done"}]) as daemon:
        out = tmp_path / "events.jsonl"
        process = subprocess.Popen(
            [sys.executable, "-m", "envtui", "events", "--codex", "--codex-home", str(daemon.codex.home),
             "--read-only", "--out", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            poll_until(lambda: out.exists() and '"state":"up"' in out.read_text(), timeout=60)

            async def turn() -> tuple[Owner, str]:
                owner = await Owner.connect(daemon.socket)
                return owner, await owner.start_turn(daemon.codex.work)

            loop = asyncio.new_event_loop()
            owner, thread = loop.run_until_complete(turn())
            poll_until(
                lambda: '"request_pending"' in out.read_text(), timeout=90, what="the request"
            )
            loop.run_until_complete(owner.aclose())
            loop.close()
        finally:
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        messages = [json.loads(line)["msg"] for line in out.read_text().splitlines()]
        asked = [m for m in messages if m["type"] in ("request_pending", "thread_status")]
        assert {m["type"] for m in asked} == {"request_pending", "thread_status"}
        assert all(m["thread"] == thread for m in asked), asked
        assert not any(m["type"] == "request_answered" for m in messages)


async def test_events_writes_a_request_resolved_elsewhere_and_each_threads_status(
    tmp_path: Path,
) -> None:
    """Two threads of two owners: the first waits on an approval while the second runs, then
    its owner declines it; envtui, only watching, writes both threads' statuses and the
    request pending then resolved elsewhere, each line naming its thread."""
    script = [escalated("echo asked-first", "devbox"), {"message": "two"}, {"message": "one"}]
    with daemon_home(script) as daemon:
        out = tmp_path / "events.jsonl"

        def written(text: str) -> Callable[[], bool]:
            return lambda: out.exists() and text in out.read_text()

        process = subprocess.Popen(
            [sys.executable, "-m", "envtui", "events", "--codex", "--codex-home", str(daemon.codex.home),
             "--read-only", "--out", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        first = second = None
        try:
            await wait_until(written('"state":"up"'), timeout=60, what="attached")
            first = await Owner.connect(daemon.socket)
            second = await Owner.connect(daemon.socket)
            one = await first.start_turn(daemon.codex.work, "one")
            await wait_until(written('"request_pending"'), timeout=90, what="asked")
            two = await second.start_turn(daemon.codex.work, "two")
            await wait_until(written(f'"thread":"{two}"'), timeout=90, what="the second thread")
            first.answer(first.requests[0]["id"], "decline")
            await wait_until(written('"request_resolved"'), timeout=60, what="resolved")
        finally:
            for owner in (first, second):
                if owner is not None:
                    await owner.aclose()
            process.send_signal(signal.SIGINT)
            _, stderr = await asyncio.to_thread(process.communicate, timeout=60)
        assert process.returncode == 0, stderr
        messages = [json.loads(line)["msg"] for line in out.read_text().splitlines()]
        (pending,) = [m for m in messages if m["type"] == "request_pending"]
        (resolved,) = [m for m in messages if m["type"] == "request_resolved"]
        assert (pending["thread"], resolved["thread"]) == (one, one)
        assert resolved["request_id"] == pending["request_id"] == first.requests[0]["id"]
        assert resolved["how"] == "elsewhere"
        statuses = [m for m in messages if m["type"] == "thread_status"]
        assert {one, two} <= {m["thread"] for m in statuses}
        assert all(m["thread"] in (one, two) for m in [*statuses, pending, resolved])
        assert not any(m["type"] == "request_answered" for m in messages)


def test_no_daemon_is_said_in_one_line_with_how_to_start_one(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "envtui", "events", "--codex", "--codex-home", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "codex app-server daemon start" in done.stderr
    assert "--no-daemon" in done.stderr


@pytest.mark.skipif(SSHD is None, reason="needs OpenSSH sshd (Debian openssh-server)")
async def test_over_ssh_the_hosts_daemon_is_reached_through_codex_app_server_proxy(
    tmp_path: Path,
) -> None:
    server = OpenSshServer(tmp_path, free_port()).start()
    try:
        await server.accepting()
        with daemon_home([escalated("echo over-ssh", "devbox"), {"message": "done"}]) as daemon:
            owner = await Owner.connect(daemon.socket)
            events: list[Event] = []
            options = DaemonOptions(
                address=DaemonAddress(path=daemon.socket),
                ssh=server.settings(),
                codex=str(CODEX),
                codex_home=daemon.codex.home,
            )
            source = DaemonSource(options)
            try:
                async with running(lambda stop: source.run(events.append, stop)):
                    await wait_until(lambda: source.unavailable() is None, what="attached")
                    thread = await owner.start_turn(daemon.codex.work)
                    await wait_until(_pending(events), timeout=90, what="the request over ssh")
                    (request,) = _of(events, RequestPending)
                    assert (request.thread, request.environment_id) == (thread, "devbox")
                    answer = RequestAnswered(
                        request_id=request.request_id, kind="command", answer="decline"
                    )
                    assert source.answer(answer) is None
                    await wait_until(lambda: bool(owner.resolved), timeout=30)
                    await wait_until(
                        lambda: any(isinstance(e.msg, StepRecorded) for e in events),
                        timeout=60,
                        what="a step of the thread's rollout, read over ssh",
                    )
            finally:
                await owner.aclose()
    finally:
        server.stop()


def _proxies(home: Path) -> list[int]:
    """The ``codex app-server proxy`` processes running for ``home``'s daemon."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            words = process.info["cmdline"] or []
            proxy = words[1:3] == ["app-server", "proxy"]
            if proxy and process.environ().get("CODEX_HOME") == str(home):
                found.append(process.pid)
    return found


@pytest.mark.skipif(SSHD is None, reason="needs OpenSSH sshd (Debian openssh-server)")
async def test_an_ssh_host_that_drops_is_reached_again_and_its_proxy_ends_with_the_link(
    tmp_path: Path,
) -> None:
    server = OpenSshServer(tmp_path, free_port()).start()
    try:
        await server.accepting()
        with daemon_home([{"message": "done"}]) as daemon:
            owner = await Owner.connect(daemon.socket)
            ssh = server.settings(keepalive_interval=1, keepalive_count_max=2, backoff_max=4.0)
            options = DaemonOptions(
                address=DaemonAddress(path=daemon.socket),
                ssh=ssh,
                codex=str(CODEX),
                codex_home=daemon.codex.home,
            )
            source = DaemonSource(options)
            assert (source.backoff.initial, source.backoff.maximum) == (1.0, 4.0)  # the host's
            events: list[Event] = []

            def ups() -> int:
                return [s.state for s in _of(events, SourceStatus)].count("up")

            try:
                thread = await owner.start_turn(daemon.codex.work)
                async with running(lambda stop: source.run(events.append, stop)):
                    await wait_until(lambda: ups() == 1, timeout=60, what="attached over ssh")
                    await wait_until(lambda: len(_proxies(daemon.codex.home)) == 1)
                    (first,) = _proxies(daemon.codex.home)
                    server.drop_connections()  # the link to the host is lost
                    await wait_until(lambda: source.down is not None, what="said down")
                    await wait_until(lambda: ups() == 2, timeout=60, what="attached again")
                    client = source.client
                    assert client is not None
                    await wait_until(
                        lambda: thread in client.threads, what="the thread listed again"
                    )
                    await wait_until(
                        lambda: not alive(first), timeout=30, what="the first proxy ended"
                    )
                    assert len(_proxies(daemon.codex.home)) == 1
                await wait_until(
                    lambda: not _proxies(daemon.codex.home), timeout=30, what="no proxy left"
                )
            finally:
                await owner.aclose()
        down = [s for s in _of(events, SourceStatus) if s.state == "down"]
        assert "127.0.0.1" in (down[0].reason or "")
    finally:
        server.stop()
