"""The transport interface every environment implements: local, ssh, exec-server.

An :class:`Environment` is one *instance*: connection state belongs to it, so Codex keeps a
listener only while the same instance stays selected. It reports two things:

* its **live status** (starting, ready with shell and cwd, unavailable with a reason and
  the time of the next try), which the dashboard shows;
* for remote environments, its **connection state**, whose transitions become Codex's
  ``environment_connected`` / ``environment_disconnected`` events. Local environments have
  no connection state and never emit them.

A transport only has to implement :meth:`Environment._run`: bring the environment up, keep
it up, publish what happens with :meth:`_set_status` and :meth:`_set_connected`.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from envtui.environments.observable import Observable, Subscription
from envtui.steps.selection import Readiness, ResolutionError
from envtui.vocabulary.stopping import cancel_and_wait
from envtui.vocabulary.terms import ConnectionState, LiveState

NoteSink = Callable[[str], None]


@dataclass(frozen=True)
class LiveStatus:
    state: LiveState
    readiness: Readiness | None = None
    error: str | None = None
    next_retry_at: datetime | None = None

    @property
    def is_ready(self) -> bool:
        return self.state == "ready"


STARTING = LiveStatus("starting")


class Environment(ABC):
    """One environment instance. Start it once; close it once; watch it in between."""

    kind: ClassVar[str]
    is_remote: ClassVar[bool]

    def __init__(self, environment_id: str, cwd: str) -> None:
        self.id = environment_id
        self.cwd = cwd
        self.status: Observable[LiveStatus] = Observable(STARTING)
        self.connection: Observable[ConnectionState] = Observable("disconnected")
        self.on_note: NoteSink | None = None
        """Called with each notice worth an operator's attention (an accepted host key)."""
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    # --- what the manager uses -----------------------------------------------------------

    def start(self) -> None:
        """Begin bringing the environment up; calling it again does nothing."""
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(
                self._supervise(), name=f"environment:{self.id}"
            )

    async def wait_ready(self) -> Readiness:
        """Codex's resolution: the readiness once ready, or the failure as it stands.

        An environment that is unavailable right now fails at once with its reason, even
        if it will be tried again: Codex replaces a failed resolution on the next selection
        update, and envtui's retries feed that.
        """
        self.start()
        changes = self.status.subscribe()
        try:
            status = self.status.value
            while status.state == "starting":
                status = await changes.next()
        finally:
            changes.close()
        if status.readiness is not None:
            return status.readiness
        raise ResolutionError(status.error or "unavailable")

    def subscribe_connection(self) -> Subscription[ConnectionState] | None:
        """Connection transitions from now on; None for an environment without connections."""
        return self.connection.subscribe() if self.is_remote else None

    async def aclose(self) -> None:
        """Stop retrying and close every connection and child process."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            await cancel_and_wait(task)
        await self._close_resources()
        self._set_connected(False)

    # --- what a transport implements ---------------------------------------------------

    @abstractmethod
    async def _run(self) -> None:
        """Bring the environment up and keep it up until cancelled."""

    async def _close_resources(self) -> None:  # noqa: B027 - optional hook
        """Close connections and processes still open after :meth:`_run` was cancelled."""

    def _set_status(self, status: LiveStatus) -> None:
        self.status.set(status)

    def _set_connected(self, connected: bool) -> None:
        if self.is_remote:
            self.connection.set("connected" if connected else "disconnected")

    def _note(self, text: str) -> None:
        """Pass a notice on to whoever manages this environment (dropped when nobody does)."""
        if self.on_note is not None:
            self.on_note(text)

    async def _supervise(self) -> None:
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a transport bug must not leave the status "starting"
            self._set_status(LiveStatus("unavailable", error=f"internal error: {exc!r}"))
