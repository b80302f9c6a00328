"""One thread of Codex's app-server daemon as a dashboard source of its own.

What a list of the daemon's threads opens when a thread is chosen (``envtui codex``'s thread
list; a host's row of the fleet): the thread's status and the requests it waits on, as the
daemon says them; its environments' connection events, heard once the thread is subscribed
to (``thread/resume`` without its turns: a read, the one a waiting thread gets anyway); and
its rollout (the thread's ``path``, here or over the SSH connection the daemon is reached
through) for its steps, contexts, environments and divergences, as ``envtui codex`` shows a
thread of its own. The source opens no connection: it rides on the feed's
(:class:`DaemonFeed`, a :class:`~envtui.sources.daemon.attach.DaemonSource`), so it goes
down and comes back with it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol

from envtui.context.local_time import system_clock
from envtui.environments.daemon.client import DaemonClient
from envtui.environments.daemon.ssh_proxy import SshProxyChannel
from envtui.rollout.checked import ConnectionEvents
from envtui.rollout.fork_parent import ParentRollouts
from envtui.sources.file_windows import LocalFile, SshFile
from envtui.sources.rollout_follow import RolloutFollower, read_window
from envtui.vocabulary.events import (
    Event,
    EventSink,
    WarningMessage,
    connection_change,
    thread_event,
)
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.stopping import cancel_and_wait, wait_for_stop
from envtui.vocabulary.thread_messages import ThreadStatusChanged

CONNECTION_HISTORY = 50
"""Connection events of the thread kept for the stale-available rule."""


class DaemonFeed(Protocol):
    """What a thread's source needs of the connection to the daemon."""

    @property
    def client(self) -> DaemonClient | None: ...

    @property
    def poll_interval(self) -> float: ...

    def tap(self, thread_id: str, sink: EventSink) -> Callable[[], None]:
        """Hand ``sink`` the events of ``thread_id`` (and the feed's own state) until the
        returned call."""
        ...


class ThreadRollout:
    """A daemon thread's rollout, followed as it grows: one follower, kept across
    reconnections with its offset, so nothing is read twice."""

    def __init__(
        self,
        sink: EventSink,
        *,
        clock: Callable[[], datetime] = system_clock,
        connection_events: ConnectionEvents | None = None,
    ) -> None:
        self._sink = sink
        self._clock = clock
        self._connection_events = connection_events
        self.follower: RolloutFollower | None = None

    @property
    def started(self) -> bool:
        """Whether the rollout has been found and read from (Codex wrote it)."""
        return self.follower is not None and self.follower.offset > 0

    async def follow(
        self,
        client_of: Callable[[], DaemonClient | None],
        thread_of: Callable[[], str | None],
        poll: float,
        stop: asyncio.Event,
    ) -> None:
        """Read the thread's rollout once the daemon names it, until ``stop`` (locally, or
        on the host of an SSH proxy over its connection)."""
        while not stop.is_set():
            client, thread = client_of(), thread_of()
            path = rollout_path(client, thread)
            channel = client.channel if client is not None else None
            if path is not None and isinstance(channel, SshProxyChannel):
                window = SshFile(channel.connection, str(path), channel.host)
                await read_window(window, self._follower_for(path, local=False), stop, follow=True)
                return
            if path is not None and path.exists():
                await read_window(LocalFile(path), self._follower_for(path), stop, follow=True)
                return
            if await wait_for_stop(stop, poll):
                return

    def _follower_for(self, path: Path, *, local: bool = True) -> RolloutFollower:
        """The one follower of the rollout (a fork's parent is looked up only here)."""
        if self.follower is None or self.follower.name != str(path):
            self.follower = RolloutFollower(
                str(path),
                self._sink,
                connection_events=self._connection_events,
                clock=self._clock,
                baseline=(lambda: ParentRollouts(path)) if local else None,
            )
        return self.follower


def rollout_path(client: DaemonClient | None, thread_id: str | None) -> Path | None:
    """The thread's rollout as the daemon names it (None until it does)."""
    if client is None or thread_id is None:
        return None
    thread = client.threads.get(thread_id)
    return Path(thread.path) if thread is not None and thread.path else None


class DaemonThreadSource:
    """A thread of the daemon as a source; see the module."""

    def __init__(
        self, feed: DaemonFeed, thread_id: str, *, clock: Callable[[], datetime] = system_clock
    ) -> None:
        self.feed = feed
        self.thread_id = thread_id
        self._clock = clock
        self._connections: deque[Event] = deque(maxlen=CONNECTION_HISTORY)

    async def __call__(self, sink: EventSink, stop: asyncio.Event) -> None:
        def hear(event: Event) -> None:
            if connection_change(event.msg) is not None:
                self._connections.append(event)
            sink(event)

        untap = self.feed.tap(self.thread_id, hear)
        rollout = ThreadRollout(
            hear, clock=self._clock, connection_events=lambda: list(self._connections)
        )
        subscribing = asyncio.get_running_loop().create_task(
            keep_subscribed(
                lambda: self.feed.client,
                lambda: self.thread_id,
                rollout,
                self.feed.poll_interval,
                stop,
            )
        )
        try:
            self._replay(hear)
            await rollout.follow(
                lambda: self.feed.client, lambda: self.thread_id, self.feed.poll_interval, stop
            )
        finally:
            untap()
            await cancel_and_wait(subscribing)

    def _replay(self, sink: EventSink) -> None:
        """What the daemon said of the thread before it was opened: its status and the
        requests it waits on."""
        client = self.feed.client
        thread = client.threads.get(self.thread_id) if client is not None else None
        name = f" {one_line(thread.name)!r}" if thread is not None and thread.name else ""
        said = WarningMessage(message=f"codex thread {self.thread_id}{name}", severity="info")
        sink(thread_event(said, at=self._clock()))
        if client is None or thread is None:
            return
        if thread.status is not None:
            status = ThreadStatusChanged(
                thread=thread.id, status=thread.status, flags=list(thread.flags)
            )
            sink(thread_event(status, at=self._clock()))
        for pending in list(client.requests.pending.values()):
            if pending.thread == self.thread_id:
                sink(thread_event(pending, at=self._clock()))


async def keep_subscribed(
    client_of: Callable[[], DaemonClient | None],
    thread_of: Callable[[], str | None],
    rollout: ThreadRollout,
    poll: float,
    stop: asyncio.Event,
) -> None:
    """Subscribe to the thread once on each connection, to hear its environments: only
    while it is loaded (resuming one that is not would load it) and once its rollout has
    been read (Codex refuses to resume a thread before it wrote its rollout, with a -32600)."""
    tried_on: DaemonClient | None = None
    while not stop.is_set():
        client, thread_id = client_of(), thread_of()
        thread = client.threads.get(thread_id) if client and thread_id else None
        if (
            client is not None
            and client is not tried_on
            and thread is not None
            and thread.loaded
            and rollout.started
            and client.rpc is not None
            and not client.rpc.closed.done()
        ):
            tried_on = client  # a refusal is said once, not at every poll
            await client.subscribe(thread.id)
        if await wait_for_stop(stop, poll):
            return
