"""Codex's environment selection semantics, and the events envtui derives from them.

The rules are ``codex-protocol.md`` §1 and §2 (``environment_selection.rs`` in Codex):

* a selection list is de-duplicated by id, the **first** occurrence winning; an unknown id
  is skipped with a warning;
* a resolution is **reused** when id, cwd and workspace roots all match and it did not
  fail; a failed one is replaced on the next update (and only then);
* a connection **listener** is kept for the same environment *instance* and aborted when
  the environment leaves the selection or is replaced under the same id;
* a snapshot lists Ready, Starting and Failed entries in selection order; the **primary**
  is the first Ready one.

On top of that the manager reports envtui's live ``environment_status`` events (the
dashboard's view, where the primary is the first environment that is ready right now).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from envtui.context.local_time import system_clock
from envtui.environments.base import (
    ConnectionState,
    Environment,
    LiveStatus,
    Readiness,
    ResolutionError,
)
from envtui.environments.observable import Subscription
from envtui.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentRemoved,
    EnvironmentStatus,
    Event,
    WarningMessage,
    thread_event,
)

LOCAL_ID = "local"
"""The id Codex reserves for the built-in local environment."""

EntryState = Literal["ready", "starting", "failed"]
EventSink = Callable[[Event], None]
ManagerMessage = (
    EnvironmentConnected
    | EnvironmentDisconnected
    | EnvironmentStatus
    | EnvironmentRemoved
    | WarningMessage
)


@dataclass(frozen=True)
class Selection:
    """One selected environment: its id, the cwd the context reports, and its roots."""

    environment_id: str
    cwd: str
    workspace_roots: tuple[str, ...] = ()


@dataclass(frozen=True)
class SnapshotEntry:
    """One selected environment in a snapshot: Ready, Starting or Failed."""

    selection: Selection
    kind: str
    is_remote: bool
    state: EntryState
    readiness: Readiness | None = None
    error: str | None = None
    resolution: asyncio.Future[Readiness] | None = field(default=None, compare=False, repr=False)

    @property
    def environment_id(self) -> str:
        return self.selection.environment_id


@dataclass(frozen=True)
class EnvironmentSnapshot:
    """Every selected environment in selection order, each in one state."""

    entries: tuple[SnapshotEntry, ...] = ()

    def ready(self) -> list[SnapshotEntry]:
        return [e for e in self.entries if e.state == "ready"]

    def starting(self) -> list[SnapshotEntry]:
        return [e for e in self.entries if e.state == "starting"]

    def failed(self) -> list[SnapshotEntry]:
        return [e for e in self.entries if e.state == "failed"]

    def primary(self) -> SnapshotEntry | None:
        """The first Ready entry: a later one when selection #0 is starting or failed."""
        return next((e for e in self.entries if e.state == "ready"), None)

    def local(self) -> SnapshotEntry | None:
        """The first Ready entry that is not remote."""
        return next((e for e in self.entries if e.state == "ready" and not e.is_remote), None)

    def single_local_environment(self) -> SnapshotEntry | None:
        """None while anything starts; else the only Ready entry, if it is local."""
        if self.starting():
            return None
        ready = self.ready()
        return ready[0] if len(ready) == 1 and not ready[0].is_remote else None

    def primary_workspace_roots(self) -> tuple[str, ...]:
        """The roots of selection #0, whatever its state."""
        return self.entries[0].selection.workspace_roots if self.entries else ()


@dataclass
class _Selected:
    selection: Selection
    environment: Environment
    resolution: asyncio.Task[Readiness]
    listener: asyncio.Task[None] | None
    watcher: asyncio.Task[None]


def _peek(
    selection: Selection, kind: str, is_remote: bool, resolution: asyncio.Future[Readiness]
) -> SnapshotEntry:
    """The entry as the resolution stands now: Starting, Ready or Failed."""
    if not resolution.done():
        return SnapshotEntry(selection, kind, is_remote, "starting", resolution=resolution)
    if resolution.cancelled():
        return SnapshotEntry(
            selection,
            kind,
            is_remote,
            "failed",
            error="resolution cancelled",
            resolution=resolution,
        )
    error = resolution.exception()
    if error is None:
        return SnapshotEntry(
            selection,
            kind,
            is_remote,
            "ready",
            readiness=resolution.result(),
            resolution=resolution,
        )
    reason = error.reason if isinstance(error, ResolutionError) else repr(error)
    return SnapshotEntry(selection, kind, is_remote, "failed", error=reason, resolution=resolution)


class EnvironmentManager:
    """Registered environments, the current selection, and the events they produce."""

    def __init__(self, emit: EventSink, *, clock: Callable[[], datetime] = system_clock) -> None:
        self._emit_event = emit
        self._clock = clock
        self._registered: dict[str, Environment] = {}
        self._selected: list[_Selected] = []
        self._primary_id: str | None = None
        self._reported: dict[str, EnvironmentStatus] = {}
        self._closed = False

    # --- registration ---------------------------------------------------------------------

    def register(self, environment: Environment) -> Environment | None:
        """Add an environment, or replace the instance with the same id; returns the old one.

        ``"local"`` is reserved for the local environment.
        """
        if environment.id == LOCAL_ID and environment.kind != "local":
            raise ValueError(f"the id {LOCAL_ID!r} is reserved for the local environment")
        old = self._registered.get(environment.id)
        self._registered[environment.id] = environment
        return old

    def get(self, environment_id: str) -> Environment | None:
        return self._registered.get(environment_id)

    @property
    def selections(self) -> list[Selection]:
        return [s.selection for s in self._selected]

    # --- selection ------------------------------------------------------------------------

    def update_selections(self, selections: Sequence[Selection]) -> None:
        """Install a new selection list with Codex's reuse, replacement and abort rules."""
        seen: set[str] = set()
        result: list[_Selected] = []
        for selection in selections:
            env_id = selection.environment_id
            if env_id in seen:
                continue  # duplicate id: the first one wins
            seen.add(env_id)
            environment = self._registered.get(env_id)
            if environment is None:
                self._emit(
                    WarningMessage(
                        message=f"skipping unknown environment {env_id!r}", environment_id=env_id
                    )
                )
                continue
            old = self._find(env_id)
            same_instance = old is not None and old.environment is environment
            # Subscribing before the resolution starts lets the first connection be seen.
            if same_instance and old is not None:
                listener, watcher = old.listener, old.watcher
            else:
                listener = self._spawn_listener(environment)
                watcher = self._spawn_watcher(environment)
            if (
                old is not None
                and old.selection.cwd == selection.cwd
                and old.selection.workspace_roots == selection.workspace_roots
                and not self._failed(old.resolution)
            ):
                resolution = old.resolution  # reuse the running or finished resolution
            else:
                resolution = self._spawn_resolution(environment)
            result.append(_Selected(selection, environment, resolution, listener, watcher))
            environment.start()  # connect now (listeners already subscribed), even when the
            # resolution of a replaced instance is reused: that instance has its own connection
        previous, self._selected = self._selected, result
        kept_tasks = {id(t) for s in result for t in (s.listener, s.watcher, s.resolution)}
        for old_selected in previous:
            for task in (old_selected.listener, old_selected.watcher, old_selected.resolution):
                if task is not None and id(task) not in kept_tasks:
                    task.cancel()
        now_selected = {s.selection.environment_id for s in result}
        for old_selected in previous:
            if old_selected.selection.environment_id not in now_selected:
                self._reported.pop(old_selected.selection.environment_id, None)
                self._emit(EnvironmentRemoved(environment_id=old_selected.selection.environment_id))
        for selected in result:
            if not any(p.environment is selected.environment for p in previous):
                self._reported.pop(selected.environment.id, None)  # a new instance starts afresh
                self._report_status(selected.environment)
        self._update_primary(changed=None)

    def _find(self, environment_id: str) -> _Selected | None:
        return next(
            (s for s in self._selected if s.selection.environment_id == environment_id), None
        )

    @staticmethod
    def _failed(resolution: asyncio.Future[Readiness]) -> bool:
        return resolution.done() and (resolution.cancelled() or resolution.exception() is not None)

    def _spawn_resolution(self, environment: Environment) -> asyncio.Task[Readiness]:
        task = asyncio.get_running_loop().create_task(
            environment.wait_ready(), name=f"resolve:{environment.id}"
        )
        task.add_done_callback(_consume_exception)
        return task

    def _spawn_listener(self, environment: Environment) -> asyncio.Task[None] | None:
        subscription = environment.subscribe_connection()
        if subscription is None:
            return None  # local environments have no connection state
        return asyncio.get_running_loop().create_task(
            self._forward_connection(environment.id, subscription), name=f"listen:{environment.id}"
        )

    def _spawn_watcher(self, environment: Environment) -> asyncio.Task[None]:
        subscription = environment.status.subscribe()
        return asyncio.get_running_loop().create_task(
            self._forward_status(environment, subscription), name=f"watch:{environment.id}"
        )

    async def _forward_connection(
        self, environment_id: str, changes: Subscription[ConnectionState]
    ) -> None:
        try:
            async for state in changes:
                if state is ConnectionState.CONNECTED:
                    self._emit(EnvironmentConnected(environment_id=environment_id))
                else:
                    self._emit(EnvironmentDisconnected(environment_id=environment_id))
        finally:
            changes.close()

    async def _forward_status(
        self, environment: Environment, changes: Subscription[LiveStatus]
    ) -> None:
        try:
            async for _ in changes:
                self._update_primary(changed=environment)
        finally:
            changes.close()

    # --- live status and primary ------------------------------------------------------------

    def _live_primary(self) -> str | None:
        return next(
            (
                s.selection.environment_id
                for s in self._selected
                if s.environment.status.value.is_ready
            ),
            None,
        )

    def _update_primary(self, changed: Environment | None) -> None:
        old_primary, self._primary_id = self._primary_id, self._live_primary()
        reported: set[str] = set()
        if changed is not None and self._find(changed.id) is not None:
            self._report_status(changed)
            reported.add(changed.id)
        if old_primary != self._primary_id:
            for env_id in (old_primary, self._primary_id):
                selected = self._find(env_id) if env_id is not None else None
                if selected is not None and env_id not in reported:
                    self._report_status(selected.environment)
                    reported.add(selected.environment.id)

    def _report_status(self, environment: Environment) -> None:
        """Emit the environment's status, unless it is exactly what was last reported.

        Status changes are observed by one watcher per environment, but the primary is
        computed from every environment's current value; a watcher can therefore see a
        change before the watcher of the changed environment runs. Comparing with the last
        report makes each change arrive exactly once.
        """
        status = environment.status.value
        readiness = status.readiness
        selected = self._find(environment.id)
        msg = EnvironmentStatus(
            environment_id=environment.id,
            kind=environment.kind,
            status=status.state,
            primary=environment.id == self._live_primary(),
            shell=readiness.shell_name if readiness else None,
            shell_path=readiness.shell_path if readiness else None,
            cwd=selected.selection.cwd if selected else environment.cwd,
            error=status.error,
            next_retry_at=status.next_retry_at,
        )
        if self._reported.get(environment.id) != msg:
            self._reported[environment.id] = msg
            self._emit(msg)

    def _emit(self, msg: ManagerMessage) -> None:
        if not self._closed:
            self._emit_event(thread_event(msg, at=self._clock()))

    # --- snapshots ---------------------------------------------------------------------------

    def snapshot(self) -> EnvironmentSnapshot:
        """A non-blocking snapshot: unfinished resolutions are Starting."""
        return EnvironmentSnapshot(
            tuple(
                _peek(s.selection, s.environment.kind, s.environment.is_remote, s.resolution)
                for s in self._selected
            )
        )

    async def snapshot_blocking(self, timeout: float | None = None) -> EnvironmentSnapshot:
        """Wait for every resolution (at most ``timeout`` seconds), then take the snapshot."""
        pending = [s.resolution for s in self._selected if not s.resolution.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        return self.snapshot()

    @staticmethod
    def refresh_readiness(snapshot: EnvironmentSnapshot) -> EnvironmentSnapshot:
        """Promote finished resolutions; never adopt a newer selection (fixed for the turn)."""
        entries = []
        for entry in snapshot.entries:
            if entry.state == "starting" and entry.resolution is not None:
                entries.append(
                    _peek(entry.selection, entry.kind, entry.is_remote, entry.resolution)
                )
            else:
                entries.append(entry)
        return EnvironmentSnapshot(tuple(entries))

    # --- shutdown ------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Abort every listener and resolution, and close every registered environment."""
        self._closed = True
        tasks = [
            t
            for s in self._selected
            for t in (s.listener, s.watcher, s.resolution)
            if t is not None
        ]
        self._selected = []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.gather(
            *(env.aclose() for env in self._registered.values()), return_exceptions=True
        )


def _consume_exception(task: asyncio.Task[Readiness]) -> None:
    """A failed resolution is a value (a Failed entry), not an unhandled task error."""
    if not task.cancelled():
        task.exception()
