"""Finding and ending the processes a child started, even in process groups of their own.

``codex app-server`` puts every exec-server it starts in its own process group, so ending
the app-server's group leaves them running. envtui remembers every descendant it has seen
(pid and start time, so a reused pid is never hit) and ends them itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

ProcessKey = tuple[int, int]  # pid, start time in clock ticks since boot


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time, state) of a process, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[19]), fields[0]


def descendants(root: int) -> set[ProcessKey]:
    """Every live process below ``root`` (children, their children, …)."""
    parents: dict[int, list[tuple[int, int]]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        stat = _stat(int(entry.name))
        if stat is not None and stat[2] != "Z":
            parents.setdefault(stat[0], []).append((int(entry.name), stat[1]))
    found: set[ProcessKey] = set()
    pending = [root]
    while pending:
        for pid, started in parents.get(pending.pop(), []):
            if (pid, started) not in found:
                found.add((pid, started))
                pending.append(pid)
    return found


def alive(key: ProcessKey) -> bool:
    stat = _stat(key[0])
    return stat is not None and stat[1] == key[1] and stat[2] != "Z"


def end(keys: set[ProcessKey], sig: int = signal.SIGKILL) -> None:
    """Signal each remembered process that is still the same process."""
    for key in keys:
        if alive(key):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(key[0], sig)
