"""Finding and ending the processes a child started, even in process groups of their own.

``codex app-server`` puts every exec-server it starts in its own process group, so ending
the app-server's group leaves them running. envtui remembers every descendant it has seen
and ends them itself. psutil identifies a process by pid *and* creation time, so a pid
the system has since given to an unrelated process is never signalled; it also works
beyond Linux, where there is no ``/proc`` to read.
"""

from __future__ import annotations

import contextlib
import os
import signal

import psutil


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


def end(processes: set[psutil.Process], sig: int = signal.SIGKILL) -> None:
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
