"""One host's Codex app-server daemon, as the live part of a view of many hosts.

A :class:`~envtui.environments.daemon.client.DaemonClient` that only watches (it sends
reads, answers nothing: a thread's requests are answered from its own dashboard) lists the
daemon's threads, keeps their ``ThreadStatus`` live and subscribes to a thread the moment
it waits, to see the request. Each change is handed on as a :class:`DaemonReport`: the
loaded threads (:class:`~envtui.incidents.fleet_rows.ThreadLive`, Codex's own status
shape, the pending requests), what it lists of every thread, loaded or not
(:class:`~envtui.incidents.fleet_rows.ThreadFacts`: name, preview, cwd …), and how the
daemon is reached.

The daemon is asked ``thread/loaded/list`` every poll interval: an answer is the daemon
heard from; none within :data:`~envtui.incidents.fleet_rows.STALE_POLLS` intervals, or
the channel closing, is the daemon lost. A daemon never reached is ``no daemon`` (the host
shows its files); one reached and lost is ``reconnecting`` (its live statuses withdrawn:
not known, never idle) and, once stale, ``unreachable``; it is tried again after a
capped, jittered delay.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from envtui.environments.backoff import Backoff
from envtui.environments.daemon.client import ChannelOpener, DaemonClient, retry_backoff
from envtui.environments.daemon.threads import DaemonThread
from envtui.environments.jsonrpc import ChannelClosedError, RpcError
from envtui.environments.remote import RetryableError
from envtui.incidents.fleet_rows import (
    STALE_POLLS,
    DaemonState,
    PendingRequest,
    ThreadFacts,
    ThreadLive,
    cut_preview,
)
from envtui.vocabulary.events import Event
from envtui.vocabulary.stopping import cancel_and_wait, wait_for_stop, within
from envtui.vocabulary.thread_messages import RequestPending

_VERSION = re.compile(r"/(\d+\.\d+\.\d+[\w.+-]*)")
_STATUS_TYPES = {"not_loaded": "notLoaded", "idle": "idle", "system_error": "systemError"}
FAILURES = (RetryableError, RpcError, ChannelClosedError, TimeoutError, OSError)
"""What a try to reach the daemon ends with when the daemon cannot be had."""


READS_PER_THREAD = 3
"""``thread/read`` of one thread for its first words, at most, per connection, made while it
does not work (new, a turn ended, waiting): a thread whose first message has none (an image
alone) is not asked at every turn. A read while it works may come before Codex has kept
the words and is not counted; there is one per status it moves to, at most."""
READS_AT_ONCE = 4
"""``thread/read`` requests in flight at once on one daemon (a burst of new threads)."""


@dataclass(frozen=True)
class DaemonReport:
    """What a host's daemon says now: how it is reached, its loaded threads and what it
    lists of every thread (both None while it is not attached: nothing is known)."""

    state: DaemonState
    reason: str | None = None
    heard: datetime | None = None
    version: str | None = None
    live: dict[str, ThreadLive] | None = None
    facts: dict[str, ThreadFacts] | None = None


def codex_status(thread: DaemonThread) -> dict[str, Any]:
    """The thread's status in Codex's own ``ThreadStatus`` shape."""
    if thread.status in _STATUS_TYPES:
        return {"type": _STATUS_TYPES[thread.status]}
    return {"type": "active", "activeFlags": list(thread.flags)}


def version_of(user_agent: str | None) -> str | None:
    """The Codex version in the daemon's ``userAgent`` (``codex_cli_rs/0.171.0 (…)``)."""
    found = _VERSION.search(user_agent or "")
    return found.group(1) if found else None


def pending_of(request: RequestPending) -> PendingRequest:
    detail = request.command or ", ".join(request.changes) or request.reason
    return PendingRequest(
        request.method, request.environment_id, detail, request.request_id, request.kind
    )


def live_threads(client: DaemonClient) -> dict[str, ThreadLive]:
    """Every loaded thread of work, with what it waits on."""
    pending: dict[str, list[PendingRequest]] = {}
    for request in client.requests.pending.values():
        if request.thread is not None:
            pending.setdefault(request.thread, []).append(pending_of(request))
    return {
        thread.id: ThreadLive(codex_status(thread), tuple(pending.get(thread.id, ())))
        for thread in client.threads.values()
        if thread.loaded and thread.status not in (None, "not_loaded") and thread.work
    }


def facts_of(thread: DaemonThread) -> ThreadFacts:
    return ThreadFacts(
        name=thread.name or None,
        preview=cut_preview(thread.preview),
        cwd=thread.cwd,
        path=thread.path,
        updated=thread.updated,
        cli_version=thread.cli_version,
        parent=thread.parent,
        source=thread.source,
        started=thread.created,
    )


def thread_facts(client: DaemonClient) -> dict[str, ThreadFacts]:
    """What the daemon lists of every thread of work it told of, loaded or not."""
    return {thread.id: facts_of(thread) for thread in client.threads.values() if thread.work}


class HostDaemon:
    """One host's daemon, attached again after each loss; see the module."""

    def __init__(
        self,
        host: str,
        open_channel: ChannelOpener,
        report: Callable[[str, DaemonReport], None],
        *,
        interval: float = 1.0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        backoff: Backoff | None = None,
    ) -> None:
        self.host = host
        self._open = open_channel
        self._report = report
        self.interval = interval
        self._clock = clock
        self.backoff = backoff or retry_backoff()
        """The delays between two tries, as ``envtui codex`` waits for its daemon."""
        self.client: DaemonClient | None = None
        self.state: DaemonState = "no daemon"
        self.reason: str | None = None
        self.heard: datetime | None = None
        self.version: str | None = None
        self.tried = False
        """Whether the first try has ended (attached, or said why not)."""
        self._facts: dict[str, ThreadFacts] = {}
        self._facts_stale = True
        self._reading: dict[str, asyncio.Task[None]] = {}
        """The threads read for their first words (see :meth:`_read_preview`)."""
        self._read_for: dict[str, tuple[object, ...]] = {}  # the status each was read in
        self._again: set[str] = set()  # moved while read: read once more
        self._reads: dict[str, int] = {}  # reads made of each thread without first words
        self._read_slots = asyncio.Semaphore(READS_AT_ONCE)

    async def run(self, stop: asyncio.Event) -> None:
        """Attach until ``stop``, again after each loss."""
        while not stop.is_set():
            reason = await self._attach(stop)
            if reason is None or stop.is_set():
                return
            self._lost(reason)
            if await wait_for_stop(stop, self.backoff.next_delay()):
                return

    async def _attach(self, stop: asyncio.Event) -> str | None:
        """One connection's life: why it ended, None when ``stop`` ended it."""
        client = self.client = DaemonClient(
            self._open, self._hear, clock=self._clock, read_only=True, on_thread=self._changed
        )
        self._facts_stale = True
        self._read_for.clear()
        self._reads.clear()
        try:
            try:
                await client.connect()
                await client.list_threads()
            except FAILURES as exc:
                return str(exc) or type(exc).__name__
            finally:
                self.tried = True
            self.backoff.reset()
            self.state, self.reason = "attached", None
            self.version = version_of(client.user_agent)
            self._heard()
            return await self._watch(client, stop)
        finally:
            self.client = None
            await cancel_and_wait(*self._reading.values())
            await client.aclose()

    async def _watch(self, client: DaemonClient, stop: asyncio.Event) -> str | None:
        """Ask the daemon every interval whether it is there; why it went, or None."""
        patience = STALE_POLLS * self.interval
        while True:
            ended = await _first_of(stop, client.closed, self.interval)
            if stop.is_set():
                return None
            if ended is not None:
                return ended
            try:
                answered = await within(patience, client.loaded())
            except (RpcError, ChannelClosedError) as exc:
                return str(exc)
            if not answered:
                return f"no answer in {patience:g} s"
            self._heard()

    def _heard(self) -> None:
        self.heard = self._clock()
        self._publish()

    def _lost(self, reason: str) -> None:
        """No answer: never reached (no daemon), else reconnecting until stale."""
        self.reason = reason
        if self.heard is None:
            self.state = "no daemon"
        elif (self._clock() - self.heard).total_seconds() > STALE_POLLS * self.interval:
            self.state = "unreachable"
        else:
            self.state = "reconnecting"
        self._publish()

    def _changed(self, thread: DaemonThread) -> None:
        self._fact_changed(thread)
        if self.state == "attached":
            self._read_preview(thread)
            self._publish()

    def _read_preview(self, thread: DaemonThread) -> None:
        """A thread started while attached is said before its first turn, without its first
        words (Codex's ``preview``), and nothing says them later: it is read again
        (``thread/read``) when its status moves, until they are known."""
        client = self.client
        if client is None or thread.preview or not (thread.work and thread.loaded):
            self._read_for.pop(thread.id, None)
            self._reads.pop(thread.id, None)
            return
        if self._reads.get(thread.id, 0) >= READS_PER_THREAD:
            return  # its first message has no words (an image alone): asked enough
        state = (thread.status, *thread.flags)
        if self._read_for.get(thread.id) == state:
            return  # read in this status already (a read's own answer says it again)
        self._read_for[thread.id] = state
        if thread.status != "active":
            self._reads[thread.id] = self._reads.get(thread.id, 0) + 1
        if thread.id in self._reading:
            self._again.add(thread.id)  # it moved while read: the answer may be older
        else:
            task = asyncio.get_running_loop().create_task(self._read(client, thread.id))
            self._reading[thread.id] = task

    async def _read(self, client: DaemonClient, thread_id: str) -> None:
        try:
            again = True
            while again:
                self._again.discard(thread_id)
                async with self._read_slots:
                    await client.read(thread_id)  # its facts taken and published by the client
                again = thread_id in self._again
        except FAILURES:
            pass  # the connection's end is said by the watch
        finally:
            self._reading.pop(thread_id, None)
            self._again.discard(thread_id)

    def _hear(self, event: Event) -> None:
        """The client's events: a request shown or gone changes what a thread waits on."""
        if self.state == "attached" and event.msg.type in ("request_pending", "request_resolved"):
            self._publish()

    def _publish(self) -> None:
        client = self.client if self.state == "attached" else None
        live = live_threads(client) if client is not None else None
        facts = self._listed(client) if client is not None else None
        report = DaemonReport(self.state, self.reason, self.heard, self.version, live, facts)
        self._report(self.host, report)

    def _fact_changed(self, thread: DaemonThread) -> None:
        """One thread's facts made again, in a new map (a report's map is never changed in
        place): a status change costs one thread, not all the daemon listed."""
        if self._facts_stale:
            return  # all of them are made again at the next report
        fact = facts_of(thread) if thread.work else None
        if self._facts.get(thread.id) == fact:
            return
        facts = dict(self._facts)
        if fact is None:
            facts.pop(thread.id, None)
        else:
            facts[thread.id] = fact
        self._facts = facts

    def _listed(self, client: DaemonClient) -> dict[str, ThreadFacts]:
        """:func:`thread_facts`, made again only after a thread changed, and the same
        object while nothing in it did: the every-interval answer is no news."""
        if self._facts_stale:
            self._facts_stale = False
            facts = thread_facts(client)
            if facts != self._facts:
                self._facts = facts
        return self._facts


async def _first_of(stop: asyncio.Event, closed: asyncio.Future[str], timeout: float) -> str | None:
    """Wait for ``stop``, the connection's end or ``timeout``; the end's reason if it came."""
    stopped: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    gone: asyncio.Future[Any] = asyncio.ensure_future(asyncio.shield(closed))
    await asyncio.wait({stopped, gone}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    await cancel_and_wait(stopped, gone)
    return closed.result() if closed.done() and not closed.cancelled() else None
