"""What the benchmarks share: a dashboard in a real pseudo-terminal, and one in-process whose
frames are turned into terminal output (and thrown away) exactly as on a terminal.

``PtyDashboard`` runs an ``envtui`` command in a pty of a given size, reads (and drops) all
it writes, and reports the CPU time and RSS of that process. ``Frames`` is a Textual driver
that is not headless: every frame is rendered to escape sequences and "written"; it counts
the bytes and remembers when the last frame went out.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Sequence
from typing import Any

import psutil
from textual.app import App
from textual.drivers.headless_driver import HeadlessDriver


class PtyDashboard:
    """``python -m envtui ARGS`` in a pseudo-terminal of ``size``, its output drained."""

    def __init__(
        self,
        args: Sequence[str],
        size: tuple[int, int] = (120, 40),
        cwd: str | None = None,
        pythonpath: str | None = None,
    ) -> None:
        self.args = list(args)
        self.size = size
        self.cwd = cwd
        self.pythonpath = pythonpath  # another checkout's code, to compare with
        self.output = 0
        self._tail = b""
        self._lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PtyDashboard:
        master, slave = pty.openpty()
        columns, rows = self.size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)}
        if self.pythonpath:
            env["PYTHONPATH"] = self.pythonpath
        self.process = subprocess.Popen(
            [sys.executable, "-m", "envtui", *self.args],
            stdin=slave, stdout=slave, stderr=slave, env=env, cwd=self.cwd, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self._master = master
        threading.Thread(target=self._drain, daemon=True).start()
        return self

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output += len(data)
                self._tail = (self._tail + data)[-65536:]

    def seen(self, text: str) -> bool:
        """Whether ``text`` was among the last 64 KiB the dashboard wrote."""
        with self._lock:
            return text.encode() in self._tail

    def cpu_seconds(self) -> float:
        assert self.process is not None
        times = psutil.Process(self.process.pid).cpu_times()
        return float(times.user + times.system)

    def rss(self) -> int:
        assert self.process is not None
        return int(psutil.Process(self.process.pid).memory_info().rss)

    def cpu_share(self, seconds: float) -> float:
        """The fraction of one core the dashboard used over the next ``seconds``."""
        before, start = self.cpu_seconds(), time.monotonic()
        time.sleep(seconds)
        return (self.cpu_seconds() - before) / (time.monotonic() - start)

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        os.write(self._master, b"q")
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._master)


class Frames(HeadlessDriver):
    """A driver that is not headless: frames become terminal output, which is counted."""

    bytes_written = 0
    frames = 0
    last_frame = 0.0

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        type(self).bytes_written += len(data.encode())
        type(self).frames += 1
        type(self).last_frame = time.perf_counter()

    def flush(self) -> None:
        pass


async def run_in_process(app: App[Any], size: tuple[int, int]) -> asyncio.Task[Any]:
    """Start ``app`` with :class:`Frames` as its terminal; its task (``app.exit()`` ends it)."""
    app.driver_class = Frames
    task = asyncio.ensure_future(app.run_async(size=size))
    while not app.is_running or app.screen is None:
        await asyncio.sleep(0.01)
    return task


async def frame_after(moment: float, timeout: float = 10.0) -> float:
    """When the first frame written after ``moment`` went out."""
    deadline = time.perf_counter() + timeout
    while Frames.last_frame <= moment:
        if time.perf_counter() > deadline:
            raise TimeoutError("no frame was written")
        await asyncio.sleep(0.001)
    return Frames.last_frame
