"""The real managed daemon: ``codex app-server daemon start`` in a test ``CODEX_HOME``.

A first start copies the binaries (about 424 MB) into ``CODEX_HOME/packages``, so a test
session makes one home and keeps it. The daemon runs in an empty network namespace (it is
started under ``unshare -n``; nothing it does reaches out). Ending it: ``daemon stop``
leaves its ``pid-update-loop`` process running (pid in
``app-server-daemon/daemon-updater.pid``), and SIGTERM may not end the daemon; so both are
ended by their pids, SIGKILL after a short wait.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil

from tests.support.real.codex_tools import CODEX, UNSHARE

PIDS = ("daemon.pid", "daemon-updater.pid")


def daemon_command(home: Path, *words: str) -> subprocess.CompletedProcess[str]:
    """``codex app-server daemon WORDS`` on ``home``, offline."""
    assert CODEX is not None
    assert UNSHARE is not None
    return subprocess.run(
        [UNSHARE, "-n", str(CODEX), "app-server", "daemon", *words],
        env={**os.environ, "CODEX_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def daemon_pids(home: Path) -> list[int]:
    """The pids the daemon wrote (the server and its update loop) that still run."""
    pids = []
    for name in PIDS:
        path = home / "app-server-daemon" / name
        try:
            pid = json.loads(path.read_text())["pid"]
        except (OSError, ValueError, KeyError):
            continue
        if psutil.pid_exists(pid):
            pids.append(pid)
    return pids


def end_daemon(home: Path) -> None:
    """End the daemon and its update loop by their pids: TERM, then KILL after a short wait."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in daemon_pids(home):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 3
        while daemon_pids(home) and time.monotonic() < deadline:
            time.sleep(0.05)  # bounded by the deadline above
