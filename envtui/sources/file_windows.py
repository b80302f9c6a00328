"""Reading a growing file from an offset, here or on an SSH host: only the bytes not yet read.

A follower asks :meth:`FileWindow.read` for what lies past its offset; the answer says which
file it is (device and inode, so a replaced file is noticed), how long it is now (so a
truncated one is noticed) and carries at most ``limit`` new bytes. When the file has not
grown nothing is read at all: locally one ``stat``, over SSH one small command whose output
is the ``stat`` line alone. Every byte that crosses is counted in ``bytes_read``.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import asyncssh


@dataclass(frozen=True)
class FileView:
    """One look at the file: its identity, its size, and the bytes asked for.

    ``data`` starts one byte *before* the offset asked for (when the offset is not 0): the
    last byte already read, which lets the reader notice a file rewritten in place.
    """

    identity: str
    size: int
    data: bytes


class FileWindow(Protocol):
    name: str
    bytes_read: int

    async def read(self, offset: int, limit: int) -> FileView | None:
        """The file past ``offset`` (None: it does not exist); raises OSError when unreadable."""
        ...


class LocalFile:
    """A file on this machine."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = str(path)
        self.bytes_read = 0

    async def read(self, offset: int, limit: int) -> FileView | None:
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return None
        identity = f"{info.st_dev}:{info.st_ino}"
        if info.st_size <= offset:
            return FileView(identity, info.st_size, b"")
        start = max(0, offset - 1)
        with self.path.open("rb") as handle:
            handle.seek(start)
            data = handle.read(limit + (offset - start))
        self.bytes_read += len(data)
        return FileView(identity, info.st_size, data)


_REMOTE_READ = (
    # $1 path, $2 offset, $3 bytes to read: the stat line ("dev:inode size", GNU or BSD stat),
    # then, only when the file grew, its bytes from one before the offset.
    's=$(stat -L -c "%d:%i %s" -- "$1" 2>/dev/null || stat -L -f "%d:%i %z" -- "$1" 2>/dev/null)'
    ' || { echo missing; exit 0; }; echo "$s"; size=${s#* };'
    ' if [ "$size" -gt "$2" ]; then'
    ' start=$(( $2 > 0 ? $2 : 1 )); tail -c +"$start" -- "$1" | head -c "$3"; fi'
)


class SshFile:
    """A file on an SSH host, read with ``stat``, ``tail -c +N`` and ``head -c`` over ``conn``."""

    def __init__(self, connection: asyncssh.SSHClientConnection, path: str, host: str) -> None:
        self._connection = connection
        self.path = path
        self.name = f"{host}:{path}"
        self.bytes_read = 0

    async def read(self, offset: int, limit: int) -> FileView | None:
        want = limit + (1 if offset > 0 else 0)
        words = ["sh", "-c", shlex.quote(_REMOTE_READ), "sh", shlex.quote(self.path)]
        command = " ".join([*words, str(offset), str(want)])
        try:
            result = await self._connection.run(command, check=False, encoding=None)
        except asyncssh.Error as exc:
            raise OSError(f"cannot read over SSH: {exc}") from exc
        output = result.stdout if isinstance(result.stdout, bytes) else b""
        head, _, data = output.partition(b"\n")
        if head == b"missing":
            return None
        identity, _, size = head.decode("ascii", "replace").partition(" ")
        if not size.isdigit():
            raise OSError(f"cannot stat {self.path}: {head.decode('utf-8', 'replace')}")
        self.bytes_read += len(data)
        return FileView(identity, int(size), data)
