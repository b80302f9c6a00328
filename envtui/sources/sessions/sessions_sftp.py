"""A host's sessions tree over SFTP, with the same host-key rules as SSH environments.

The connection is opened by :func:`envtui.environments.ssh.open_connection` (known_hosts
always checked). The index calls :meth:`SftpSessionFiles.list` and ``read`` from its worker
thread; each call runs on the loop that owns the connection and waits for the answer. A
lost connection makes the next listing fail (the view says the source is down) and the
one after that connects again.
"""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import asyncssh

from envtui.environments.ssh import (
    SshSettings,
    close_connection,
    describe_ssh_error,
    open_connection,
)
from envtui.sources.file_windows import FileView
from envtui.sources.rollout_follow import RolloutFollower, read_window
from envtui.sources.sessions.tree_listing import (
    MAX_DEPTH,
    FileInfo,
    is_misnamed,
    is_rollout_name,
)
from envtui.vocabulary.events import EventSink, Source

T = TypeVar("T")
CALL_TIMEOUT = 60.0
"""Seconds one listing or read may take before the poll gives up on it."""


def remote_root(directory: str | None) -> str:
    """The tree on the host: relative paths (and ``~/``) are from the login directory."""
    if not directory:
        return ".codex/sessions"
    return directory[2:] if directory.startswith("~/") else directory


class SftpSessionFiles:
    """A sessions tree on an SSH host; :meth:`open` on the loop before the index uses it."""

    def __init__(
        self,
        settings: SshSettings,
        root: str,
        *,
        client_keys: Sequence[asyncssh.SSHKey] | None = None,
    ) -> None:
        self.settings = settings
        self.root = root
        self.name = f"ssh {settings.target()}:{root}"
        self._client_keys = client_keys
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connection: asyncssh.SSHClientConnection | None = None
        self._sftp: asyncssh.SFTPClient | None = None
        self._connecting: asyncio.Lock | None = None
        self.outside: list[str] = []  # links out of the tree, as last listed
        self.misnamed: list[str] = []  # .jsonl files not named as rollouts, as last listed

    async def open(self) -> None:
        """Connect now; raises OSError with the reason when the host cannot be used."""
        self._loop = asyncio.get_running_loop()
        await self._connect()

    async def _connect(self) -> asyncssh.SFTPClient:
        """The SFTP client, connected again if the connection was lost; one connection at
        a time (the host's daemon asks for it too, while a poll may be reading)."""
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            return await self._connect_now()

    async def _connect_now(self) -> asyncssh.SFTPClient:
        connection = self._connection
        if self._sftp is not None and connection is not None and not connection.is_closed():
            return self._sftp
        await self.aclose()
        lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        try:
            self._connection, _ = await open_connection(
                self.settings, lost, client_keys=self._client_keys
            )
            self._sftp = await self._connection.start_sftp_client()
        except (OSError, asyncssh.Error, Exception) as exc:
            await self.aclose()
            raise OSError(describe_ssh_error(exc, self.settings)) from None
        return self._sftp

    async def connection(self) -> asyncssh.SSHClientConnection:
        """The connection the tree is read over (connected again if it was lost), for the
        host's daemon to be reached over it too; OSError says why it cannot be had."""
        await self._connect()
        assert self._connection is not None
        return self._connection

    async def aclose(self) -> None:
        connection, self._connection, self._sftp = self._connection, None, None
        await close_connection(connection)

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None, "open() first"
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return future.result(timeout=CALL_TIMEOUT)

    # --- what the index calls, from its thread ----------------------------------------------

    def listing(self) -> list[FileInfo]:
        return self._call(self._list())

    def read(self, path: str, offset: int, size: int) -> bytes:
        return self._call(self._read(path, offset, size))

    async def _list(self) -> list[FileInfo]:
        sftp = await self._connect()
        listed = _Listing()
        try:
            listed.root = str(await sftp.realpath(self.root))
            await self._walk(sftp, self.root, 0, listed)
        except asyncssh.SFTPNoSuchFile:
            raise FileNotFoundError(2, "no such directory", self.root) from None
        except (asyncssh.Error, OSError) as exc:
            await self.aclose()
            raise OSError(describe_ssh_error(exc, self.settings)) from None
        self.outside = listed.outside
        self.misnamed = listed.misnamed
        return listed.found

    async def _walk(
        self, sftp: asyncssh.SFTPClient, folder: str, depth: int, listed: _Listing
    ) -> None:
        async for entry in sftp.scandir(folder):
            name = str(entry.filename)
            mode = entry.attrs.permissions or 0
            path = f"{folder}/{name}"
            if name in (".", ".."):
                continue
            if stat.S_ISDIR(mode) and depth < MAX_DEPTH:
                try:
                    await self._walk(sftp, path, depth + 1, listed)
                except asyncssh.SFTPNoSuchFile:
                    continue  # a folder removed while listed: its files go (as here)
            elif stat.S_ISREG(mode) and is_rollout_name(name):
                size, mtime = entry.attrs.size or 0, float(entry.attrs.mtime or 0)
                listed.found.append(FileInfo(path, size, mtime))
            elif stat.S_ISREG(mode) and is_misnamed(name):
                listed.misnamed.append(path)
            elif stat.S_ISLNK(mode):
                await self._link(sftp, path, name, listed)

    async def _link(
        self, sftp: asyncssh.SFTPClient, path: str, name: str, listed: _Listing
    ) -> None:
        """A link in the tree: a rollout when it resolves inside it; counted when outside.

        A link to a folder is never followed (a loop stays a loop), as on this machine."""
        try:
            real = str(await sftp.realpath(path))
            attrs = await sftp.stat(path)
        except asyncssh.SFTPError:
            real, attrs = "", None  # dangling: it leads nowhere inside the tree either
        inside = real == listed.root or real.startswith(listed.root.rstrip("/") + "/")
        rollout = is_rollout_name(name)
        if not inside:
            if rollout or (attrs is not None and stat.S_ISDIR(attrs.permissions or 0)):
                listed.outside.append(path)
        elif rollout and attrs is not None and stat.S_ISREG(attrs.permissions or 0):
            listed.found.append(FileInfo(path, attrs.size or 0, float(attrs.mtime or 0)))

    async def _read(self, path: str, offset: int, size: int) -> bytes:
        sftp = await self._connect()
        try:
            async with sftp.open(path, "rb") as handle:
                data = await handle.read(size, offset)
        except (asyncssh.Error, OSError) as exc:
            raise OSError(f"{path}: {exc}") from None
        return data if isinstance(data, bytes) else data.encode()

    # --- one thread, opened from the table ----------------------------------------------------

    def rollout_source(self, path: str) -> Source:
        """The rollout dashboard's source for a file on the host, followed as it grows.

        Only the bytes past what was read cross the connection (an SFTP read at the offset).
        """

        async def run(sink: EventSink, stop: asyncio.Event) -> None:
            window = _SftpWindow(self, path)
            await read_window(window, RolloutFollower(window.name, sink), stop, follow=True)

        return run


@dataclass
class _Listing:
    """What one listing of the tree found, and where the tree really is."""

    root: str = ""
    found: list[FileInfo] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    misnamed: list[str] = field(default_factory=list)


class _SftpWindow:
    """One rollout on the host as a :class:`~envtui.sources.file_windows.FileWindow`.

    SFTP gives no inode, so a replaced file is noticed by its size shrinking or by other
    bytes where the last one read was (the follower checks both).
    """

    def __init__(self, files: SftpSessionFiles, path: str) -> None:
        self._files = files
        self.path = path
        self.name = f"{files.settings.target()}:{path}"
        self.bytes_read = 0

    async def read(self, offset: int, limit: int) -> FileView | None:
        sftp = await self._files._connect()
        try:
            attrs = await sftp.stat(self.path)
        except asyncssh.SFTPNoSuchFile:
            return None
        except (asyncssh.Error, OSError) as exc:
            raise OSError(f"{self.path}: {exc}") from None
        size = attrs.size or 0
        if size <= offset:
            return FileView(self.path, size, b"")
        start = max(0, offset - 1)
        data = await self._files._read(self.path, start, limit + (offset - start))
        self.bytes_read += len(data)
        return FileView(self.path, size, data)
