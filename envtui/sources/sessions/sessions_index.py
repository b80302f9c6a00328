"""Every Codex thread of a sessions tree, one summary each, kept up to date by polling.

Each poll lists the tree (see :class:`LocalSessionFiles` for what that costs), indexes the
files it has not seen, reads what was appended to the ones it has, and forgets the ones
that were removed or fell out of ``--since``: memory follows the threads shown, not the
bytes on disk. Only what changed is worked on: a poll over a quiet tree of 10,000 threads
builds no summary, and says so (its view's ``changed`` and ``gone`` are empty). A thread
whose rollout exists twice (a copy, a resumed file) is shown once, from the file written
last.

A thread is live when its file was written within the live window *and* the rollout's own
latest timestamp is within it too: a copied file is new on disk, its thread is not.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from envtui.incidents.sessions_view import SessionsView
from envtui.sources.sessions.session_files import LocalSessionFiles, SessionFiles
from envtui.sources.sessions.tree_listing import FileInfo

if TYPE_CHECKING:
    import asyncio

    from envtui.incidents.thread_summary import ThreadSummary
    from envtui.rollout.state import BaselineLookup, ForkOrigin
    from envtui.sources.sessions.thread_file import ThreadFile

POLL = 1.0
LIVE_WINDOW = 120.0
"""Seconds since a rollout's last write (and its last item) within which its thread is live."""


class SessionsIndex:
    """The threads of one tree; :meth:`poll` brings them up to date."""

    def __init__(
        self,
        files: SessionFiles,
        *,
        since: float | None = None,
        live_window: float = LIVE_WINDOW,
        clock: Callable[[], float] = time.time,
        host: str = "",
        absent_ok: bool = False,
    ) -> None:
        """``absent_ok``: a tree that does not exist (yet) is an empty one, said in the
        view's ``absent`` (a daemon runs there, or the host is configured); else it is a
        tree that cannot be listed."""
        self.files = files
        self.host = host  # the name its rows carry (see ThreadSummary.key)
        self.absent_ok = absent_ok
        self.since = since
        self.live_window = live_window
        self.clock = clock
        self._threads: dict[str, ThreadFile] = {}  # by path
        self._shown: dict[str, ThreadSummary] = {}  # by thread id
        self._paths: dict[str, set[str]] = {}  # the files of each thread id
        self._owner: dict[str, str] = {}  # the thread id of each file, as last read
        self._live: set[str] = set()  # paths whose thread was live at the last poll
        self._retry: set[str] = set()  # paths that could not be read: tried again

    def shows(self, thread_id: str) -> bool:
        """Whether a row of the thread is shown (its rollout was read, within ``--since``)."""
        return thread_id in self._shown

    def _baseline(self, info: FileInfo) -> BaselineLookup | None:
        """A fork's parent is looked up beside it, on this machine only; the lookup is made
        when a fork asks for it (most threads are no forks, and an index makes one each)."""
        if isinstance(self.files, LocalSessionFiles):
            root = self.files.root

            def lookup(origin: ForkOrigin) -> tuple[dict[str, Any] | None, str | None]:
                from envtui.rollout.fork_parent import ParentRollouts

                return ParentRollouts(Path(info.path), root)(origin)

            return lookup
        return None

    def poll(self) -> SessionsView:
        try:
            return self._poll()
        finally:
            release = getattr(self.files, "release", None)
            if release is not None:
                release()  # no file stays open between polls

    def _poll(self) -> SessionsView:
        now = self.clock()
        try:
            found, paths = self._listed(now)
        except OSError as exc:
            if self.absent_ok and isinstance(exc, FileNotFoundError):
                return self._no_tree()
            problem = f"{self.files.name}: cannot list: {exc.strerror or exc}"
            return SessionsView(list(self._shown.values()), up=False, problem=problem)
        moment = datetime.fromtimestamp(now, UTC)
        touched: set[str] = set()
        for path in paths:
            info = found.get(path)
            thread = self._threads.get(path)
            if info is None:
                if self._threads.pop(path, None) is not None:
                    touched.add(path)
            elif thread is not None and thread.info is info:
                continue  # the listing kept it as it was: nothing to look at
            elif self._read(path, info, thread):
                touched.add(path)
                if path in self._threads:  # its row now: a quiet thread lets its fold go
                    self._threads[path].summary(moment, self.live_window)
        return self._view(moment, touched)

    def _no_tree(self) -> SessionsView:
        """The tree does not exist: an empty one (the rows of a tree removed go)."""
        from envtui.incidents.thread_summary import thread_key

        gone = {thread_key(self.host, thread_id) for thread_id in self._shown}
        for known in (self._threads, self._shown, self._paths, self._owner):
            known.clear()
        self._live.clear()
        self._retry.clear()
        return SessionsView([], up=True, gone=gone, absent=[self.files.name])

    def _listed(self, now: float) -> tuple[Mapping[str, FileInfo], set[str]]:
        """The files wanted by path, and the paths to look at: those that changed when the
        tree says so (on this machine), else every path listed or known."""
        changes = getattr(self.files, "changes", None)
        if changes is not None and self.since is None:
            found, changed = changes()
            retry, self._retry = self._retry, set()
            return found, changed | retry
        since = self.since
        listed = self.files.listing()
        wanted = {i.path: i for i in listed if since is None or now - i.mtime <= since}
        return wanted, set(wanted) | set(self._threads)

    def _read(self, path: str, info: FileInfo, thread: ThreadFile | None) -> bool:
        """Index a new file or follow a known one; whether its row may have changed."""
        try:
            if thread is None:
                from envtui.sources.sessions.thread_file import ThreadFile

                thread = ThreadFile(self.files, info, self._baseline(info), host=self.host)
                thread.index()
                self._threads[path] = thread
                return True
            return thread.poll(info)
        except OSError as exc:
            from envtui.vocabulary import debug_log

            debug_log.logger(__name__).debug("%s: cannot read: %s", path, exc)
            self._retry.add(path)  # looked at again at the next poll
            return self._threads.pop(path, None) is not None

    def _view(self, moment: datetime, touched: set[str]) -> SessionsView:
        """The threads of the touched files, and those whose live window just ran out."""
        thread_ids: set[str] = set()
        for path in touched | self._live:
            thread = self._threads.get(path)
            was_live = path in self._live
            self._live.discard(path)
            summary = thread.summary(moment, self.live_window) if thread is not None else None
            owner = self._owner.pop(path, None)
            if owner is not None and (summary is None or owner != summary.thread_id):
                self._paths.get(owner, set()).discard(path)
                thread_ids.add(owner)  # gone, or replaced by another thread's rollout
            if summary is None:
                continue
            if summary.live:
                self._live.add(path)
            self._owner[path] = summary.thread_id
            self._paths.setdefault(summary.thread_id, set()).add(path)
            if path in touched or summary.live != was_live:
                thread_ids.add(summary.thread_id)
        changed: set[str] = set()
        gone: set[str] = set()
        for thread_id in thread_ids:
            chosen = self._newest(thread_id, moment)
            if chosen is None:
                if self._shown.pop(thread_id, None) is not None:
                    from envtui.incidents.thread_summary import thread_key

                    gone.add(thread_key(self.host, thread_id))
                continue
            self._shown[thread_id] = chosen
            changed.add(chosen.key)
        return SessionsView(
            list(self._shown.values()),
            up=True,
            changed=changed,
            gone=gone,
            outside=list(self.files.outside),
            misnamed=list(self.files.misnamed),
        )

    def _newest(self, thread_id: str, moment: datetime) -> ThreadSummary | None:
        """The summary of the thread's file written last (its other files are copies)."""
        paths = self._paths.get(thread_id, set())
        best: ThreadSummary | None = None
        for path in list(paths):
            thread = self._threads.get(path)
            if thread is None:
                paths.discard(path)
                continue
            summary = thread.summary(moment, self.live_window)
            if best is None or thread.info.mtime > _mtime(best):
                best = summary
        if not paths:
            self._paths.pop(thread_id, None)
        return best


def _mtime(summary: ThreadSummary) -> float:
    return summary.last_written.timestamp() if summary.last_written is not None else 0.0


class Polled(Protocol):
    """What :func:`watch_sessions` polls: one index, or several hosts' (a Fleet)."""

    def poll(self) -> SessionsView: ...


async def watch_sessions(
    index: Polled,
    publish: Callable[[SessionsView], None],
    stop: asyncio.Event,
    *,
    poll: float = POLL,
    wake: asyncio.Event | None = None,
) -> None:
    """Poll ``index`` every ``poll`` seconds until ``stop``, publishing each view; sooner
    when ``wake`` is set (a daemon said a thread's status changed).

    The polls run in a worker thread: indexing a large tree never holds up the loop.
    """
    import asyncio

    from envtui.vocabulary.stopping import wait_for_stop

    while not stop.is_set():
        if wake is not None:
            wake.clear()
        view = await asyncio.to_thread(index.poll)
        publish(view)
        if wake is None:
            await wait_for_stop(stop, poll)
        else:
            await _woken_or_stopped(stop, wake, poll)


async def _woken_or_stopped(stop: asyncio.Event, wake: asyncio.Event, timeout: float) -> None:
    import asyncio

    from envtui.vocabulary.stopping import cancel_and_wait

    waits = {asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())}
    await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    await cancel_and_wait(*waits)
