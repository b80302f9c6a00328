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

The thread's status and what Codex asks of the operator (approvals, questions) are
:class:`~envtui.environments.thread_requests.ThreadRequests`'s: typed events, and the
requests kept pending until Codex resolves them or the operator answers (:meth:`answer`).

Live statuses go through the same :class:`~envtui.steps.board.StatusBoard` as envtui's own
environment manager; an environment whose status has not been answered yet is unknown, so
nothing after it in selection order is called primary before it is. Unknown notifications
are kept whole as events, never fatal; a malformed notification, result or status answer is
logged (a warning event) with what was wrong, and skipped.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from envtui import __version__
from envtui.context.local_time import system_clock
from envtui.environments.app_server_messages import emitted_at as emitted_at
from envtui.environments.app_server_messages import preview, thread_of
from envtui.environments.channels import ProcessChannel, SshProcessChannel
from envtui.environments.jsonrpc import ChannelClosedError, JsonRpcClient, MessageChannel, RpcError
from envtui.environments.ssh import SshSettings
from envtui.environments.thread_requests import ThreadRequests
from envtui.steps.board import StatusBoard
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    EventSink,
    UnknownMessage,
    WarningMessage,
    thread_event,
)
from envtui.vocabulary.stopping import wait_for_stop
from envtui.vocabulary.terms import LOCAL_ID, LiveState
from envtui.vocabulary.thread_messages import RequestAnswered

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
    read_only: bool = False
    """Decline every request of Codex at once (``--read-only``)."""


@dataclass
class _Environment:
    """What the app-server has said about one environment so far (``state`` None: nothing)."""

    cwd: str | None = None
    state: LiveState | None = None
    error: str | None = None
    shell: tuple[str | None, str | None] | None = None


MAX_EARLY_NOTIFICATIONS = 1000
"""Notifications kept while the thread is starting (more are dropped: a flood)."""
MAX_REPORTED_PROBLEMS = 10
"""Malformed messages reported one by one; after that, every hundredth, with the count."""


class AppServerClient:
    """One app-server process and one thread on it: the events it produces go to ``sink``."""

    def __init__(
        self,
        options: CodexOptions,
        sink: EventSink,
        *,
        clock: Callable[[], datetime] = system_clock,
        operator: bool = False,
    ) -> None:
        """``operator``: someone can answer Codex's requests (see :meth:`answer`)."""
        self.options = options
        self._sink = sink
        self._clock = clock
        self.requests = ThreadRequests(sink, clock, read_only=options.read_only, operator=operator)
        self._environments: dict[str, _Environment] = {}
        self.board = StatusBoard(self._state, self._describe)
        self.thread_id: str | None = None
        self.connection_events: deque[Event] = deque(maxlen=CONNECTION_EVENTS)
        self.app_server_pid: int | None = None
        self.channel: MessageChannel | None = None
        self._rpc: JsonRpcClient | None = None
        self.problems = 0
        self._early: list[dict[str, Any]] | None = []
        """Notifications heard before the thread was known; taken once it is."""

    # --- starting ----------------------------------------------------------------------------

    async def start(self) -> JsonRpcClient:
        """Start the app-server and attach to the thread; raises :class:`CodexError`."""
        try:
            self.channel = await self._open()
        except Exception as exc:
            raise CodexError(f"cannot start {self.options.codex} app-server: {exc}") from exc
        rpc = self._rpc = self.requests.rpc = JsonRpcClient(
            self.channel,
            self._on_notification,
            peer=ROLE,
            on_problem=self.problem,
            on_request=self._on_request,
        )
        rpc.start()
        try:
            thread = thread_of(await self._handshake(rpc))
        except (RpcError, ChannelClosedError, TimeoutError, ValueError) as exc:
            raise CodexError(f"codex app-server did not start a thread: {exc}") from exc
        self.thread_id = thread["id"]
        self._take_environments(thread.get("environments"))
        self.requests.seed(thread)
        early, self._early = self._early or [], None
        for message in early:  # heard while the thread was starting: a connection, a request
            if "id" in message:
                self.requests.request(message)
            else:
                self._on_notification(message)
        return rpc

    def _take_environments(self, entries: object) -> None:
        """The thread's environments, in selection order; entries of the wrong shape are noted."""
        for entry in entries if isinstance(entries, list) else []:
            env_id = entry.get("environmentId") if isinstance(entry, dict) else None
            if not isinstance(env_id, str):
                self.problem(f"{ROLE}: a thread environment without an id: {preview(entry)}")
                continue
            cwd = entry.get("cwd")
            environment = self._environments.setdefault(env_id, _Environment())
            environment.cwd = cwd if isinstance(cwd, str) else None
        self.board.set_order(self._environments)

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

    async def _handshake(self, rpc: JsonRpcClient) -> object:
        """Initialize, then start or resume the thread; the thread request's raw result."""
        client = {"name": "envtui", "title": None, "version": __version__}
        await rpc.request(
            "initialize",
            {"clientInfo": client, "capabilities": {"experimentalApi": True}},
            timeout=REQUEST_TIMEOUT,
        )
        await rpc.notify("initialized")
        if self.options.thread:
            return await rpc.request(
                "thread/resume", {"threadId": self.options.thread}, timeout=REQUEST_TIMEOUT
            )
        params = {"cwd": self.options.cwd} if self.options.cwd else {}
        return await rpc.request("thread/start", params, timeout=REQUEST_TIMEOUT)

    async def send_prompt(self, rpc: JsonRpcClient, text: str) -> None:
        """Start one user turn on the thread."""
        await rpc.request(
            "turn/start",
            {"threadId": self.thread_id, "input": [{"type": "text", "text": text}]},
            timeout=REQUEST_TIMEOUT,
        )

    # --- statuses -----------------------------------------------------------------------------

    def _state(self, environment_id: str) -> LiveState | None:
        environment = self._environments.get(environment_id)
        return environment.state if environment is not None else None

    def _describe(self, environment_id: str) -> EnvironmentStatus:
        environment = self._environments.get(environment_id) or _Environment()
        ready = environment.state == "ready"
        name, path = environment.shell if ready and environment.shell else (None, None)
        return EnvironmentStatus(
            environment_id=environment_id,
            kind="local" if environment_id == LOCAL_ID else "exec-server",
            status=environment.state or "starting",
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
        """Every environment is unavailable for ``reason`` (the app-server is gone), and so
        are the requests it asked and the thread's status."""
        for environment_id in list(self.board.order):
            self.update(environment_id, "unavailable", reason)
        self.requests.gone()

    def problem(self, text: str) -> None:
        """A message from the app-server that could not be used: logged, then skipped.

        The first few are reported one by one; a flood of them only now and then, counted.
        """
        self.problems += 1
        count = self.problems
        if count <= MAX_REPORTED_PROBLEMS or count % 100 == 0:
            suffix = f" ({count} so far)" if count > MAX_REPORTED_PROBLEMS else ""
            warning = WarningMessage(message=f"{text}; skipped{suffix}")
            self._sink(thread_event(warning, at=self._clock()))

    # --- hearing -----------------------------------------------------------------------------

    def _on_request(self, message: dict[str, Any]) -> bool:
        """A server request: one the operator answers is kept (until the thread is known,
        with the notifications heard meanwhile, in order); any other is refused."""
        if not self.requests.waits_for_operator(message):
            return False
        if self._early is not None:
            if len(self._early) >= MAX_EARLY_NOTIFICATIONS:
                return False
            self._early.append(message)
            return True
        return self.requests.request(message)

    def answer(self, answer: RequestAnswered) -> str | None:
        """Send the operator's answer to a pending request; why it was not sent, or None."""
        return self.requests.answer(answer)

    def _on_notification(self, message: dict[str, Any]) -> None:
        if self._early is not None:  # the thread is not known yet: its id, its order
            if len(self._early) < MAX_EARLY_NOTIFICATIONS:
                self._early.append(message)
            return
        method = message.get("method")
        raw_params = message.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        at = emitted_at(message)
        env_id = params.get("environmentId")
        if method in (CONNECTED, DISCONNECTED) and isinstance(env_id, str):
            if params.get("threadId") not in (None, self.thread_id):
                return  # another thread's environment
            self._connection(env_id, connected=method == CONNECTED, at=at or self._clock())
            return
        if self.requests.notification(method, params, at or self._clock()):
            return
        raw = {"type": "codex_notification", "method": method, "params": params}
        self._sink(
            thread_event(UnknownMessage(type="codex_notification", raw=raw), at=at or self._clock())
        )

    def _connection(self, env_id: str, *, connected: bool, at: datetime) -> None:
        core = (
            EnvironmentConnected(environment_id=env_id)
            if connected
            else EnvironmentDisconnected(environment_id=env_id)
        )
        event = thread_event(core, at=at)
        self.connection_events.append(event)
        self._sink(event)
        if connected:
            self.update(env_id, "ready", None, at)
        else:
            self.update(env_id, "unavailable", "disconnected", at)

    async def poll(self, rpc: JsonRpcClient, stop: asyncio.Event) -> None:
        """Ask every environment's status each poll interval until ``stop`` or the channel ends.

        A malformed answer is logged and skipped; nothing but the end of the channel or
        ``stop`` ends the loop.
        """
        while not stop.is_set():
            for env_id in list(self.board.order):
                try:
                    await self._poll_one(rpc, env_id)
                except ChannelClosedError:
                    return
                except Exception as exc:  # whatever the answer was, the loop goes on
                    self.problem(f"{ROLE}: environment/status for {env_id!r} failed: {exc!r}")
            if await wait_for_stop(stop, self.options.poll_interval):
                return

    async def _poll_one(self, rpc: JsonRpcClient, env_id: str) -> None:
        try:
            result = await rpc.request(
                "environment/status", {"environmentId": env_id}, timeout=REQUEST_TIMEOUT
            )
        except (RpcError, TimeoutError) as exc:
            result = {"status": "unknown", "error": str(exc)}
        if not isinstance(result, dict):
            self.problem(
                f"{ROLE}: environment/status for {env_id!r} answered {preview(result)}, "
                "not an object"
            )
            return
        state = STATUS.get(str(result.get("status")), "unavailable")
        error = result.get("error") if state == "unavailable" else None
        if error is not None and not isinstance(error, str):
            error = preview(error)  # shown as the JSON it was, not dropped
        environment = self._environments.get(env_id)
        if state == "ready" and (environment is None or environment.shell is None):
            await self._learn_shell(rpc, env_id)
        self.update(env_id, state, error)

    async def _learn_shell(self, rpc: JsonRpcClient, env_id: str) -> None:
        try:
            info = await rpc.request("environment/info", {"environmentId": env_id}, timeout=10)
        except (RpcError, TimeoutError, ChannelClosedError):
            return
        shell = info.get("shell") if isinstance(info, dict) else None
        if not isinstance(shell, dict):
            self.problem(f"{ROLE}: environment/info for {env_id!r} has no shell object")
            return
        name, path = shell.get("name"), shell.get("path")
        environment = self._environments.setdefault(env_id, _Environment())
        environment.shell = (
            name if isinstance(name, str) else None,
            path if isinstance(path, str) else None,
        )

    # --- ending --------------------------------------------------------------------------------

    async def aclose(self) -> None:
        """End the app-server and every process it started (see ``ProcessChannel.close``)."""
        if self._rpc is not None:
            await self._rpc.aclose()  # closes the channel, and with it the process tree
        elif self.channel is not None:
            await self.channel.close()
