"""The lifecycle every remote environment shares: establish, serve, lose, back off, retry.

A transport says how to establish a connection (returning the readiness and a future that
completes with the reason the connection was lost) and how to tear it down. This class
turns that into statuses and connection transitions: starting while trying, ready and
connected while up, unavailable with the reason and the time of the next try while
waiting. A :class:`PermanentError` (a host-key problem, a bad program path) is not
retried: it needs a change of config.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import ClassVar, Generic, Protocol, TypeVar

import asyncssh

from envtui.context.local_time import system_clock
from envtui.environments.backoff import Backoff
from envtui.environments.base import Environment, LiveStatus
from envtui.steps.selection import Readiness
from envtui.vocabulary import debug_log

log = debug_log.logger(__name__)


class PermanentError(Exception):
    """A failure that retrying cannot fix."""


class RetryableError(Exception):
    """A failure worth another try after the backoff; the message is the reason shown."""


class RetrySettings(Protocol):
    """What every remote transport's settings say about retrying."""

    @property
    def backoff_initial(self) -> float: ...

    @property
    def backoff_max(self) -> float: ...


SettingsT = TypeVar("SettingsT", bound=RetrySettings)


class RemoteEnvironment(Environment, Generic[SettingsT]):
    is_remote: ClassVar[bool] = True

    def __init__(
        self,
        environment_id: str,
        cwd: str,
        settings: SettingsT,
        *,
        clock: Callable[[], datetime] = system_clock,
        client_keys: Sequence[asyncssh.SSHKey] | None = None,
    ) -> None:
        """``client_keys`` are keys held in memory (tests and the demo), used over SSH."""
        super().__init__(environment_id, cwd)
        self.settings = settings
        self._client_keys = client_keys
        self._backoff = Backoff(settings.backoff_initial, settings.backoff_max)
        self._clock = clock

    @abstractmethod
    async def _establish(self) -> tuple[Readiness, asyncio.Future[str]]:
        """Connect and handshake; return the readiness and a future of the loss reason."""

    @abstractmethod
    async def _teardown(self) -> None:
        """Close whatever :meth:`_establish` opened (also after it failed half-way)."""

    def _describe(self, exc: BaseException) -> str:
        """One line for an unexpected failure of :meth:`_establish`."""
        return str(exc) or type(exc).__name__

    async def _run(self) -> None:
        while True:
            self._set_status(LiveStatus("starting"))
            try:
                readiness, lost = await self._establish()
            except PermanentError as exc:
                await self._teardown()
                self._set_status(LiveStatus("unavailable", error=str(exc)))
                return
            except (OSError, TimeoutError, RetryableError, ConnectionError, EOFError) as exc:
                await self._teardown()
                await self._wait_to_retry(self._describe(exc))
                continue
            except Exception as exc:  # a library error type the transport did not foresee
                await self._teardown()
                await self._wait_to_retry(self._describe(exc))
                continue
            self._backoff.reset()
            log.debug("%s ready: %s", self.id, readiness)
            self._set_connected(True)
            self._set_status(LiveStatus("ready", readiness=readiness))
            reason = await lost
            await self._teardown()
            self._set_connected(False)
            await self._wait_to_retry(reason)

    async def _wait_to_retry(self, reason: str) -> None:
        delay = self._backoff.next_delay()
        log.debug("%s unavailable (%s); next try in %.1f s", self.id, reason, delay)
        retry_at = self._clock() + timedelta(seconds=delay)
        self._set_status(LiveStatus("unavailable", error=reason, next_retry_at=retry_at))
        await asyncio.sleep(delay)

    async def _close_resources(self) -> None:
        await self._teardown()
