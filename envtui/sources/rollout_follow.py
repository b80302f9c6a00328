"""A Codex rollout as an event source: each step's record and findings, optionally followed.

Steps are emitted as ``step`` and ``finding`` events, exactly what the engine emits, so the
dashboard shows a rollout like a live run. Following keeps, between polls, the reader, the
byte offset and the last step given out: each poll reads only the bytes past the offset
(locally or over SSH, see :mod:`envtui.sources.file_windows`), feeds only new complete
lines, and checks only the steps they settle. A file that is truncated, replaced (a new
inode, or other bytes where the last one read was) or deleted is said once, as a
``source_status`` event, and what it holds next is read from its start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

from envtui.context.local_time import system_clock
from envtui.rollout.checked import ConnectionEvents
from envtui.rollout.emit import RolloutEvents
from envtui.rollout.fork_parent import ParentRollouts
from envtui.rollout.state import BaselineLookup
from envtui.sources.file_windows import FileView, FileWindow, LocalFile
from envtui.vocabulary.events import Event, EventSink, SourceStatus, WarningMessage, thread_event
from envtui.vocabulary.profiles import Profile
from envtui.vocabulary.stopping import wait_for_stop
from envtui.vocabulary.terms import SourceState

POLL = 1.0
"""Seconds between two looks at a followed file that has not grown."""
CHUNK = 1 << 20
"""Bytes read at once; between two chunks the event loop runs, so the screen stays live."""
SOURCE = "rollout"
"""The name the follower's ``source_status`` events carry."""

Pause = Callable[[asyncio.Event], Awaitable[bool]]
"""The wait between two looks at a followed file that has not grown: True once the stop
event is set. :func:`read_window` takes one, so a test can count the looks."""


class RolloutFollower:
    """What following one rollout keeps between polls, and the events it turns lines into."""

    def __init__(
        self,
        name: str,
        sink: EventSink,
        *,
        profile: Profile | None = None,
        connection_events: ConnectionEvents | None = None,
        clock: Callable[[], datetime] = system_clock,
        baseline: Callable[[], BaselineLookup | None] | None = None,
    ) -> None:
        """``baseline`` gives a fork's parent snapshots (a fresh lookup at each re-read)."""
        self.name = name
        self._baseline = baseline
        self._sink = sink
        self._profile = profile
        self._connection_events = connection_events
        self._clock = clock
        self._state: SourceState = "up"  # said only when it changes
        self.restart_reading()

    def restart_reading(self) -> None:
        """Forget what was read: the file is read again from its first byte."""
        self.reading = RolloutEvents(
            self._baseline() if self._baseline is not None else None,
            profile=self._profile,
            connection_events=self._connection_events,
        )
        self.offset = 0  # bytes consumed, the partial last line included
        self.identity: str | None = None
        self._last_byte = b""
        self._partial = b""
        self._lines = 0

    # --- bytes to lines to events ----------------------------------------------------------

    def take(self, view: FileView) -> bool:
        """Consume one look at the file; False when it was replaced or cut (say why first)."""
        if self.identity is not None and view.identity != self.identity:
            return self._lost("replaced by a new file")
        if view.size < self.offset:
            return self._lost("truncated")
        data = view.data
        if self.offset > 0 and data:
            if data[:1] != self._last_byte:
                return self._lost("rewritten")
            data = data[1:]
        self.identity = view.identity
        if data:
            self.feed_bytes(data)
        return True

    def feed_bytes(self, data: bytes) -> None:
        self.offset += len(data)
        self._last_byte = data[-1:]
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        for raw in lines:
            self._line(raw)

    def finish(self) -> None:
        """The end of a file that is not followed: its last line and last step count too."""
        if self._partial:
            self._line(self._partial)
            self._partial = b""
        self._emit(self.reading.finish())

    def _line(self, raw: bytes) -> None:
        self._lines += 1
        events, broken = self.reading.read_line(self._lines, raw.decode("utf-8", "replace"))
        self._emit(events)
        for number in broken:
            self._say(WarningMessage(message=f"{self.name}: line {number} is not JSON; skipped"))

    def _emit(self, events: list[Event]) -> None:
        for event in events:
            self._sink(event)

    # --- the file's own state -----------------------------------------------------------------

    def status(self, state: SourceState, reason: str | None = None) -> None:
        """Say the file's state once per change: ``down`` when gone, ``up`` when readable."""
        if state != self._state:
            self._state = state
            self._say(SourceStatus(source=SOURCE, state=state, reason=reason))

    def _lost(self, why: str) -> bool:
        self._say(SourceStatus(source=SOURCE, state="up", reason=f"{self.name} {why}: read again"))
        self.restart_reading()
        return False

    def _say(self, msg: WarningMessage | SourceStatus) -> None:
        self._sink(thread_event(msg, at=self._clock()))


async def poll_pause(stop: asyncio.Event) -> bool:
    """The follower's own :data:`Pause`: :data:`POLL` seconds, shorter when stopped."""
    return await wait_for_stop(stop, POLL)


async def read_window(
    window: FileWindow,
    follower: RolloutFollower,
    stop: asyncio.Event,
    *,
    follow: bool,
    pause: Pause = poll_pause,
) -> None:
    """Read ``window`` into ``follower`` until its end, and with ``follow`` on as it grows
    (``pause`` between two looks that found nothing new)."""
    while not stop.is_set():
        try:
            view = await window.read(follower.offset, CHUNK)
        except OSError as exc:
            view = None
            follower.status("down", f"{window.name}: cannot read: {exc.strerror or exc}")
        else:
            if view is None:
                follower.status("down", f"{window.name} was deleted")
                follower.restart_reading()  # a file that comes back is a new file
            else:
                follower.status("up", f"{window.name} is readable again")
        if view is not None:
            taken = follower.take(view)
            if not taken or follower.offset < view.size:  # more to read now
                await asyncio.sleep(0)
                continue
        if not follow:
            follower.finish()
            return
        if await pause(stop):
            return


async def follow_rollout(
    path: Path,
    sink: EventSink,
    stop: asyncio.Event,
    *,
    follow: bool = False,
    profile: Profile | None = None,
    connection_events: ConnectionEvents | None = None,
) -> None:
    """Emit a local rollout file's steps; with ``follow``, also those it gains later."""
    follower = RolloutFollower(
        str(path),
        sink,
        profile=profile,
        connection_events=connection_events,
        baseline=lambda: ParentRollouts(path),
    )
    await read_window(LocalFile(path), follower, stop, follow=follow)
