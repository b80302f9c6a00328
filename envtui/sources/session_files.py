"""Where a sessions tree's rollout files are read from: this machine, or a host over SFTP.

The index asks two things of a tree, and nothing else: which rollout files it holds now
(with size, modification time and, where the filesystem says, an identity that changes
when a file is replaced), and a range of one file's bytes. Both calls are synchronous: the
index runs in a worker thread, so a large read never holds up the dashboard's loop.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

if TYPE_CHECKING:
    from envtui.vocabulary.events import Source

ROLLOUT_PREFIX = "rollout-"
ROLLOUT_SUFFIX = ".jsonl"
MAX_DEPTH = 4
"""``sessions/YYYY/MM/DD/rollout-….jsonl`` is three folders down; one more is tolerated."""
HOT_FOR = 300.0
"""Seconds since its last write within which a file is looked at on every listing."""
FRESH_FOLDER = 2.0
"""Seconds within which a folder's mtime may not yet show every change (its clock is coarse):
a folder changed that recently is read again at every listing."""
COLD_TURNS = 20
"""A quiet file is looked at once in this many listings (each listing takes its share)."""


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str
    size: int
    mtime: float
    identity: tuple[int, int] | None = None  # (device, inode) where known

    @property
    def name(self) -> str:
        return self.path.rpartition("/")[2]


class SessionFiles(Protocol):
    """A sessions tree: its rollout files and their bytes. Both raise OSError on failure."""

    name: str
    outside: list[str]  # links that resolve out of the tree, skipped at the last listing

    def listing(self) -> list[FileInfo]: ...

    def read(self, path: str, offset: int, size: int) -> bytes: ...

    async def open(self) -> None:
        """Be ready to list and read (connect, for a host); raises OSError with the reason."""

    async def aclose(self) -> None: ...

    def rollout_source(self, path: str) -> Source:
        """The rollout dashboard's source for one file, followed as it grows."""
        ...


@dataclass
class _Folder:
    """One folder of the tree as last read: its mtime, subfolders and rollouts by name."""

    mtime: int
    subfolders: list[str] = field(default_factory=list)
    files: dict[str, FileInfo] = field(default_factory=dict)
    outside: list[str] = field(default_factory=list)  # links that resolve out of the tree


def _info(path: str) -> FileInfo:
    stat = os.stat(path)
    return FileInfo(path, stat.st_size, stat.st_mtime, (stat.st_dev, stat.st_ino))


def is_rollout_name(name: str) -> bool:
    return name.startswith(ROLLOUT_PREFIX) and name.endswith(ROLLOUT_SUFFIX)


def default_sessions_dir(environ: dict[str, str] | None = None) -> Path:
    """``$CODEX_HOME/sessions``, else ``~/.codex/sessions``."""
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "sessions"


class LocalSessionFiles:
    """A sessions tree on this machine, listed at a cost that follows what changes.

    Each listing stats the folders; a folder is read again only when its own mtime moved
    (a file was added, removed or renamed in it). A file written within :data:`HOT_FOR`
    seconds is stat'ed at every listing; the others (the quiet threads, most of a large
    tree) in turns, a :data:`COLD_TURNS`-th of them at each listing, so a quiet thread
    written again is seen within that many listings and a tree of 10,000 idle threads
    costs a few hundred stats a poll, not 10,000. A link whose target is outside the tree
    (after resolving) is never read: it is counted in :attr:`outside`.
    """

    def __init__(
        self,
        root: Path,
        *,
        hot_for: float = HOT_FOR,
        cold_turns: int = COLD_TURNS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.root = root
        self.name = str(root)
        self.hot_for = hot_for
        self.cold_turns = max(1, cold_turns)
        self.clock = clock
        self.outside: list[str] = []  # links out of the tree, as last listed
        self._folders: dict[str, _Folder] = {}
        self._turn = 0
        self._open_file: BinaryIO | None = None

    def listing(self) -> list[FileInfo]:
        if not self.root.is_dir():
            raise FileNotFoundError(2, "no such directory", str(self.root))
        self._real_root = os.path.realpath(self.root)
        seen: set[str] = set()
        self._turn = (self._turn + 1) % self.cold_turns
        self._visit(str(self.root), 0, seen)
        for gone in [f for f in self._folders if f not in seen]:
            del self._folders[gone]
        found: list[FileInfo] = []
        outside: list[str] = []
        for folder in self._folders.values():
            found.extend(folder.files.values())
            outside.extend(folder.outside)
        self.outside = outside
        return found

    def _visit(self, path: str, depth: int, seen: set[str]) -> None:
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return  # a day folder removed while listed, or unreadable: its files are not shown
        seen.add(path)
        folder = self._folders.get(path)
        recent = self.clock() * 1e9 - mtime < FRESH_FOLDER * 1e9  # its mtime may move again
        if folder is None or folder.mtime != mtime or recent:
            folder = self._scan(path, mtime, folder)
            if folder is None:
                return
            self._folders[path] = folder
        else:
            self._restat(folder)
        if depth < MAX_DEPTH:
            for sub in folder.subfolders:
                self._visit(sub, depth + 1, seen)

    def _scan(self, path: str, mtime: int, before: _Folder | None) -> _Folder | None:
        """The folder read again: its subfolders, and its rollouts (new ones stat'ed)."""
        try:
            entries = list(os.scandir(path))
        except OSError:
            return None
        folder = _Folder(mtime)
        known = before.files if before is not None else {}
        for entry in entries:
            try:
                if entry.is_symlink() and not self._inside(entry.path):
                    if entry.is_dir() or is_rollout_name(entry.name):
                        folder.outside.append(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    folder.subfolders.append(entry.path)
                elif is_rollout_name(entry.name) and entry.is_file():
                    info = known.get(entry.name)
                    folder.files[entry.name] = self._restated(info) if info else _info(entry.path)
            except OSError:
                continue  # gone between the listing and the stat
        return folder

    def _restat(self, folder: _Folder) -> None:
        """The hot files again, and the cold ones whose turn it is."""
        now = self.clock()
        for name, info in list(folder.files.items()):
            if now - info.mtime <= self.hot_for or hash(name) % self.cold_turns == self._turn:
                try:
                    folder.files[name] = self._restated(info)
                except OSError:
                    del folder.files[name]  # removed: the folder's mtime says so next time

    def _restated(self, info: FileInfo) -> FileInfo:
        fresh = _info(info.path)
        return info if fresh == info else fresh

    def _inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self._real_root or real.startswith(self._real_root + os.sep)

    def read(self, path: str, offset: int, size: int) -> bytes:
        """Bytes of one file; the file stays open for the next read of it, until another
        file is read or :meth:`release` (the index reads a file's head, tail and middle in
        turn, and calls it at the end of each poll)."""
        handle = self._open_file
        if handle is None or handle.name != path:
            self.release()
            handle = self._open_file = open(path, "rb")  # noqa: SIM115 (kept open on purpose)
        handle.seek(offset)
        return handle.read(size)

    def release(self) -> None:
        handle, self._open_file = self._open_file, None
        if handle is not None:
            handle.close()

    async def open(self) -> None:
        return None  # nothing to connect to

    async def aclose(self) -> None:
        self.release()

    def rollout_source(self, path: str) -> Source:
        from envtui.sources.rollout_follow import follow_rollout

        return functools.partial(follow_rollout, Path(path), follow=True)
