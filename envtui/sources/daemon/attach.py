"""``envtui codex`` attached to Codex's app-server daemon: every thread, and one followed.

The :class:`~envtui.environments.daemon.client.DaemonClient` lists the daemon's threads
and keeps their statuses live; a thread that waits on the operator is subscribed to at
once, and its request is shown and answered through the daemon (:meth:`DaemonSource.answer`).
One thread of work is followed: the one ``--thread`` names, else the first that waits on
the operator, else the first loaded one; its rollout (the thread's ``path``) gives its
steps, contexts and divergences, as ``envtui codex`` gives them for a thread of its own.

A daemon that goes away (stopped, restarted, its socket refused) is said as the source being
down with the reason; the source then tries again after a capped, jittered delay and lists
the threads anew. envtui never starts a daemon.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from envtui.context.local_time import system_clock
from envtui.environments.backoff import Backoff
from envtui.environments.daemon.address import DaemonAddress, open_channel
from envtui.environments.daemon.client import DaemonClient, retry_backoff
from envtui.environments.daemon.ssh_proxy import SshProxyChannel
from envtui.environments.daemon.threads import DaemonThread
from envtui.environments.jsonrpc import ChannelClosedError, MessageChannel, RpcError
from envtui.environments.remote import RetryableError
from envtui.environments.ssh import SshSettings
from envtui.sources.daemon.thread_source import (
    CONNECTION_HISTORY,
    DaemonThreadSource,
    ThreadRollout,
    keep_subscribed,
)
from envtui.vocabulary.events import (
    Event,
    EventSink,
    Source,
    SourceStatus,
    WarningMessage,
    thread_event,
)
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.source_voice import SourceVoice
from envtui.vocabulary.stopping import cancel_and_wait, wait_for_stop
from envtui.vocabulary.terms import SourceState
from envtui.vocabulary.thread_choices import ThreadChoice, ThreadsUnavailable
from envtui.vocabulary.thread_messages import RequestAnswered

SOURCE = "codex daemon"
"""The name this source's ``source_status`` events carry."""


@dataclass(frozen=True)
class DaemonOptions:
    """Where the daemon is, which thread to follow, and whether envtui only watches."""

    address: DaemonAddress
    thread: str | None = None
    read_only: bool = False
    poll_interval: float = 1.0
    ssh: SshSettings | None = None
    """The host whose daemon is reached through ``codex app-server proxy`` (over SSH)."""
    codex: str = "codex"
    """The codex binary on that host."""
    codex_home: Path | None = None
    """CODEX_HOME on that host (None: its default)."""


def restart_backoff(ssh: SshSettings | None = None) -> Backoff:
    """Delays between two tries: the daemon's own (:func:`retry_backoff`, at most three
    seconds); over SSH, the host's own backoff (``backoff_initial``, ``backoff_max``: what
    its environments reconnect with)."""
    if ssh is not None:
        return Backoff(ssh.backoff_initial, ssh.backoff_max)
    return retry_backoff()


def thread_line(thread: DaemonThread) -> str:
    """One thread of the listing in words (its name and cwd are the user's: one line)."""
    name = f" {one_line(thread.name)!r}" if thread.name else ""
    status = (thread.status or "unknown").replace("_", " ")
    cwd = f" in {one_line(thread.cwd)}" if thread.cwd else ""
    source = f", {thread.source}" if thread.source else ""
    return f"codex thread {thread.id}{name}{cwd}: {status}{source}"


class DaemonSource:
    """The dashboard's (and ``envtui events --codex``'s) source on the daemon; see the module."""

    def __init__(
        self,
        options: DaemonOptions,
        *,
        clock: Callable[[], datetime] = system_clock,
        restart: Backoff | None = None,
    ) -> None:
        self.options = options
        self._clock = clock
        self._voice = SourceVoice(SOURCE, clock)
        self.backoff = restart or restart_backoff(options.ssh)
        """The delays between two tries to reach the daemon."""
        self.client: DaemonClient | None = None
        self.followed: str | None = options.thread
        self.restarts = 0
        self.down: str | None = None
        """Why the daemon cannot be reached now (None while attached)."""
        self.attached = False
        """Whether a connection to the daemon is up and its threads listed."""
        self._next_try: float | None = None
        """When the next try starts (``time.monotonic``), None while trying or attached."""
        self._sink: EventSink = lambda event: None
        self._rollout: ThreadRollout | None = None
        self._taps: dict[str, set[EventSink]] = {}
        self._connections: deque[Event] = deque(maxlen=CONNECTION_HISTORY)
        """The followed thread's connection events (its stale-available rule reads them)."""

    async def __call__(self, sink: EventSink, stop: asyncio.Event) -> None:
        await self.run(sink, stop)

    @property
    def poll_interval(self) -> float:
        return self.options.poll_interval

    # --- every thread, and one opened on its own ---------------------------------------------

    def thread_choices(self) -> list[ThreadChoice]:
        """The daemon's loaded threads of work now, those that wait on the operator first
        (none while the daemon is away: :meth:`unavailable` says why); the past threads
        ``thread/list`` also names are ``envtui sessions``'s."""
        client = self.client
        if client is None or not self.attached:
            return []
        choices = [self._choice(t) for t in client.work_threads() if t.loaded or t.waiting]
        return sorted(choices, key=lambda c: not c.waiting)

    def unavailable(self) -> ThreadsUnavailable | None:
        """Why the threads cannot be listed now, and when the source tries again (None while
        attached): the thread list says it rather than showing no threads."""
        if self.down is None:
            if self.attached:
                return None
            return ThreadsUnavailable("attaching to the codex app-server daemon", None)
        next_try = self._next_try
        retry_in = 0.0 if next_try is None else max(0.0, next_try - time.monotonic())
        return ThreadsUnavailable(one_line(self.down), retry_in, self.restarts)

    def _choice(self, thread: DaemonThread) -> ThreadChoice:
        return ThreadChoice(
            id=thread.id,
            status=thread.status,
            name=thread.name,
            cwd=thread.cwd,
            source=thread.source,
            loaded=thread.loaded,
            followed=thread.id == self.followed,
        )

    def open_thread(self, thread_id: str) -> Source:
        """``thread_id`` as a source of its own, on this connection (see
        :mod:`~envtui.sources.daemon.thread_source`)."""
        return DaemonThreadSource(self, thread_id, clock=self._clock)

    def tap(self, thread_id: str, sink: EventSink) -> Callable[[], None]:
        """Hand ``sink`` the events of ``thread_id`` and this source's state, until the call
        returned."""
        self._taps.setdefault(thread_id, set()).add(sink)

        def untap() -> None:
            taps = self._taps.get(thread_id)
            if taps is not None:
                taps.discard(sink)
                if not taps:
                    del self._taps[thread_id]

        return untap

    def answer(self, answer: RequestAnswered) -> str | None:
        """The operator's answer, sent through the daemon; why it was not sent, or None."""
        if self.client is None or self.down is not None:
            return f"not attached to the codex app-server daemon ({self.down or 'not yet'})"
        return self.client.answer(answer)

    # --- running, and running again ------------------------------------------------------------

    async def run(self, sink: EventSink, stop: asyncio.Event) -> None:
        """Attach until ``stop``, again after each loss of the daemon."""
        self._sink = sink
        self._voice.sink = self._said
        while not stop.is_set():
            started = asyncio.get_running_loop().time()
            reason = await self._attach(stop)
            if reason is None or stop.is_set():
                return
            if asyncio.get_running_loop().time() - started > 2 * self.backoff.maximum:
                self.backoff.reset()
            delay = self.backoff.next_delay()
            if self.down != reason:  # said once, not at every try
                self._status("down", reason)
            self.down = reason
            self._status("restarting", reason, delay)
            self._next_try = time.monotonic() + delay
            if await wait_for_stop(stop, delay):
                return
            self._next_try = None
            self.restarts += 1

    async def _open(self) -> MessageChannel:
        ssh = self.options.ssh
        if ssh is not None:
            return await SshProxyChannel.open(ssh, self.options.codex, self.options.codex_home)
        return await open_channel(self.options.address)

    async def _attach(self, stop: asyncio.Event) -> str | None:
        """One connection's life: why it ended, None when ``stop`` ended it."""
        client = self.client = DaemonClient(
            self._open, self._hear, clock=self._clock, read_only=self.options.read_only,
            on_thread=self._on_thread, on_environment=self._on_environment,
        )  # fmt: skip
        follow: asyncio.Task[None] | None = None
        try:
            try:
                await client.connect()
                threads = await client.list_threads()
            except (RetryableError, RpcError, ChannelClosedError, TimeoutError, OSError) as exc:
                return str(exc) or type(exc).__name__
            self.down = None
            self.attached = True
            self._attached(threads)
            follow = asyncio.get_running_loop().create_task(self._follow(stop))
            return await self._until_stop_or_gone(client, stop)
        finally:
            self.attached = False
            if follow is not None:
                await cancel_and_wait(follow)
            await client.aclose()
            client.gone()

    def _attached(self, threads: list[DaemonThread]) -> None:
        label = (
            f"{self.options.ssh.host} (codex app-server proxy)"
            if self.options.ssh
            else self.options.address.label
        )
        watching = " (--read-only: watching, answering nothing)" if self.options.read_only else ""
        self._info(f"attached to the codex app-server daemon at {label}{watching}")
        for thread in threads:
            self._info(thread_line(thread))
        self._status("up")

    async def _until_stop_or_gone(self, client: DaemonClient, stop: asyncio.Event) -> str | None:
        stopped: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        closed: asyncio.Future[Any] = asyncio.ensure_future(asyncio.shield(client.closed))
        await asyncio.wait({stopped, closed}, return_when=asyncio.FIRST_COMPLETED)
        await cancel_and_wait(stopped, closed)
        if stop.is_set() or not client.closed.done():
            return None
        reason = client.closed.result()  # the channel's words: "the codex app-server daemon …"
        self._voice.say(WarningMessage(message=reason, severity="error"))
        return reason

    # --- hearing ------------------------------------------------------------------------------

    def _hear(self, event: Event) -> None:
        """The client's events: all to the dashboard, a thread's also to those who opened it."""
        self._sink(event)
        thread = getattr(event.msg, "thread", None)
        for tap in list(self._taps.get(thread, ())) if isinstance(thread, str) else ():
            tap(event)

    def _on_environment(self, thread_id: str, event: Event) -> None:
        """A subscribed thread's environment connected or went away: the followed thread's
        goes to the dashboard too (its stale-available rule reads them)."""
        if thread_id == self.followed:
            self._connections.append(event)
            self._sink(event)
        for tap in list(self._taps.get(thread_id, ())):
            tap(event)

    def _on_thread(self, thread: DaemonThread) -> None:
        """Choose the thread to follow: the one named, else the first to wait, else the first
        loaded thread of work."""
        if self.followed is None and thread.work and (thread.waiting or thread.loaded):
            self.followed = thread.id
            self._info(f"following codex thread {thread.id}")

    # --- the followed thread's rollout ----------------------------------------------------------

    async def _follow(self, stop: asyncio.Event) -> None:
        """Read the followed thread's rollout as it grows (kept across reconnections, with its
        offset, so nothing is read twice)."""
        if self._rollout is None:
            self._rollout = ThreadRollout(
                self._sink, clock=self._clock, connection_events=lambda: list(self._connections)
            )
        subscribing = asyncio.get_running_loop().create_task(
            keep_subscribed(
                lambda: self.client,
                lambda: self.followed,
                self._rollout,
                self.options.poll_interval,
                stop,
            )
        )
        try:
            await self._rollout.follow(
                lambda: self.client, lambda: self.followed, self.options.poll_interval, stop
            )
        finally:
            await cancel_and_wait(subscribing)

    # --- saying -------------------------------------------------------------------------------

    def _info(self, text: str) -> None:
        self._voice.say(WarningMessage(message=text, severity="info"))

    def _said(self, event: Event) -> None:
        """What this source says of itself: to the dashboard, and its state to every opened
        thread too (a copy naming that thread, for its header)."""
        self._sink(event)
        if isinstance(event.msg, SourceStatus):
            for thread_id, taps in list(self._taps.items()):
                own = thread_event(event.msg.model_copy(update={"thread": thread_id}), at=event.at)
                for tap in list(taps):
                    tap(own)

    def _status(self, state: SourceState, reason: str | None = None, delay: float = 0) -> None:
        self._voice.status(
            state, reason, thread=self.followed, restarts=self.restarts, retry_in=delay
        )
