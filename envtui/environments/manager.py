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
dashboard's view, where the primary is the first environment that is ready right now)
through a :class:`~envtui.steps.board.StatusBoard`, the same board the app-server client
uses. The snapshot values themselves live in :mod:`envtui.steps.selection`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from envtui.context.local_time import system_clock
from envtui.environments.base import Environment, LiveStatus
from envtui.environments.observable import Subscription
from envtui.steps.board import StatusBoard
from envtui.steps.selection import (
    Readiness,
    Selection,
    SelectionSnapshot,
    entry_from_resolution,
)
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentRemoved,
    EnvironmentStatus,
    EventSink,
    WarningMessage,
    thread_event,
)
from envtui.vocabulary.stopping import cancel_and_wait
from envtui.vocabulary.terms import LOCAL_ID, ConnectionState, LiveState

ManagerMessage = (
    EnvironmentConnected
    | EnvironmentDisconnected
    | EnvironmentStatus
    | EnvironmentRemoved
    | WarningMessage
)


@dataclass
class _Selected:
    selection: Selection
    environment: Environment
    resolution: asyncio.Task[Readiness]
    listener: asyncio.Task[None] | None
    watcher: asyncio.Task[None]


class EnvironmentManager:
    """Registered environments, the current selection, and the events they produce."""

    def __init__(self, emit: EventSink, *, clock: Callable[[], datetime] = system_clock) -> None:
        self._emit_event = emit
        self._clock = clock
        self._registered: dict[str, Environment] = {}
        self._selected: list[_Selected] = []
        self._board = StatusBoard(self._live_state, self._describe)
        self._closed = False

    # --- registration ---------------------------------------------------------------------

    def register(self, environment: Environment) -> Environment | None:
        """Add an environment, or replace the instance with the same id; returns the old one.

        ``"local"`` is reserved for the local environment. The environment's notices (an
        accepted host key) become warnings of this manager's stream.
        """
        if environment.id == LOCAL_ID and environment.kind != "local":
            raise ValueError(f"the id {LOCAL_ID!r} is reserved for the local environment")
        old = self._registered.get(environment.id)
        self._registered[environment.id] = environment
        environment.on_note = lambda text: self._emit(
            WarningMessage(message=text, environment_id=environment.id)
        )
        return old

    def get(self, environment_id: str) -> Environment | None:
        return self._registered.get(environment_id)

    @property
    def selections(self) -> list[Selection]:
        return [s.selection for s in self._selected]

    # --- selection ------------------------------------------------------------------------

    def update_selections(self, selections: Sequence[Selection]) -> None:
        """Install a new selection list with Codex's reuse, replacement and abort rules."""
        result: list[_Selected] = []
        for selection in _first_of_each_id(selections):
            environment = self._registered.get(selection.environment_id)
            if environment is None:
                self._emit(
                    WarningMessage(
                        message=f"skipping unknown environment {selection.environment_id!r}",
                        environment_id=selection.environment_id,
                    )
                )
                continue
            result.append(self._select(selection, environment))
            environment.start()  # connect now (listeners already subscribed), even when the
            # resolution of a replaced instance is reused: that instance has its own connection
        previous, self._selected = self._selected, result
        self._cancel_dropped_tasks(previous, result)
        self._board.set_order(s.selection.environment_id for s in result)
        now_selected = {s.selection.environment_id for s in result}
        for old in previous:
            if old.selection.environment_id not in now_selected:
                self._emit(EnvironmentRemoved(environment_id=old.selection.environment_id))
        fresh = [
            s.environment.id
            for s in result
            if not any(p.environment is s.environment for p in previous)
        ]
        for env_id in fresh:
            self._board.forget(env_id)  # a new instance starts afresh
        self._report(*fresh)

    def _select(self, selection: Selection, environment: Environment) -> _Selected:
        """Keep the listener of the same instance and reuse a resolution that still holds."""
        old = self._find(selection.environment_id)
        if old is not None and old.environment is environment:
            listener, watcher = old.listener, old.watcher
        else:
            # Subscribing before the resolution starts lets the first connection be seen.
            listener = self._spawn_listener(environment)
            watcher = self._spawn_watcher(environment)
        if (
            old is not None
            and old.selection.cwd == selection.cwd
            and old.selection.workspace_roots == selection.workspace_roots
            and not _failed(old.resolution)
        ):
            resolution = old.resolution  # reuse the running or finished resolution
        else:
            resolution = self._spawn_resolution(environment)
        return _Selected(selection, environment, resolution, listener, watcher)

    @staticmethod
    def _cancel_dropped_tasks(previous: list[_Selected], kept: list[_Selected]) -> None:
        still_used = {t for s in kept for t in (s.listener, s.watcher, s.resolution)}
        for old in previous:
            for task in (old.listener, old.watcher, old.resolution):
                if task is not None and task not in still_used:
                    task.cancel()

    def _find(self, environment_id: str) -> _Selected | None:
        return next(
            (s for s in self._selected if s.selection.environment_id == environment_id), None
        )

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
                if state == "connected":
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
                if self._find(environment.id) is not None:
                    self._report(environment.id)
        finally:
            changes.close()

    # --- live status and primary ------------------------------------------------------------

    def _live_state(self, environment_id: str) -> LiveState:
        selected = self._find(environment_id)
        return selected.environment.status.value.state if selected else "unavailable"

    def _describe(self, environment_id: str) -> EnvironmentStatus:
        selected = self._find(environment_id)
        assert selected is not None, "the board only asks about selected environments"
        environment = selected.environment
        status = environment.status.value
        readiness = status.readiness
        return EnvironmentStatus(
            environment_id=environment.id,
            kind=environment.kind,
            status=status.state,
            shell=readiness.shell_name if readiness else None,
            shell_path=readiness.shell_path if readiness else None,
            cwd=selected.selection.cwd,
            error=status.error,
            next_retry_at=status.next_retry_at,
        )

    def _report(self, *changed: str) -> None:
        for msg in self._board.report(*changed):
            self._emit(msg)

    def _emit(self, msg: ManagerMessage) -> None:
        if not self._closed:
            self._emit_event(thread_event(msg, at=self._clock()))

    # --- snapshots ---------------------------------------------------------------------------

    def snapshot(self) -> SelectionSnapshot:
        """A non-blocking snapshot: unfinished resolutions are Starting."""
        return SelectionSnapshot(
            tuple(
                entry_from_resolution(
                    s.selection, s.environment.kind, s.environment.is_remote, s.resolution
                )
                for s in self._selected
            )
        )

    async def snapshot_blocking(self, timeout: float | None = None) -> SelectionSnapshot:
        """Wait for every resolution (at most ``timeout`` seconds), then take the snapshot."""
        pending = [s.resolution for s in self._selected if not s.resolution.done()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)
        return self.snapshot()

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
        await cancel_and_wait(*tasks)
        await asyncio.gather(
            *(env.aclose() for env in self._registered.values()), return_exceptions=True
        )


def _first_of_each_id(selections: Sequence[Selection]) -> list[Selection]:
    """Codex de-duplicates a selection list by id; the first occurrence wins."""
    seen: dict[str, Selection] = {}
    for selection in selections:
        seen.setdefault(selection.environment_id, selection)
    return list(seen.values())


def _failed(resolution: asyncio.Future[Readiness]) -> bool:
    return resolution.done() and (resolution.cancelled() or resolution.exception() is not None)


def _consume_exception(task: asyncio.Task[Readiness]) -> None:
    """A failed resolution is a value (a Failed entry), not an unhandled task error."""
    if not task.cancelled():
        task.exception()
