"""Environments a test drives by hand, for the selection rules."""

from __future__ import annotations

import asyncio
from typing import ClassVar, TypeVar

from envtui.environments.base import Environment, LiveStatus
from envtui.steps.selection import Readiness
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
)

M = TypeVar("M")


class FakeRemote(Environment):
    kind: ClassVar[str] = "fake-remote"
    is_remote: ClassVar[bool] = True

    def __init__(self, environment_id: str, cwd: str = "/w") -> None:
        super().__init__(environment_id, cwd)
        self.started = 0

    async def _run(self) -> None:
        self.started += 1
        await asyncio.Event().wait()

    def become_ready(self, shell: str = "bash") -> None:
        self._set_connected(True)
        self._set_status(LiveStatus("ready", readiness=Readiness(shell, f"/bin/{shell}", self.cwd)))

    def fail(self, reason: str = "refused") -> None:
        self._set_connected(False)
        self._set_status(LiveStatus("unavailable", error=reason))

    def restart(self) -> None:
        self._set_status(LiveStatus("starting"))


class FakeLocal(FakeRemote):
    kind: ClassVar[str] = "local"
    is_remote: ClassVar[bool] = False


async def settle() -> None:
    """Let every ready task run until nothing is left to do."""
    for _ in range(20):
        await asyncio.sleep(0)  # a turn of the event loop, not a wait


class Recorder:
    """An event sink that keeps what it was given."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of_type(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.msg.type == kind]

    def messages(self, cls: type[M]) -> list[M]:
        return [e.msg for e in self.events if isinstance(e.msg, cls)]

    def statuses(self) -> list[tuple[str, str, bool]]:
        return [(m.environment_id, m.status, m.primary) for m in self.messages(EnvironmentStatus)]

    def messages_of_status(self, status: str) -> list[EnvironmentStatus]:
        return [m for m in self.messages(EnvironmentStatus) if m.status == status]

    def connection_events(self) -> list[tuple[str, str, str]]:
        return [
            (e.id, e.msg.type, e.msg.environment_id)
            for e in self.events
            if isinstance(e.msg, EnvironmentConnected | EnvironmentDisconnected)
        ]
