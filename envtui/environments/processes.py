"""Finding and ending the processes envtui started, and every process they started.

An exec-server or ``codex app-server`` may start processes of its own, some in process
groups or sessions of their own (``setsid``), which ending the child's process group does not
reach; once their parent has exited they are no longer its descendants either. So envtui
remembers every descendant **while it is still a descendant**: each process it starts is a
:class:`ProcessTree`, and one background sampler notes the descendants of every live tree
once per :data:`SAMPLE_INTERVAL`. Closing a tree signals its root and everything remembered;
:func:`end_all_started` (also run at interpreter exit) ends whatever is left on any path out.

psutil identifies a process by pid *and* creation time, so a pid the system has since given
to an unrelated process is never signalled; it also works beyond Linux, where there is no
``/proc`` to read.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
from collections.abc import Iterable

import psutil

SAMPLE_INTERVAL = 0.5
"""Seconds between two looks at the descendants of every process envtui started."""


def descendants(root: int) -> set[psutil.Process]:
    """Every live process below ``root`` (children, their children, …); empty if it is gone."""
    try:
        children = psutil.Process(root).children(recursive=True)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return set()
    return {child for child in children if _running(child)}


def _running(process: psutil.Process) -> bool:
    """Still the same process, and not a zombie waiting to be reaped."""
    with contextlib.suppress(psutil.Error):
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    return False


def alive(process: psutil.Process) -> bool:
    return _running(process)


def end(processes: Iterable[psutil.Process], sig: int = signal.SIGKILL) -> None:
    """Signal each remembered process that is still the same process."""
    for process in processes:
        with contextlib.suppress(psutil.Error):
            if _running(process):
                process.send_signal(sig)


def group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs; zombies (exited, not reaped) do not."""
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if os.getpgid(process.pid) == pgid and _running(process):
                return True
    return False


def _children_map() -> dict[int, list[psutil.Process]]:
    """Every process by its parent's pid: one pass over the process table."""
    children: dict[int, list[psutil.Process]] = {}
    for process in psutil.process_iter(["ppid"]):
        ppid = process.info.get("ppid")
        if isinstance(ppid, int):
            children.setdefault(ppid, []).append(process)
    return children


class ProcessTree:
    """One process envtui started, and every process seen below it since.

    Created right after the start, it is sampled in the background until :meth:`forget`;
    :meth:`end` signals the root and every remembered descendant that still runs.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._seen: set[psutil.Process] = set()
        self._lock = threading.Lock()  # the sampler thread and the event loop both remember
        try:
            self.root: psutil.Process | None = psutil.Process(pid)
        except psutil.Error:
            self.root = None  # already gone: nothing below it to remember
        _REGISTRY.add(self)

    def remember(self, children: dict[int, list[psutil.Process]] | None = None) -> None:
        """Note the descendants now: of the root, and of those seen before (reparented).

        Processes that have ended are dropped, so a long run does not collect them.
        """
        children = _children_map() if children is None else children
        with self._lock:
            seen = {p for p in self._seen if _running(p)}
            stack = [self.pid, *(p.pid for p in seen)]
            while stack:
                for child in children.get(stack.pop(), ()):
                    if child not in seen and _running(child):
                        seen.add(child)
                        stack.append(child.pid)
            self._seen = seen

    @property
    def seen(self) -> set[psutil.Process]:
        with self._lock:
            return set(self._seen)

    def alive(self) -> list[psutil.Process]:
        """The root and the remembered descendants that still run."""
        members = ([self.root] if self.root is not None else []) + list(self.seen)
        return [p for p in members if _running(p)]

    def end(self, sig: int = signal.SIGKILL) -> None:
        """Signal the root and every remembered descendant (the same processes only)."""
        end(self.alive(), sig)

    def forget(self) -> None:
        """Stop sampling: the tree was ended (or its processes are someone else's now)."""
        _REGISTRY.discard(self)


class _Registry:
    """Every tree not yet forgotten, and the one thread that samples them all."""

    def __init__(self) -> None:
        self._trees: set[ProcessTree] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, tree: ProcessTree) -> None:
        with self._lock:
            self._trees.add(tree)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._sample, name="envtui-process-sampler", daemon=True
                )
                self._thread.start()

    def discard(self, tree: ProcessTree) -> None:
        with self._lock:
            self._trees.discard(tree)

    def trees(self) -> list[ProcessTree]:
        with self._lock:
            return list(self._trees)

    def _sample(self) -> None:
        while True:
            trees = self.trees()
            if not trees:
                with self._lock:  # stop; the next add starts a new thread
                    if not self._trees:
                        self._thread = None
                        return
                continue
            with contextlib.suppress(Exception):  # a sampler must never die
                children = _children_map()
                for tree in trees:
                    tree.remember(children)
            self._wake.wait(SAMPLE_INTERVAL)


_REGISTRY = _Registry()


def started_trees() -> list[ProcessTree]:
    """The trees of every process envtui started and has not ended yet."""
    return _REGISTRY.trees()


KILLED_GRACE = 2.0
"""Seconds the last sweep waits for what it killed to be gone (a signal is delivered, not
obeyed at once: a large process takes some milliseconds to end)."""


def end_started_since(before: frozenset[ProcessTree]) -> None:
    """SIGKILL what envtui started after ``before`` was taken and has not ended yet: what
    one run (a dashboard's source) left behind, and nothing that runs for another; then wait
    up to :data:`KILLED_GRACE` for it to be gone."""
    killed: list[psutil.Process] = []
    for tree in started_trees():
        if tree not in before:
            with contextlib.suppress(Exception):
                tree.remember()
                members = tree.alive()
                end(members, signal.SIGKILL)
                killed.extend(members)
                tree.forget()
    with contextlib.suppress(Exception):
        psutil.wait_procs(killed, timeout=KILLED_GRACE)


def end_all_started() -> None:
    """SIGKILL every process envtui started that still runs, and all it started.

    The last step of every exit path: the polite ends (SIGTERM, then waiting) come first,
    where each process was started; this only catches what they missed. Run at interpreter
    exit too.
    """
    end_started_since(frozenset())


atexit.register(end_all_started)
