"""Attaching to a real Codex: the app-server's environments, and its thread's rollout.

The :class:`~envtui.environments.app_server.AppServerClient` gives the environments and
their connection events; the thread's rollout file, followed as it grows (locally, or on
the app-server's host over the same SSH connection), gives the steps and their findings,
with the stale-available rule fed by the connection events heard so far. When the
app-server dies that is said, as an error, and every environment shows it; every process
it started is ended on the way out, also those in process groups of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shlex
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncssh

from envtui.context.local_time import system_clock
from envtui.environments.app_server import AppServerClient, CodexError, CodexOptions
from envtui.environments.channels import SshProcessChannel
from envtui.environments.jsonrpc import JsonRpcClient
from envtui.environments.remote_commands import run_bounded
from envtui.events import EventSink, WarningMessage, thread_event
from envtui.limits import KIB, MIB, TooLargeError
from envtui.sources.rollout_follow import follow_rollout, follow_steps
from envtui.steps.rollout import Rollout, read_rollout_lines
from envtui.stopping import cancel_and_wait, wait_for_stop

__all__ = ["CodexError", "CodexOptions", "CodexSource"]

APP_SERVER_EXITED = "codex app-server exited"
MAX_REMOTE_ROLLOUT = 256 * MIB
"""The largest rollout read from the app-server's host (it is read again as it grows)."""
REMOTE_TIMEOUT = 30.0
_THREAD_ID = re.compile(r"[A-Za-z0-9-]{1,80}")


class CodexSource:
    """The dashboard's source for ``envtui codex`` and ``envtui events --codex``."""

    def __init__(
        self,
        options: CodexOptions,
        sink: EventSink,
        *,
        clock: Callable[[], datetime] = system_clock,
    ) -> None:
        self.options = options
        self._sink = sink
        self._clock = clock
        self.client = AppServerClient(options, sink, clock=clock)
        self.died = False  # the app-server exited while envtui was attached
        self.death: str | None = None
        """Why it exited, in the words of the notice (None while it runs)."""

    @property
    def thread_id(self) -> str | None:
        return self.client.thread_id

    def _emit(self, msg: WarningMessage) -> None:
        self._sink(thread_event(msg, at=self._clock()))

    async def run(self, stop: asyncio.Event) -> None:
        """Attach until ``stop``; raises :class:`CodexError` when the app-server cannot start."""
        tasks: list[asyncio.Task[None]] = []
        try:
            rpc = await self._start(stop)
            if rpc is None:
                return  # stopped while the app-server was still starting
            self._emit(
                WarningMessage(
                    message=f"attached to codex thread {self.thread_id}", severity="info"
                )
            )
            if self.options.prompt:
                await self.client.send_prompt(rpc, self.options.prompt)
            loop = asyncio.get_running_loop()
            tasks.append(loop.create_task(self.client.poll(rpc, stop)))
            tasks.append(loop.create_task(self._follow(stop)))
            await self._until_stop_or_death(rpc, stop)
        finally:
            await cancel_and_wait(*tasks)
            await self.client.aclose()

    async def _start(self, stop: asyncio.Event) -> JsonRpcClient | None:
        """The started client, or None when ``stop`` came first (the handshake may take a
        minute; a signal must not wait for it)."""
        starting = asyncio.ensure_future(self.client.start())
        stopped = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({starting, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await cancel_and_wait(stopped)
            if not starting.done():
                await cancel_and_wait(starting)
        return None if starting.cancelled() else starting.result()

    async def _until_stop_or_death(self, rpc: JsonRpcClient, stop: asyncio.Event) -> None:
        stopped: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        closed: asyncio.Future[Any] = asyncio.ensure_future(asyncio.shield(rpc.closed))
        await asyncio.wait([closed, stopped], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        closed.cancel()
        if rpc.closed.done() and not stop.is_set():
            self.died = True
            self.death = f"{APP_SERVER_EXITED}: {rpc.closed.result()}"
            self._emit(WarningMessage(message=self.death, severity="error"))
            self.client.mark_all_unavailable(APP_SERVER_EXITED)

    # --- the thread's rollout -----------------------------------------------------------------

    async def _follow(self, stop: asyncio.Event) -> None:
        channel = self.client.channel
        if isinstance(channel, SshProcessChannel):
            await self._follow_remote_rollout(channel.connection, stop)
        else:
            await self._follow_rollout(stop)

    def rollout_path(self) -> Path | None:
        home = self.options.codex_home or Path.home() / ".codex"
        if self.thread_id is None:
            return None
        found = sorted(home.glob(f"sessions/*/*/*/rollout-*-{self.thread_id}.jsonl"))
        return found[-1] if found else None

    async def _follow_rollout(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            path = self.rollout_path()
            if path is not None:
                await follow_rollout(
                    path,
                    self._sink,
                    stop,
                    follow=True,
                    connection_events=lambda: list(self.client.connection_events),
                )
                return
            if await wait_for_stop(stop, self.options.poll_interval):
                return

    async def _follow_remote_rollout(
        self, connection: asyncssh.SSHClientConnection, stop: asyncio.Event
    ) -> None:
        """The rollout on the app-server's host, read over the same SSH connection."""
        path = await self._remote_rollout_path(connection, stop)
        if path is None:
            return
        host = self.options.ssh.host if self.options.ssh else ""
        too_large: list[str] = []  # said once, not at every poll

        async def load() -> Rollout | None:
            try:
                result = await run_bounded(
                    connection,
                    f"cat -- {shlex.quote(path)}",
                    limit=MAX_REMOTE_ROLLOUT,
                    timeout=REMOTE_TIMEOUT,
                    what="the rollout",
                )
            except TooLargeError as exc:
                if not too_large:
                    too_large.append(str(exc))
                    self._emit(WarningMessage(message=f"{host}:{path}: {exc}; not read"))
                return None
            except (asyncssh.Error, OSError, TimeoutError):
                return None
            return read_rollout_lines(result.stdout.splitlines())

        await follow_steps(
            load,
            f"{host}:{path}",
            self._sink,
            stop,
            follow=True,
            connection_events=lambda: list(self.client.connection_events),
        )

    async def _remote_rollout_path(
        self, connection: asyncssh.SSHClientConnection, stop: asyncio.Event
    ) -> str | None:
        """The thread's rollout file on the host, once it exists; None when stopped first."""
        thread = self.thread_id or ""
        if not _THREAD_ID.fullmatch(thread):
            return None
        home = (
            shlex.quote(str(self.options.codex_home))
            if self.options.codex_home
            else '"$HOME"/.codex'
        )
        find = f"ls -1 -- {home}/sessions/*/*/*/rollout-*-{thread}.jsonl 2>/dev/null | tail -n 1"
        while not stop.is_set():
            with contextlib.suppress(asyncssh.Error, OSError, TimeoutError, TooLargeError):
                found = await run_bounded(
                    connection, find, limit=64 * KIB, timeout=REMOTE_TIMEOUT, what="file list"
                )
                if found.stdout.strip():
                    return found.stdout.strip()
            if await wait_for_stop(stop, self.options.poll_interval):
                return None
        return None
