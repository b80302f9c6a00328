"""The processes a test run started and left alive, found by a mark in their environment.

A process that outlives its parent is reparented to PID 1, so the tree below pytest does not
find it; its environment still holds what it inherited. Every process of the run gets
``ENVTUI_TEST_RUN=<random>``; at the end, a live process (not pytest itself, nor a zombie)
whose environment holds this run's value was left behind.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time

import psutil

RUN_MARKER = "ENVTUI_TEST_RUN"
POLL = 0.1


def run_mark() -> str:
    return secrets.token_hex(8)


def _marked(mark: str) -> list[psutil.Process]:
    """Live processes carrying ``mark``, and pytest's own descendants (a test may give a
    child an environment of its own, without the mark)."""
    found: dict[int, psutil.Process] = {}
    with contextlib.suppress(psutil.Error):
        found.update((p.pid, p) for p in psutil.Process().children(recursive=True))
    for process in psutil.process_iter():
        if process.pid == os.getpid() or process.pid in found:
            continue
        try:
            if process.environ().get(RUN_MARKER) == mark:
                found[process.pid] = process
        except psutil.Error:  # gone, or not ours to read
            continue
    return [p for p in found.values() if _alive(p)]


def _alive(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _describe(process: psutil.Process) -> str:
    try:
        command = " ".join(process.cmdline())[:200]
        return f"pid {process.pid} (parent {process.ppid()}): {command}"
    except psutil.Error:
        return f"pid {process.pid}: gone while listed"


def leftover_processes(mark: str, grace: float) -> list[str]:
    """Descriptions of the marked processes still alive after up to ``grace`` seconds."""
    deadline = time.monotonic() + grace
    while (alive := _marked(mark)) and time.monotonic() < deadline:
        time.sleep(POLL)
    return [_describe(p) for p in alive]


def end_leftovers(mark: str, timeout: float = 5.0) -> None:
    """Kill every marked process that is still alive, and wait until each is dead.

    A killed process that is not pytest's child is a zombie until its new parent reaps it,
    which may take seconds (``psutil.wait_procs`` waits for that); a zombie is dead already.
    """
    alive = _marked(mark)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    deadline = time.monotonic() + timeout
    while (alive := [p for p in alive if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(POLL / 5)
