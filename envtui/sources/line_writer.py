"""Writing lines of JSON to a file or standard output without ever blocking the event loop.

``envtui events`` and every ``--record`` write one line per event. A write can fail (a full
disk, ``/dev/full``) or block (a pipe nobody reads, a stuck network file system); done on
the event loop, a blocked write would stop everything, signal handling included. So the
lines go to a thread of their own through a bounded queue:

* each line is handed to the operating system as soon as the thread takes it, whole lines
  only, so a process killed at any moment leaves valid JSONL up to its last complete line;
* a write error stops the writing, once, with a reason that names the file; on a regular
  file, a line cut short by the error is removed again;
* lines that wait too long to be written (:data:`MAX_WAITING` bytes) mean the output is
  blocked: that is a failure too, not a queue that grows until memory runs out.

The owner hears about a failure through ``on_failure``, called on the writer's thread
(pass something thread-safe, such as ``loop.call_soon_threadsafe``).
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from envtui.vocabulary.limits import MIB, size_text

MAX_WAITING = 64 * MIB
"""Bytes of lines that may wait for a blocked output before writing counts as failed."""


class LineWriter:
    """Whole lines to one file descriptor, written by a thread of their own."""

    def __init__(
        self,
        fd: int,
        name: str,
        on_failure: Callable[[str], Any] | None = None,
        *,
        max_waiting: int = MAX_WAITING,
    ) -> None:
        self.name = name
        """How the output is named in messages: a path, or ``standard output``."""
        self.failure: str | None = None
        """Why writing stopped (None while it works)."""
        self.on_failure = on_failure
        self.written = 0
        """Lines written so far."""
        self._fd = fd
        self._max_waiting = max_waiting
        self._lines: deque[bytes] = deque()
        self._waiting = 0
        self._closing = False
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=f"envtui-writer {name}", daemon=True)
        self._thread.start()

    @classmethod
    def open(
        cls, path: str, on_failure: Callable[[str], Any] | None = None, *, append: bool = False
    ) -> LineWriter:
        """Create or truncate ``path`` (or add to it with ``append``); OSError as ``open``
        raises it."""
        mode = os.O_APPEND if append else os.O_TRUNC
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode | os.O_CLOEXEC, 0o666)
        return cls(fd, path, on_failure)

    @classmethod
    def stdout(cls, on_failure: Callable[[str], Any] | None = None) -> LineWriter:
        """Standard output (a copy of its descriptor, so closing the writer leaves it open)."""
        return cls(os.dup(1), "standard output", on_failure)

    def write(self, line: str) -> None:
        """Queue one line (without its newline); dropped once writing stopped or closed."""
        data = line.encode("utf-8", errors="surrogatepass") + b"\n"
        with self._ready:
            if self.failure is not None or self._closing:
                return
            if self._waiting + len(data) > self._max_waiting:
                unwritten = size_text(self._max_waiting)
                self._fail(f"{self.name}: the output is blocked ({unwritten} unwritten)")
                return
            self._lines.append(data)
            self._waiting += len(data)
            self._ready.notify()

    def close(self, timeout: float) -> bool:
        """Write what is queued (for at most ``timeout`` seconds), then close.

        False when lines were still unwritten at the end of the time, because the output
        is blocked; the thread is then left behind, and the descriptor with it.
        """
        with self._ready:
            self._closing = True
            self._ready.notify()
        self._thread.join(timeout)
        if self._thread.is_alive():
            return False
        with contextlib.suppress(OSError):
            os.close(self._fd)
        return self.failure is None

    def _fail(self, reason: str) -> None:
        """Called with the lock held: stop writing, drop what waits, tell the owner."""
        if self.failure is not None:
            return
        self.failure = reason
        self._lines.clear()
        self._waiting = 0
        if self.on_failure is not None:
            with contextlib.suppress(Exception):  # an owner whose loop has closed
                self.on_failure(reason)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._lines and not self._closing:
                    self._ready.wait()
                if not self._lines:
                    return  # closing, and everything is written
                batch = b"".join(self._lines)
                count = len(self._lines)
                self._lines.clear()
                self._waiting = 0
            error = self._write_all(batch)
            with self._ready:
                if error is not None:
                    self._fail(f"{self.name}: cannot write: {error}")
                    return
                self.written += count

    def _write_all(self, data: bytes) -> str | None:
        """Write ``data`` (whole lines); the reason when it could not, with the cut line removed."""
        start = _position(self._fd)
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except InterruptedError:
                continue
            except OSError as exc:
                if start is not None:  # a regular file: keep it valid JSONL
                    good = data.rfind(b"\n", 0, len(data) - len(view)) + 1
                    with contextlib.suppress(OSError):
                        os.ftruncate(self._fd, start + good)
                        os.lseek(self._fd, start + good, os.SEEK_SET)
                return exc.strerror or str(exc)
        return None


def _position(fd: int) -> int | None:
    """Where the next write lands, for a regular file; None for a pipe or a terminal."""
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return os.lseek(fd, 0, os.SEEK_CUR)
    except OSError:
        pass
    return None
