"""Where a sessions tree's rollout files are read from: this machine, or a host over SFTP.

The index asks two things of a tree, and nothing else: which rollout files it holds now
(with size, modification time and, where the filesystem says, an identity that changes
when a file is replaced), and a range of one file's bytes. Both calls are synchronous: the
index runs in a worker thread, so a large read never holds up the dashboard's loop.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from envtui.vocabulary.events import Source

ROLLOUT_PREFIX = "rollout-"
ROLLOUT_SUFFIX = ".jsonl"
MAX_DEPTH = 4
"""``sessions/YYYY/MM/DD/rollout-….jsonl`` is three folders down; one more is tolerated."""


@dataclass(frozen=True)
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

    def listing(self) -> list[FileInfo]: ...

    def read(self, path: str, offset: int, size: int) -> bytes: ...

    async def open(self) -> None:
        """Be ready to list and read (connect, for a host); raises OSError with the reason."""

    async def aclose(self) -> None: ...

    def rollout_source(self, path: str) -> Source:
        """The rollout dashboard's source for one file, followed as it grows."""
        ...


def is_rollout_name(name: str) -> bool:
    return name.startswith(ROLLOUT_PREFIX) and name.endswith(ROLLOUT_SUFFIX)


def default_sessions_dir(environ: dict[str, str] | None = None) -> Path:
    """``$CODEX_HOME/sessions``, else ``~/.codex/sessions``."""
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "sessions"


class LocalSessionFiles:
    """A sessions tree on this machine."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.name = str(root)

    def listing(self) -> list[FileInfo]:
        if not self.root.is_dir():
            raise FileNotFoundError(2, "no such directory", str(self.root))
        found: list[FileInfo] = []
        self._walk(str(self.root), 0, found)
        return found

    def _walk(self, folder: str, depth: int, found: list[FileInfo]) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return  # a day folder removed while listed, or unreadable: its files are not shown
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH:
                        self._walk(entry.path, depth + 1, found)
                elif is_rollout_name(entry.name) and entry.is_file():
                    stat = entry.stat()
                    identity = (stat.st_dev, stat.st_ino)
                    found.append(FileInfo(entry.path, stat.st_size, stat.st_mtime, identity))
            except OSError:
                continue  # gone between the listing and the stat

    def read(self, path: str, offset: int, size: int) -> bytes:
        with open(path, "rb") as handle:
            handle.seek(offset)
            return handle.read(size)

    async def open(self) -> None:
        return None  # nothing to connect to

    async def aclose(self) -> None:
        return None

    def rollout_source(self, path: str) -> Source:
        from envtui.sources.rollout_follow import follow_rollout

        return functools.partial(follow_rollout, Path(path), follow=True)
