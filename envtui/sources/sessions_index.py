"""Every Codex thread of a sessions tree, one summary each, kept up to date by polling.

Each poll lists the tree (one ``stat`` a file), indexes the files it has not seen, reads
what was appended to the ones it has, and forgets the ones that were removed or fell out
of ``--since``: memory follows the threads shown, not the bytes on disk. A thread whose
rollout exists twice (a copy, a resumed file) is shown once, from the file written last.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from envtui.incidents.thread_summary import ThreadSummary
from envtui.rollout.fork_parent import ParentRollouts
from envtui.sources.session_files import FileInfo, LocalSessionFiles, SessionFiles
from envtui.sources.thread_file import ThreadFile
from envtui.vocabulary import debug_log
from envtui.vocabulary.stopping import wait_for_stop

log = debug_log.logger(__name__)

POLL = 1.0
LIVE_WINDOW = 120.0
"""Seconds since a rollout's last write within which its thread counts as live."""


@dataclass
class SessionsView:
    """What one poll found: every thread shown, and whether the tree could be listed."""

    threads: list[ThreadSummary]
    up: bool
    problem: str | None = None
    changed: set[str] = field(default_factory=set)  # thread ids whose summary changed
    gone: set[str] = field(default_factory=set)  # thread ids no longer shown


class SessionsIndex:
    """The threads of one tree; :meth:`poll` brings them up to date."""

    def __init__(
        self,
        files: SessionFiles,
        *,
        since: float | None = None,
        live_window: float = LIVE_WINDOW,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.files = files
        self.since = since
        self.live_window = live_window
        self.clock = clock
        self._threads: dict[str, ThreadFile] = {}  # by path
        self._shown: dict[str, ThreadSummary] = {}  # by thread id

    def _baseline(self, info: FileInfo) -> ParentRollouts | None:
        """A fork's parent is looked up beside it, on this machine only."""
        if isinstance(self.files, LocalSessionFiles):
            return ParentRollouts(Path(info.path), self.files.root)
        return None

    def poll(self) -> SessionsView:
        try:
            listed = self.files.listing()
        except OSError as exc:
            problem = f"{self.files.name}: cannot list: {exc.strerror or exc}"
            return SessionsView(list(self._shown.values()), up=False, problem=problem)
        now = self.clock()
        wanted = {
            info.path: info
            for info in listed
            if self.since is None or now - info.mtime <= self.since
        }
        for path in [p for p in self._threads if p not in wanted]:
            del self._threads[path]
        changed_paths = set()
        for path, info in wanted.items():
            thread = self._threads.get(path)
            try:
                if thread is None:
                    thread = ThreadFile(self.files, info, self._baseline(info))
                    thread.index()
                    self._threads[path] = thread
                    changed_paths.add(path)
                elif thread.poll(info):
                    changed_paths.add(path)
            except OSError as exc:
                log.debug("%s: cannot read: %s", path, exc)
                self._threads.pop(path, None)
        return self._view(datetime.fromtimestamp(now, UTC), changed_paths)

    def _view(self, now: datetime, changed_paths: set[str]) -> SessionsView:
        shown: dict[str, ThreadSummary] = {}
        changed: set[str] = set()
        for path, thread in self._threads.items():
            was_live = thread.live
            summary = thread.summary(now, self.live_window)
            if path in changed_paths or summary.live != was_live:
                changed.add(summary.thread_id)
            before = shown.get(summary.thread_id)
            if before is None or thread.info.mtime > _mtime(before):
                shown[summary.thread_id] = summary
        gone = set(self._shown) - set(shown)
        self._shown = shown
        return SessionsView(list(shown.values()), up=True, changed=changed, gone=gone)


def _mtime(summary: ThreadSummary) -> float:
    return summary.last_written.timestamp() if summary.last_written is not None else 0.0


async def watch_sessions(
    index: SessionsIndex,
    publish: Callable[[SessionsView], None],
    stop: asyncio.Event,
    *,
    poll: float = POLL,
) -> None:
    """Poll ``index`` every ``poll`` seconds until ``stop``, publishing each view.

    The polls run in a worker thread: indexing a large tree never holds up the loop.
    """
    while not stop.is_set():
        view = await asyncio.to_thread(index.poll)
        publish(view)
        await wait_for_stop(stop, poll)
