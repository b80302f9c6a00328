"""Whether a process still runs (a zombie, exited but not reaped, does not count)."""

from __future__ import annotations

import psutil


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
