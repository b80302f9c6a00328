"""Attaching to a real Codex: a client of ``codex app-server`` and a follower of its rollout.

The app-server speaks newline-delimited JSON-RPC over stdio (locally, or over an SSH
channel with the same host-key rules as SSH environments). envtui initializes with the
experimental API (without it the environment notifications are not delivered), starts or
resumes a thread, and turns what it hears into envtui's events:

* ``thread/environment/connected`` / ``disconnected`` become Codex's own core events, with
  id ``""`` and the notification's ``emittedAtMs`` as ``at``;
* ``environment/status``, polled, seeds each environment and catches every change
  (``pending`` → starting, ``ready`` → ready, ``disconnected`` and ``unknown`` →
  unavailable with the error); ``environment/info`` (only for ready ones: it hangs on
  pending ones) gives the shell; the thread's environment list gives selection order and cwd;
* the thread's rollout file, followed as it grows, gives the steps and their findings.

Unknown notifications are logged, never fatal. When the app-server dies, that is said and
every environment shows it; every process it started is ended, also those in process
groups of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncssh

from envtui import __version__
from envtui.context.local_time import system_clock
from envtui.environments.channels import ProcessChannel, SshProcessChannel, remote_command
from envtui.environments.jsonrpc import ChannelClosedError, JsonRpcClient, MessageChannel, RpcError
from envtui.environments.ssh import SshSettings, close_connection, open_connection
from envtui.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    LiveState,
    UnknownMessage,
    WarningMessage,
    thread_event,
)
from envtui.sources import processes
from envtui.sources.rollout import Rollout, read_rollout_lines
from envtui.sources.rollout_source import follow_rollout, follow_steps

STATUS = {
    "pending": "starting",
    "ready": "ready",
    "disconnected": "unavailable",
    "unknown": "unavailable",
}
CONNECTED = "thread/environment/connected"
DISCONNECTED = "thread/environment/disconnected"
REQUEST_TIMEOUT = 60.0
_THREAD_ID = re.compile(r"[A-Za-z0-9-]{1,80}")


class CodexError(Exception):
    """The app-server could not be started or reached; the message says why."""


@dataclass(frozen=True)
class CodexOptions:
    codex: str = "codex"
    codex_home: Path | None = None
    cwd: str | None = None
    thread: str | None = None
    ssh: SshSettings | None = None
    poll_interval: float = 1.0
    features: tuple[str, ...] = ()
    prompt: str | None = None


@dataclass
class _Board:
    """Live statuses in selection order; reports each change, and primary moves, once."""

    order: list[str] = field(default_factory=list)
    cwd: dict[str, str] = field(default_factory=dict)
    state: dict[str, tuple[LiveState, str | None]] = field(default_factory=dict)
    shell: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    reported: dict[str, EnvironmentStatus] = field(default_factory=dict)

    def primary(self) -> str | None:
        return next(
            (i for i in self.order if self.state.get(i, ("starting", None))[0] == "ready"), None
        )

    def message(self, env_id: str) -> EnvironmentStatus:
        status, error = self.state.get(env_id, ("starting", None))
        name, path = self.shell.get(env_id, (None, None)) if status == "ready" else (None, None)
        return EnvironmentStatus(
            environment_id=env_id,
            kind="local" if env_id == "local" else "exec-server",
            status=status,
            primary=env_id == self.primary(),
            shell=name,
            shell_path=path,
            cwd=self.cwd.get(env_id),
            error=error,
        )

    def update(self, env_id: str, status: LiveState, error: str | None) -> list[EnvironmentStatus]:
        if env_id not in self.order:
            self.order.append(env_id)  # seen only in a notification: it joins the poll list
        before = self.primary()
        self.state[env_id] = (status, error)
        changed = [env_id]
        after = self.primary()
        if before != after:
            changed += [i for i in (before, after) if i is not None and i != env_id]
        out = []
        for i in changed:
            msg = self.message(i)
            if self.reported.get(i) != msg:
                self.reported[i] = msg
                out.append(msg)
        return out


def _at(notification: dict[str, Any]) -> datetime | None:
    ms = notification.get("emittedAtMs")
    return datetime.fromtimestamp(ms / 1000, UTC) if isinstance(ms, int | float) else None


class CodexSource:
    def __init__(
        self,
        options: CodexOptions,
        sink: Callable[[Event], None],
        *,
        clock: Callable[[], datetime] = system_clock,
    ) -> None:
        self.options = options
        self._sink = sink
        self._clock = clock
        self.board = _Board()
        self.thread_id: str | None = None
        self.connection_events: list[Event] = []
        self.app_server_pid: int | None = None
        self._seen: set[processes.ProcessKey] = set()
        self._rpc: JsonRpcClient | None = None
        self.died = False  # the app-server exited while envtui was attached

    def _emit(self, msg: Any, at: datetime | None = None) -> None:
        self._sink(thread_event(msg, at=at or self._clock()))

    # --- starting --------------------------------------------------------------------------------

    async def _open(self) -> MessageChannel:
        args = ["app-server"] + [
            arg for feature in self.options.features for arg in ("--enable", feature)
        ]
        env = {"CODEX_HOME": str(self.options.codex_home)} if self.options.codex_home else {}
        if self.options.ssh is None:
            channel = await ProcessChannel.spawn(self.options.codex, args, env=env)
            self.app_server_pid = channel.pid
            return channel
        lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        connection, _ = await open_connection(self.options.ssh, lost)
        try:
            process = await connection.create_process(
                remote_command(self.options.codex, args, env), encoding="utf-8"
            )
        except BaseException:
            await close_connection(connection)
            raise
        return SshProcessChannel(connection, process, lost, self.options.ssh.host)

    async def _handshake(self, rpc: JsonRpcClient) -> dict[str, Any]:
        client = {"name": "envtui", "title": None, "version": __version__}
        await rpc.request(
            "initialize",
            {"clientInfo": client, "capabilities": {"experimentalApi": True}},
            timeout=REQUEST_TIMEOUT,
        )
        await rpc.notify("initialized")
        if self.options.thread:
            result = await rpc.request(
                "thread/resume", {"threadId": self.options.thread}, timeout=REQUEST_TIMEOUT
            )
        else:
            params = {"cwd": self.options.cwd} if self.options.cwd else {}
            result = await rpc.request("thread/start", params, timeout=REQUEST_TIMEOUT)
        thread: dict[str, Any] = result["thread"]
        return thread

    # --- running ----------------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Attach until ``stop``; raises :class:`CodexError` when the app-server cannot start."""
        try:
            channel = await self._open()
        except Exception as exc:
            raise CodexError(f"cannot start {self.options.codex} app-server: {exc}") from exc
        rpc = self._rpc = JsonRpcClient(channel, self._on_notification)
        rpc.start()
        tasks: list[asyncio.Task[None]] = []
        try:
            try:
                thread = await self._handshake(rpc)
            except (RpcError, ChannelClosedError, TimeoutError, KeyError, TypeError) as exc:
                raise CodexError(f"codex app-server did not start a thread: {exc}") from exc
            self.thread_id = thread.get("id")
            for entry in thread.get("environments") or []:
                env_id = entry.get("environmentId")
                if isinstance(env_id, str):
                    self.board.order.append(env_id)
                    if isinstance(entry.get("cwd"), str):
                        self.board.cwd[env_id] = entry["cwd"]
            self._emit(WarningMessage(message=f"attached to codex thread {self.thread_id}"))
            if self.options.prompt:
                await rpc.request(
                    "turn/start",
                    {
                        "threadId": self.thread_id,
                        "input": [{"type": "text", "text": self.options.prompt}],
                    },
                    timeout=REQUEST_TIMEOUT,
                )
            loop = asyncio.get_running_loop()
            tasks.append(loop.create_task(self._poll(rpc, stop)))
            if isinstance(channel, SshProcessChannel):
                tasks.append(
                    loop.create_task(self._follow_remote_rollout(channel.connection, stop))
                )
            else:
                tasks.append(loop.create_task(self._follow_rollout(stop)))
            stopped: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
            closed: asyncio.Future[Any] = asyncio.ensure_future(asyncio.shield(rpc.closed))
            await asyncio.wait([closed, stopped], return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            closed.cancel()
            if rpc.closed.done() and not stop.is_set():
                self._app_server_died(rpc.closed.result())
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            await self._cleanup(rpc)

    async def _cleanup(self, rpc: JsonRpcClient) -> None:
        if self.app_server_pid is not None:
            self._seen |= processes.descendants(self.app_server_pid)
        await rpc.aclose()  # ends the app-server's process group
        processes.end(self._seen)  # and exec-servers in process groups of their own

    def _app_server_died(self, reason: str) -> None:
        self.died = True
        self._emit(WarningMessage(message=f"codex app-server exited: {reason}"))
        for env_id in list(self.board.order):
            for msg in self.board.update(env_id, "unavailable", "codex app-server exited"):
                self._emit(msg)

    def _on_notification(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        raw_params = message.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        at = _at(message)
        env_id = params.get("environmentId")
        if method in (CONNECTED, DISCONNECTED) and isinstance(env_id, str):
            if params.get("threadId") not in (None, self.thread_id):
                return  # another thread's environment
            connected = method == CONNECTED
            core = (
                EnvironmentConnected(environment_id=env_id)
                if connected
                else EnvironmentDisconnected(environment_id=env_id)
            )
            event = thread_event(core, at=at or self._clock())
            self.connection_events.append(event)
            self._sink(event)
            status: LiveState = "ready" if connected else "unavailable"
            for msg in self.board.update(env_id, status, None if connected else "disconnected"):
                self._emit(msg, at)
            return
        raw = {"type": "codex_notification", "method": method, "params": params}
        self._emit(UnknownMessage(type="codex_notification", raw=raw), at)

    async def _poll(self, rpc: JsonRpcClient, stop: asyncio.Event) -> None:
        while not stop.is_set():
            for env_id in list(self.board.order):
                try:
                    result = await rpc.request(
                        "environment/status", {"environmentId": env_id}, timeout=REQUEST_TIMEOUT
                    )
                except (RpcError, TimeoutError) as exc:
                    result = {"status": "unknown", "error": str(exc)}
                except ChannelClosedError:
                    return
                status = STATUS.get(str(result.get("status")), "unavailable")
                error = result.get("error") if status == "unavailable" else None
                if status == "ready" and env_id not in self.board.shell:
                    await self._learn_shell(rpc, env_id)
                for msg in self.board.update(env_id, status, error):  # type: ignore[arg-type]
                    self._emit(msg)
            if self.app_server_pid is not None:
                self._seen |= processes.descendants(self.app_server_pid)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self.options.poll_interval)

    async def _learn_shell(self, rpc: JsonRpcClient, env_id: str) -> None:
        try:
            info = await rpc.request("environment/info", {"environmentId": env_id}, timeout=10)
        except (RpcError, TimeoutError, ChannelClosedError):
            return
        shell = info.get("shell") if isinstance(info, dict) else None
        if isinstance(shell, dict):
            self.board.shell[env_id] = (shell.get("name"), shell.get("path"))

    def rollout_path(self) -> Path | None:
        home = self.options.codex_home or Path.home() / ".codex"
        if self.thread_id is None:
            return None
        found = sorted(home.glob(f"sessions/*/*/*/rollout-*-{self.thread_id}.jsonl"))
        return found[-1] if found else None

    async def _follow_remote_rollout(
        self, connection: asyncssh.SSHClientConnection, stop: asyncio.Event
    ) -> None:
        """The rollout on the app-server's host, read over the same SSH connection."""
        thread = self.thread_id or ""
        if not _THREAD_ID.fullmatch(thread):
            return
        home = (
            shlex.quote(str(self.options.codex_home))
            if self.options.codex_home
            else '"$HOME"/.codex'
        )
        find = f"ls -1 -- {home}/sessions/*/*/*/rollout-*-{thread}.jsonl 2>/dev/null | tail -n 1"
        path = ""
        while not path and not stop.is_set():
            with contextlib.suppress(asyncssh.Error, OSError):
                path = str((await connection.run(find, check=False)).stdout or "").strip()
            if not path:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self.options.poll_interval)

        async def load() -> Rollout | None:
            try:
                result = await connection.run(f"cat -- {shlex.quote(path)}", check=False)
            except (asyncssh.Error, OSError):
                return None
            return read_rollout_lines(str(result.stdout or "").splitlines())

        await follow_steps(
            load, f"{self.options.ssh.host if self.options.ssh else ''}:{path}", self._sink, stop,
            follow=True, connection_events=lambda: list(self.connection_events),
        )  # fmt: skip

    async def _follow_rollout(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            path = self.rollout_path()
            if path is not None:
                await follow_rollout(
                    path,
                    self._sink,
                    stop,
                    follow=True,
                    connection_events=lambda: list(self.connection_events),
                )
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self.options.poll_interval)
