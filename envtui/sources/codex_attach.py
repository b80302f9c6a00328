"""Attaching to a real Codex: the app-server's environments, and its thread's rollout.

The :class:`~envtui.environments.app_server.AppServerClient` gives the environments and
their connection events; the thread's rollout file, followed as it grows (locally, or on
the app-server's host over the same SSH connection), gives the steps and their findings,
with the stale-available rule fed by the connection events heard so far.

When the app-server stops (it exits, or the SSH link to its host is lost) that is said as
a ``source_status`` event with the reason, and every environment shows it. With a
``restart`` backoff (the dashboard's) it is then started again, after a capped and
jittered delay, and resumes the same thread (``thread/resume``); the rollout follower keeps
its offset, so nothing is read twice. Every process it started is ended on the way out,
also those in process groups of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import shlex
from collections import deque
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncssh

from envtui.context.local_time import system_clock
from envtui.environments.app_server import AppServerClient, CodexError, CodexOptions
from envtui.environments.backoff import Backoff
from envtui.environments.channels import SshProcessChannel
from envtui.environments.jsonrpc import JsonRpcClient
from envtui.environments.remote_commands import run_bounded
from envtui.rollout.fork_parent import ParentRollouts
from envtui.sources.file_windows import LocalFile, SshFile
from envtui.sources.rollout_follow import RolloutFollower, read_window
from envtui.vocabulary.events import (
    Event,
    EventSink,
    WarningMessage,
    connection_change,
)
from envtui.vocabulary.limits import KIB, TooLargeError
from envtui.vocabulary.source_voice import SourceVoice
from envtui.vocabulary.stopping import cancel_and_wait, wait_for_stop
from envtui.vocabulary.terms import SourceState
from envtui.vocabulary.thread_messages import RequestAnswered

__all__ = ["CodexError", "CodexOptions", "CodexSource", "OperatedCodex"]

APP_SERVER_EXITED = "codex app-server exited"
REMOTE_TIMEOUT = 30.0
"""Seconds a command on the app-server's host may take (listing the sessions)."""
SOURCE = "app-server"
"""The name this source's ``source_status`` events carry."""
CONNECTION_HISTORY = 20
"""Connection events kept per environment for the stale-available rule: steps are checked as
they are followed, so only the recent past of each environment matters."""
_THREAD_ID = re.compile(r"[A-Za-z0-9-]{1,80}")


def restart_backoff() -> Backoff:
    """The dashboard's restart delays: 1 s, doubling, at most a minute."""
    return Backoff(1.0, 60.0)


class CodexSource:
    """The dashboard's source for ``envtui codex`` and ``envtui events --codex``."""

    def __init__(
        self,
        options: CodexOptions,
        sink: EventSink,
        *,
        clock: Callable[[], datetime] = system_clock,
        restart: Backoff | None = None,
        operator: bool = False,
    ) -> None:
        """``operator``: someone answers Codex's requests through :meth:`answer`."""
        self.options = options
        self._sink = sink
        self._clock = clock
        self._voice = SourceVoice(SOURCE, clock, sink)
        self._restart = restart
        self._operator = operator
        self.client = AppServerClient(options, self._hear, clock=clock, operator=operator)
        self.died = False  # the app-server stopped while envtui was attached
        self.death: str | None = None
        """Why it stopped last, in the words of the notice (None while it runs)."""
        self.restarts = 0
        self._history: dict[str, deque[Event]] = {}
        self._follower: RolloutFollower | None = None

    @property
    def thread_id(self) -> str | None:
        return self.client.thread_id

    def _status(self, state: SourceState, reason: str | None = None, delay: float = 0) -> None:
        self._voice.status(
            state, reason, thread=self.thread_id, restarts=self.restarts, retry_in=delay
        )

    def _hear(self, event: Event) -> None:
        """The client's events pass through; connection events are also kept, bounded."""
        change = connection_change(event.msg)
        if change is not None:
            history = self._history.setdefault(change[0], deque(maxlen=CONNECTION_HISTORY))
            history.append(event)
        self._sink(event)

    def connection_events(self) -> list[Event]:
        """The connection events kept, oldest first (what the stale-available rule reads)."""
        kept = [event for history in self._history.values() for event in history]
        return sorted(kept, key=lambda e: e.at.timestamp() if e.at else 0.0)

    # --- running, and running again ------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Attach until ``stop``. Without ``restart``, a start that fails raises
        :class:`CodexError` and a death ends the run; with it, both are tried again."""
        if self._restart is None:
            await self._attach(stop)
            return
        while not stop.is_set():
            started = asyncio.get_running_loop().time()
            try:
                reason = await self._attach(stop)
            except CodexError as exc:
                reason = str(exc)
            if stop.is_set():
                return
            if asyncio.get_running_loop().time() - started > 2 * self._restart.maximum:
                self._restart.reset()  # it ran for a good while: start the series again
            delay = self._restart.next_delay()
            self._status("restarting", reason, delay)
            if await wait_for_stop(stop, delay):
                return
            self.restarts += 1
            self._next_client()

    def _next_client(self) -> None:
        """A fresh client that resumes the thread the last one attached to (if it got one)."""
        options = self.options
        if self.thread_id is not None:
            options = dataclasses.replace(options, thread=self.thread_id, cwd=None, prompt=None)
        self.client = AppServerClient(
            options, self._hear, clock=self._clock, operator=self._operator
        )

    def answer(self, answer: RequestAnswered) -> str | None:
        """The operator's answer to a pending request, sent to the app-server now attached;
        why it was not sent, or None."""
        return self.client.answer(answer)

    async def _attach(self, stop: asyncio.Event) -> str | None:
        """One app-server's life: the reason it stopped, None when ``stop`` ended it."""
        tasks: list[asyncio.Task[None]] = []
        try:
            rpc = await self._start(stop)
            if rpc is None:
                return None  # stopped while the app-server was still starting
            self._voice.say(
                WarningMessage(
                    message=f"attached to codex thread {self.thread_id}", severity="info"
                )
            )
            if self.options.read_only:
                self._voice.say(
                    WarningMessage(
                        message="--read-only: every approval and question of Codex is "
                        "declined at once",
                        severity="info",
                    )
                )
            self._status("up")
            if self.client.options.prompt:
                await self.client.send_prompt(rpc, self.client.options.prompt)
            loop = asyncio.get_running_loop()
            tasks.append(loop.create_task(self.client.poll(rpc, stop)))
            tasks.append(loop.create_task(self._follow(stop)))
            return await self._until_stop_or_death(rpc, stop)
        finally:
            await cancel_and_wait(*tasks)
            await self.client.aclose()
            self.client.requests.gone()  # whatever it asked, nobody can answer it now

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

    async def _until_stop_or_death(self, rpc: JsonRpcClient, stop: asyncio.Event) -> str | None:
        stopped: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        closed: asyncio.Future[Any] = asyncio.ensure_future(asyncio.shield(rpc.closed))
        await asyncio.wait([closed, stopped], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        closed.cancel()
        if not rpc.closed.done() or stop.is_set():
            return None
        self.died = True
        reason = self.death = f"{APP_SERVER_EXITED}: {rpc.closed.result()}"
        self._voice.say(WarningMessage(message=reason, severity="error"))
        self._status("down", reason)
        self.client.mark_all_unavailable(APP_SERVER_EXITED)
        return reason

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

    def _follower_for(self, name: str) -> RolloutFollower:
        """The one follower of this thread's rollout, kept across restarts with its offset."""
        if self._follower is None or self._follower.name != name:
            remote = isinstance(self.client.channel, SshProcessChannel)
            self._follower = RolloutFollower(
                name,
                self._sink,
                connection_events=self.connection_events,
                clock=self._clock,
                baseline=None if remote else (lambda: ParentRollouts(Path(name))),
            )
        return self._follower

    async def _follow_rollout(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            path = self.rollout_path()
            if path is not None:
                follower = self._follower_for(str(path))
                await read_window(LocalFile(path), follower, stop, follow=True)
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
        window = SshFile(connection, path, host)
        await read_window(window, self._follower_for(window.name), stop, follow=True)

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


class OperatedCodex:
    """The dashboard's source for ``envtui codex``: the app-server, started again when it
    stops (resuming its thread), and the operator's answers to what it asks (:meth:`answer`)."""

    def __init__(self, options: CodexOptions) -> None:
        self.options = options
        self.attached: CodexSource | None = None

    async def __call__(self, sink: EventSink, stop: asyncio.Event) -> None:
        self.attached = CodexSource(self.options, sink, restart=restart_backoff(), operator=True)
        await self.attached.run(stop)

    def answer(self, answer: RequestAnswered) -> str | None:
        """Send the operator's answer; why it was not sent, or None."""
        if self.attached is None:
            return "not attached to a codex app-server yet"
        return self.attached.answer(answer)
