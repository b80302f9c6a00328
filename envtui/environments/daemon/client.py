"""A headless client of Codex's app-server daemon: every thread, its status, what it asks.

Since 0.171 interactive Codex runs in one shared app-server per ``CODEX_HOME`` (or on a
listening address). Every initialized client hears ``thread/started`` and
``thread/status/changed`` for every thread of it without subscribing, so the moment a
thread waits on an approval is known at once. To see the request itself a client
subscribes with ``thread/resume {threadId, excludeTurns: true}``: the daemon replays the
pending request (same id) to it, and any subscriber may answer it; every subscriber then
hears ``serverRequest/resolved``. A request resolved without envtui's answer while its
thread is still active was answered elsewhere (the Codex TUI, ``codex agents``); one
resolved while the thread stopped was withdrawn (the turn was interrupted).

This client never starts a thread or a turn and never answers on its own. Any server
request it does not show is left alone (never refused: on the daemon, a refusal would be
an answer to the user's own session). With ``read_only`` it sends nothing but reads:
``initialize``, the list and read methods and the ``thread/resume`` that shows a request
(:data:`READ_METHODS`). Notifications it does not use are opted out at ``initialize``
(:data:`OPTED_OUT`); the rest it does not know are counted (:attr:`DaemonClient.unknown`),
never fatal.

The API is what a view of many hosts needs: :meth:`DaemonClient.connect`,
:meth:`DaemonClient.list_threads`, :attr:`DaemonClient.threads` kept live, ``on_thread``
called with each thread whose status or facts changed, and :attr:`DaemonClient.closed`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Any

from envtui import __version__
from envtui.context.local_time import system_clock
from envtui.environments.app_server_messages import emitted_at, thread_of
from envtui.environments.backoff import Backoff
from envtui.environments.daemon.threads import (
    DaemonThread,
    loaded_ids,
    next_cursor,
    thread_entries,
)
from envtui.environments.jsonrpc import (
    ChannelClosedError,
    JsonRpcClient,
    MessageChannel,
    RpcError,
)
from envtui.environments.thread_requests import RESOLVED, ThreadRequests, thread_state
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    Event,
    EventSink,
    WarningMessage,
    thread_event,
)
from envtui.vocabulary.thread_messages import RequestAnswered, ThreadStatusChanged

PEER = "codex app-server daemon"
REQUEST_TIMEOUT = 30.0
CLIENT_NAME = "envtui"
"""What envtui calls itself at ``initialize``: the daemon stamps the first client's name as
the ``originator`` of threads started later, so it must be envtui's own (docs/codex.md)."""
OPTED_OUT = (
    "item/agentMessage/delta",
    "item/plan/delta",
    "item/reasoning/summaryTextDelta",
    "item/reasoning/summaryPartAdded",
    "item/reasoning/textDelta",
    "item/commandExecution/outputDelta",
    "item/fileChange/outputDelta",
    "command/exec/outputDelta",
    "process/outputDelta",
    "thread/search/partial",
)
"""The delta streams of a subscribed thread: many a second, none of use here."""
READ_METHODS = frozenset(
    {
        "initialize",
        "initialized",
        "thread/loaded/list",
        "thread/list",
        "thread/read",
        "thread/resume",
    }
)
"""Every method this client sends (``thread/resume`` only with ``excludeTurns``, to see a
pending request); answers to requests are the only other thing it may send."""
STARTED = "thread/started"
STATUS = "thread/status/changed"
NAMED = "thread/name/updated"
CLOSED = "thread/closed"
CONNECTED = "thread/environment/connected"
DISCONNECTED = "thread/environment/disconnected"
QUIET = ("thread/goal/cleared", "turn/", "item/", "thread/tokenUsage/updated", "thread/settings/")
"""What a subscribed thread says that envtui does not show (each resume clears the goal:
``thread/goal/cleared`` is no news)."""
KNOWN_QUIET = ("configWarning", "remoteControl/status/changed", "thread/readState/changed")
LIST_PAGES = 20
"""Pages of ``thread/list`` read at most (each of :data:`LIST_PAGE` threads)."""
LIST_PAGE = 50
MAX_THREADS = 5_000
"""Threads kept at most (five times what the listing reads): every thread the daemon starts
is said to every client, so over a day of sub-agents, or from a peer that floods, the oldest
not loaded are forgotten first."""

RETRY_INITIAL = 0.5
RETRY_MAX = 3.0
"""Seconds between two tries to reach a daemon that went away (here, over its Unix socket):
half a second, doubling, at most three. A daemon restart takes about five seconds and must
be seen back soon (``envtui codex`` resets its backoff only after twice the cap attached,
so with a cap of ten a second restart soon after the first was seen back 4.8 s late); a
refused socket costs nothing to try. ``envtui codex`` on the daemon and each host's daemon
in ``envtui sessions`` wait the same."""


def retry_backoff() -> Backoff:
    """The delays between two tries to reach a daemon (see :data:`RETRY_MAX`)."""
    return Backoff(RETRY_INITIAL, RETRY_MAX)


ThreadListener = Callable[[DaemonThread], None]
EnvironmentListener = Callable[[str, Event], None]
"""Called with a subscribed thread's id and its environment's connection event."""
ChannelOpener = Callable[[], Awaitable[MessageChannel]]


class DaemonClient:
    """One connection to the daemon; see the module."""

    def __init__(
        self,
        open_channel: ChannelOpener,
        sink: EventSink,
        *,
        clock: Callable[[], datetime] = system_clock,
        read_only: bool = False,
        subscribe_waiting: bool = True,
        on_thread: ThreadListener | None = None,
        on_environment: EnvironmentListener | None = None,
    ) -> None:
        """``subscribe_waiting``: resume a thread the moment it waits, to see its request.
        ``on_environment``: a subscribed thread's ``thread/environment/connected`` and
        ``disconnected``, as connection events (they belong to one thread: not the sink's)."""
        self._open = open_channel
        self._sink = sink
        self._clock = clock
        self.read_only = read_only
        self.subscribe_waiting = subscribe_waiting
        self.on_thread = on_thread
        self.on_environment = on_environment
        self.requests = ThreadRequests(sink, clock, operator=True)
        self.threads: dict[str, DaemonThread] = {}
        self.subscribed: set[str] = set()
        self.news_heard = 0
        """Status and name notifications heard (see :meth:`_take`)."""
        self.unknown: Counter[str] = Counter()
        self.rpc: JsonRpcClient | None = None
        self.channel: MessageChannel | None = None
        self.user_agent: str | None = None
        """What the daemon said it is at ``initialize`` (``codex_cli_rs/0.171.0 (…)``)."""
        self._tasks: set[asyncio.Task[None]] = set()

    # --- connecting ---------------------------------------------------------------------------

    async def connect(self) -> None:
        """Open the channel and initialize; :class:`RetryableError` or :class:`RpcError` /
        :class:`ChannelClosedError` / :class:`TimeoutError` say why not."""
        channel = self.channel = await self._open()
        rpc = self.rpc = self.requests.rpc = JsonRpcClient(
            channel,
            self._on_notification,
            peer=PEER,
            on_problem=self._problem,
            on_request=self._on_request,
        )
        rpc.start()
        client = {"name": CLIENT_NAME, "title": "envtui", "version": __version__}
        capabilities = {"experimentalApi": True, "optOutNotificationMethods": list(OPTED_OUT)}
        result = await rpc.request(
            "initialize",
            {"clientInfo": client, "capabilities": capabilities},
            timeout=REQUEST_TIMEOUT,
        )
        agent = result.get("userAgent") if isinstance(result, dict) else None
        self.user_agent = agent if isinstance(agent, str) else None
        await rpc.notify("initialized")

    @property
    def closed(self) -> asyncio.Future[str]:
        """Completes with the reason once the connection is gone."""
        assert self.rpc is not None, "connect first"
        return self.rpc.closed

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.rpc is not None, "connect first"
        assert method in READ_METHODS
        return await self.rpc.request(method, params, timeout=REQUEST_TIMEOUT)

    # --- listing ------------------------------------------------------------------------------

    async def list_threads(self) -> list[DaemonThread]:
        """The daemon's threads of work, loaded ones first: ``thread/loaded/list`` for what
        runs now, ``thread/list`` for names, cwd, source and rollout, ``thread/read`` for a
        loaded thread the list does not have yet. Waiting ones are subscribed to."""
        loaded = await self._loaded()
        cursor: str | None = None
        for _ in range(LIST_PAGES):
            params: dict[str, Any] = {"limit": LIST_PAGE}
            if cursor:
                params["cursor"] = cursor
            asked = self.news_heard
            result = await self._request("thread/list", params)
            for entry in thread_entries(result):
                self._take(entry, loaded=entry["id"] in loaded, asked=asked)
            cursor = next_cursor(result)
            if cursor is None:
                break
        for thread_id in loaded:
            if thread_id not in self.threads or self.threads[thread_id].path is None:
                await self.read(thread_id)
        for thread in self.threads.values():
            self._maybe_subscribe(thread)
        return self.work_threads()

    async def loaded(self) -> set[str]:
        """The ids of the threads loaded now (``thread/loaded/list``): cheap, so a view of
        many hosts asks it every poll to know the daemon still answers."""
        return await self._loaded()

    async def _loaded(self) -> set[str]:
        loaded: set[str] = set()
        cursor: str | None = None
        for _ in range(LIST_PAGES):
            result = await self._request("thread/loaded/list", {"cursor": cursor} if cursor else {})
            loaded.update(loaded_ids(result))
            cursor = next_cursor(result)
            if cursor is None:
                break
        return loaded

    async def read(self, thread_id: str) -> DaemonThread | None:
        """What ``thread/read`` says of one thread (None when the daemon has no such thread)."""
        asked = self.news_heard
        try:
            result = await self._request("thread/read", {"threadId": thread_id})
        except RpcError:
            return None
        try:
            return self._take(thread_of(result), loaded=True, asked=asked)
        except ValueError:
            return None

    def work_threads(self) -> list[DaemonThread]:
        """The threads of work, loaded ones first, then by id."""
        work = [t for t in self.threads.values() if t.work]
        return sorted(work, key=lambda t: (not t.loaded, t.id))

    def _thread(self, thread_id: str) -> DaemonThread:
        """The thread ``thread_id``, kept from now on; past :data:`MAX_THREADS` the oldest
        that is not loaded (else the oldest) is forgotten."""
        thread = self.threads.get(thread_id)
        if thread is None:
            if len(self.threads) >= MAX_THREADS:
                oldest = next((t for t in self.threads.values() if not t.loaded), None)
                forgotten = oldest.id if oldest is not None else next(iter(self.threads))
                del self.threads[forgotten]
                self.subscribed.discard(forgotten)
            thread = self.threads[thread_id] = DaemonThread(thread_id)
        return thread

    def _take(
        self, entry: Mapping[str, Any], *, loaded: bool, asked: int | None = None
    ) -> DaemonThread:
        """One ``Thread`` object kept. ``asked``: :attr:`news_heard` when the request that
        answered it was sent. The daemon makes an answer apart from its notifications, so
        one can arrive after a notification it predates (a read asked as the thread starts
        work says ``idle`` after ``active`` came): its status (and whether the thread is
        loaded) is then older than what was heard, and is not taken; its name likewise
        after a ``thread/name/updated``."""
        thread = self._thread(entry["id"])
        before = thread.status
        fresh = asked is None or thread.status_heard <= asked
        thread.take(entry, status=fresh, name=asked is None or thread.name_heard <= asked)
        thread.loaded = (loaded or thread.loaded) if fresh else thread.loaded
        if thread.status != before:
            self._said(thread)
        elif self.on_thread is not None:
            self.on_thread(thread)
        return thread

    # --- subscribing ---------------------------------------------------------------------------

    async def subscribe(self, thread_id: str) -> bool:
        """Resume ``thread_id`` without its turns, to hear its requests (a pending one is asked
        again); False when the daemon refused."""
        if thread_id in self.subscribed:
            return True
        self.subscribed.add(thread_id)
        try:
            await self._request("thread/resume", {"threadId": thread_id, "excludeTurns": True})
        except (RpcError, TimeoutError) as exc:
            self.subscribed.discard(thread_id)
            self._warn(f"cannot subscribe to thread {thread_id}: {exc}")
            return False
        except ChannelClosedError:
            self.subscribed.discard(thread_id)
            return False
        return True

    def _maybe_subscribe(self, thread: DaemonThread) -> None:
        if self.subscribe_waiting and thread.waiting and thread.id not in self.subscribed:
            task = asyncio.get_running_loop().create_task(self._subscribe_quietly(thread.id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _subscribe_quietly(self, thread_id: str) -> None:
        await self.subscribe(thread_id)

    # --- answering -----------------------------------------------------------------------------

    def answer(self, answer: RequestAnswered) -> str | None:
        """Send the operator's answer through the daemon; why it was not sent, or None."""
        if self.read_only:
            return "--read-only: envtui only watches the daemon's threads, it answers nothing"
        return self.requests.answer(answer)

    # --- hearing ------------------------------------------------------------------------------

    def _on_request(self, message: dict[str, Any]) -> bool:
        """Every server request is kept (never refused: see the module); those a person
        answers are shown."""
        if self.requests.waits_for_operator(message):
            self.requests.request(message)
        return True

    def _on_notification(self, message: dict[str, Any]) -> None:
        method = str(message.get("method"))
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        at = emitted_at(message) or self._clock()
        if method in (STARTED, STATUS, NAMED, CLOSED):
            self._thread_news(method, params)
        elif method in (CONNECTED, DISCONNECTED):
            self._connection(method, params, at)
        elif method == RESOLVED:
            self._resolved(params, at)
        elif self.requests.notification(method, params, at):
            pass
        elif not method.startswith(QUIET) and method not in KNOWN_QUIET:
            self.unknown[method] += 1

    def _thread_news(self, method: str, params: dict[str, Any]) -> None:
        if method == STARTED:
            entry = params.get("thread")
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                thread = self._take(entry, loaded=True)
                self._heard_status(thread)
                self._maybe_subscribe(thread)
            return
        thread_id = params.get("threadId")
        if not isinstance(thread_id, str):
            self.unknown[method] += 1
            return
        thread = self._thread(thread_id)
        if method == NAMED:
            name = params.get("threadName")
            thread.name = name if isinstance(name, str) else thread.name
            self.news_heard += 1
            thread.name_heard = self.news_heard
        elif method == CLOSED:
            self._heard_status(thread)
            thread.set_status({"type": "notLoaded"})
            self.subscribed.discard(thread_id)
        else:
            status = params.get("status")
            if thread_state(status) is not None:
                self._heard_status(thread)  # news even when it says what was known
            if not thread.set_status(status):
                return
            thread.touched(self._clock())  # a turn moved it: updated now
        self._said(thread)
        self._maybe_subscribe(thread)

    def _heard_status(self, thread: DaemonThread) -> None:
        """A notification said ``thread``'s status: answers asked before now are older."""
        self.news_heard += 1
        thread.status_heard = self.news_heard

    def _connection(self, method: str, params: dict[str, Any], at: datetime) -> None:
        thread_id, env_id = params.get("threadId"), params.get("environmentId")
        if not isinstance(thread_id, str) or not isinstance(env_id, str):
            self.unknown[method] += 1
            return
        core = (
            EnvironmentConnected(environment_id=env_id)
            if method == CONNECTED
            else EnvironmentDisconnected(environment_id=env_id)
        )
        if self.on_environment is not None:
            self.on_environment(thread_id, thread_event(core, at=at))

    def _resolved(self, params: dict[str, Any], at: datetime) -> None:
        """Resolved after envtui's answer; else answered elsewhere while the thread goes on,
        or withdrawn when it stopped (an interrupted turn)."""
        request_id = params.get("requestId")
        if request_id in self.requests.answered:
            self.requests.notification(RESOLVED, params, at)
            return
        thread = self.threads.get(str(params.get("threadId")))
        going_on = thread is not None and thread.status not in ("idle", "not_loaded", None)
        self.requests.resolved(request_id, "elsewhere" if going_on else "withdrawn", at)

    def _said(self, thread: DaemonThread) -> None:
        """A thread's status changed: an event (a waiting thread is marked at once, whatever
        it is), and the listener."""
        if thread.status is not None and (thread.work or thread.waiting):
            status = ThreadStatusChanged(thread=thread.id, status=thread.status, flags=thread.flags)
            self._sink(thread_event(status, at=self._clock()))
        if self.on_thread is not None:
            self.on_thread(thread)

    def _warn(self, text: str) -> None:
        self._sink(thread_event(WarningMessage(message=text), at=self._clock()))

    def _problem(self, text: str) -> None:
        self._warn(f"{text}; skipped")

    # --- ending -------------------------------------------------------------------------------

    def gone(self) -> None:
        """The connection is gone: what it showed pending can no longer be answered here, and
        no status is known until the next listing."""
        self.requests.gone()
        self.subscribed.clear()
        for thread in self.threads.values():
            if thread.set_status({"type": "notLoaded"}):
                self._said(thread)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.rpc is not None:
            await self.rpc.aclose()
