"""A client of a real ``codex app-server``: start it, attach to a thread, hear its environments.

The app-server speaks newline-delimited JSON-RPC over stdio (locally, or over an SSH
channel with the same host-key rules as SSH environments). envtui initializes with the
experimental API (without it the environment notifications are not delivered), starts or
resumes a thread, and turns what it hears into envtui's events:

* ``thread/environment/connected`` / ``disconnected`` become Codex's own core events, with
  id ``""`` and the notification's ``emittedAtMs`` as ``at``;
* ``environment/status``, polled, seeds each environment and catches every change
  (``pending`` → starting, ``ready`` → ready, ``disconnected`` and ``unknown`` →
  unavailable with the error); ``environment/info`` (only for ready ones: it hangs on
  pending ones) gives the shell; the thread's environment list gives selection order and cwd.

Live statuses go through the same :class:`~envtui.steps.board.StatusBoard` as envtui's own
environment manager. Unknown notifications are kept whole as events, never fatal.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from envtui import __version__
from envtui.context.local_time import system_clock
from envtui.environments import processes
from envtui.environments.channels import ProcessChannel, SshProcessChannel
from envtui.environments.jsonrpc import ChannelClosedError, JsonRpcClient, MessageChannel, RpcError
from envtui.environments.ssh import SshSettings
from envtui.events import (
    LOCAL_ID,
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    EventSink,
    LiveState,
    UnknownMessage,
    thread_event,
)
from envtui.steps.board import StatusBoard
from envtui.stopping import wait_for_stop

STATUS: dict[str, LiveState] = {
    "pending": "starting",
    "ready": "ready",
    "disconnected": "unavailable",
    "unknown": "unavailable",
}
"""The app-server's environment statuses in envtui's live vocabulary."""
CONNECTED = "thread/environment/connected"
DISCONNECTED = "thread/environment/disconnected"
REQUEST_TIMEOUT = 60.0
ROLE = "codex app-server"
"""What reasons and the debug log call the process: "codex app-server exited with status 3"."""
CONNECTION_EVENTS = 1_000
"""The newest connection events the client keeps (older ones are dropped, so a client that
runs for days holds no more than this)."""


class CodexError(Exception):
    """The app-server could not be started or reached; the message says why."""


@dataclass(frozen=True)
class CodexOptions:
    """How to start the app-server and which thread to attach to."""

    codex: str = "codex"
    codex_home: Path | None = None
    cwd: str | None = None
    thread: str | None = None
    ssh: SshSettings | None = None
    poll_interval: float = 1.0
    features: tuple[str, ...] = ()
    prompt: str | None = None


def emitted_at(notification: dict[str, Any]) -> datetime | None:
    """A notification's ``emittedAtMs`` as an aware time, if it has one."""
    ms = notification.get("emittedAtMs")
    return datetime.fromtimestamp(ms / 1000, UTC) if isinstance(ms, int | float) else None


@dataclass
class _Environment:
    """What the app-server has said about one environment so far."""

    cwd: str | None = None
    state: LiveState = "starting"
    error: str | None = None
    shell: tuple[str | None, str | None] | None = None


class AppServerClient:
    """One app-server process and one thread on it: the events it produces go to ``sink``."""

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
        self._environments: dict[str, _Environment] = {}
        self.board = StatusBoard(self._state, self._describe)
        self.thread_id: str | None = None
        self.connection_events: deque[Event] = deque(maxlen=CONNECTION_EVENTS)
        self.app_server_pid: int | None = None
        self.channel: MessageChannel | None = None
        self._seen: set[psutil.Process] = set()
        self._rpc: JsonRpcClient | None = None

    # --- starting ----------------------------------------------------------------------------

    async def start(self) -> JsonRpcClient:
        """Start the app-server and attach to the thread; raises :class:`CodexError`."""
        try:
            self.channel = await self._open()
        except Exception as exc:
            raise CodexError(f"cannot start {self.options.codex} app-server: {exc}") from exc
        rpc = self._rpc = JsonRpcClient(self.channel, self._on_notification, peer=ROLE)
        rpc.start()
        try:
            thread = await self._handshake(rpc)
        except (RpcError, ChannelClosedError, TimeoutError, KeyError, TypeError) as exc:
            raise CodexError(f"codex app-server did not start a thread: {exc}") from exc
        self.thread_id = thread.get("id")
        for entry in thread.get("environments") or []:
            env_id = entry.get("environmentId")
            if isinstance(env_id, str):
                cwd = entry.get("cwd")
                self._environments[env_id] = _Environment(cwd if isinstance(cwd, str) else None)
        self.board.set_order(self._environments)
        return rpc

    async def _open(self) -> MessageChannel:
        args = ["app-server"] + [
            arg for feature in self.options.features for arg in ("--enable", feature)
        ]
        env = {"CODEX_HOME": str(self.options.codex_home)} if self.options.codex_home else {}
        if self.options.ssh is None:
            channel = await ProcessChannel.spawn(self.options.codex, args, env=env, role=ROLE)
            self.app_server_pid = channel.pid
            return channel
        return await SshProcessChannel.open(
            self.options.ssh, self.options.codex, args, env, role=ROLE
        )

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

    async def send_prompt(self, rpc: JsonRpcClient, text: str) -> None:
        """Start one user turn on the thread."""
        await rpc.request(
            "turn/start",
            {"threadId": self.thread_id, "input": [{"type": "text", "text": text}]},
            timeout=REQUEST_TIMEOUT,
        )

    # --- statuses -----------------------------------------------------------------------------

    def _state(self, environment_id: str) -> LiveState:
        environment = self._environments.get(environment_id)
        return environment.state if environment is not None else "starting"

    def _describe(self, environment_id: str) -> EnvironmentStatus:
        environment = self._environments.get(environment_id) or _Environment()
        ready = environment.state == "ready"
        name, path = environment.shell if ready and environment.shell else (None, None)
        return EnvironmentStatus(
            environment_id=environment_id,
            kind="local" if environment_id == LOCAL_ID else "exec-server",
            status=environment.state,
            shell=name,
            shell_path=path,
            cwd=environment.cwd,
            error=environment.error,
        )

    def update(
        self, environment_id: str, state: LiveState, error: str | None, at: datetime | None = None
    ) -> None:
        """Record one environment's state and emit what the board says changed."""
        environment = self._environments.setdefault(environment_id, _Environment())
        if environment_id not in self.board.order:  # seen only in a notification: polled too
            self.board.set_order([*self.board.order, environment_id])
        environment.state, environment.error = state, error
        for msg in self.board.report(environment_id):
            self._sink(thread_event(msg, at=at or self._clock()))

    def mark_all_unavailable(self, reason: str) -> None:
        """Every environment is unavailable for ``reason`` (the app-server is gone)."""
        for environment_id in list(self.board.order):
            self.update(environment_id, "unavailable", reason)

    # --- hearing -----------------------------------------------------------------------------

    def _on_notification(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        raw_params = message.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        at = emitted_at(message)
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
            if connected:
                self.update(env_id, "ready", None, at)
            else:
                self.update(env_id, "unavailable", "disconnected", at)
            return
        raw = {"type": "codex_notification", "method": method, "params": params}
        self._sink(
            thread_event(UnknownMessage(type="codex_notification", raw=raw), at=at or self._clock())
        )

    async def poll(self, rpc: JsonRpcClient, stop: asyncio.Event) -> None:
        """Ask every environment's status each poll interval until ``stop`` or the channel ends."""
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
                state = STATUS.get(str(result.get("status")), "unavailable")
                error = result.get("error") if state == "unavailable" else None
                if state == "ready" and self._environments[env_id].shell is None:
                    await self._learn_shell(rpc, env_id)
                self.update(env_id, state, error)
            self.remember_descendants()
            if await wait_for_stop(stop, self.options.poll_interval):
                return

    async def _learn_shell(self, rpc: JsonRpcClient, env_id: str) -> None:
        try:
            info = await rpc.request("environment/info", {"environmentId": env_id}, timeout=10)
        except (RpcError, TimeoutError, ChannelClosedError):
            return
        shell = info.get("shell") if isinstance(info, dict) else None
        if isinstance(shell, dict):
            self._environments[env_id].shell = (shell.get("name"), shell.get("path"))

    # --- ending --------------------------------------------------------------------------------

    def remember_descendants(self) -> None:
        """Note the app-server's processes now, before a parent's exit hides who started them."""
        if self.app_server_pid is not None:
            # those that ended are let go, so a long attach holds only the living
            alive = {process for process in self._seen if process.is_running()}
            self._seen = alive | processes.descendants(self.app_server_pid)

    async def aclose(self) -> None:
        """End the app-server's process group, then every process it started elsewhere."""
        self.remember_descendants()
        if self._rpc is not None:
            await self._rpc.aclose()  # ends the app-server's process group
        elif self.channel is not None:
            await self.channel.close()
        processes.end(self._seen)  # and exec-servers in process groups of their own
