"""The rollout files of a sessions tree on this machine, kept up to date at the cost of what
changes, not of what is there.

Each refresh stats the folders; a folder is read again only when its own mtime moved (a
file was added, removed or renamed in it), or moved so recently that its coarse clock may
not show the next change yet. A file written within ``hot_for`` seconds (at most
:data:`HOT_MAX` of them) is stat'ed at every refresh; every other one once in
``cold_turns`` refreshes, in turns (each refresh takes its share), so a quiet thread
written again is seen within that many refreshes and a tree of 10,000 quiet threads costs
a few hundred stats a refresh. Which paths were added, changed or removed since the last
time they were taken is kept (:meth:`TreeListing.take_changes`), so that whoever follows
the tree looks at those alone. A link whose target is outside the tree (after resolving)
is never listed: it is in :attr:`TreeListing.outside`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, TypedDict

HOT_FOR = 300.0
"""Seconds since its last write within which a file is looked at on every refresh."""
HOT_MAX = 200
"""The most files looked at for being recently written; more are taken as quiet (a tree just
copied has thousands, a fleet at work a few dozen)."""
COLD_TURNS = 30
"""A quiet file is looked at once in this many refreshes."""
FRESH_FOLDER = 2.0
"""Seconds within which a folder's mtime may not yet show every change (its clock is coarse):
a folder changed that recently is read again at every refresh."""
MAX_DEPTH = 4
"""``sessions/YYYY/MM/DD/rollout-….jsonl`` is three folders down; one more is tolerated."""
ROLLOUT_PREFIX = "rollout-"
ROLLOUT_SUFFIX = ".jsonl"


class ListingPace(TypedDict, total=False):
    """How often a :class:`TreeListing` looks at its files (see the module), for those that
    make one."""

    hot_for: float
    cold_turns: int
    clock: Callable[[], float]


class FileInfo(NamedTuple):
    path: str
    size: int
    mtime: float
    identity: tuple[int, int] | None = None  # (device, inode) where known

    @property
    def name(self) -> str:
        return self.path.rpartition("/")[2]


def is_rollout_name(name: str) -> bool:
    return name.startswith(ROLLOUT_PREFIX) and name.endswith(ROLLOUT_SUFFIX)


def is_misnamed(name: str) -> bool:
    """A JSONL file that is not named as Codex names a rollout: counted, not read."""
    return name.endswith(ROLLOUT_SUFFIX) and not is_rollout_name(name)


def stat_info(path: str) -> FileInfo:
    stat = os.stat(path)
    return FileInfo(path, stat.st_size, stat.st_mtime, (stat.st_dev, stat.st_ino))


@dataclass
class _Folder:
    """One folder as last read: its mtime, subfolders, rollouts and links out of the tree."""

    mtime: int
    subfolders: list[str] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    outside: list[str] = field(default_factory=list)
    misnamed: list[str] = field(default_factory=list)


class TreeListing:
    """See the module; :meth:`refresh` raises FileNotFoundError when the tree is gone."""

    def __init__(
        self,
        root: Path,
        *,
        hot_for: float = HOT_FOR,
        cold_turns: int = COLD_TURNS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.root = root
        self.hot_for = hot_for
        self.clock = clock
        self.files: dict[str, FileInfo] = {}  # every rollout, by path
        self.outside: list[str] = []
        self.misnamed: list[str] = []  # .jsonl files not named as rollouts: never read
        self._folders: dict[str, _Folder] = {}
        self._hot: set[str] = set()
        self._turns: list[set[str]] = [set() for _ in range(max(1, cold_turns))]
        self._turn = 0
        self._changed: set[str] = set()
        self._real_root = ""

    def take_changes(self) -> set[str]:
        """The paths added, changed or removed since the last call."""
        changed, self._changed = self._changed, set()
        return changed

    def refresh(self) -> None:
        if not self.root.is_dir():
            raise FileNotFoundError(2, "no such directory", str(self.root))
        self._real_root = os.path.realpath(self.root)
        self._turn = (self._turn + 1) % len(self._turns)
        due = self._hot | self._turns[self._turn]
        seen: set[str] = set()
        self._visit(str(self.root), 0, seen, due)
        for gone in [f for f in self._folders if f not in seen]:
            for path in self._folders.pop(gone).files:
                self._forget(path)
        for path in due & self.files.keys():
            self._restat(path)
        self.outside = [link for folder in self._folders.values() for link in folder.outside]
        self.misnamed = [path for folder in self._folders.values() for path in folder.misnamed]

    def _visit(self, path: str, depth: int, seen: set[str], due: set[str]) -> None:
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return  # a day folder removed while listed, or unreadable: its files go
        seen.add(path)
        folder = self._folders.get(path)
        recent = self.clock() * 1e9 - mtime < FRESH_FOLDER * 1e9
        if folder is None or folder.mtime != mtime or recent:
            folder = self._scan(path, mtime, folder, due)
            if folder is None:
                return
            self._folders[path] = folder
        if depth < MAX_DEPTH:
            for sub in folder.subfolders:
                self._visit(sub, depth + 1, seen, due)

    def _scan(self, path: str, mtime: int, before: _Folder | None, due: set[str]) -> _Folder | None:
        """The folder read again: new rollouts stat'ed now, the known ones when due."""
        try:
            entries = list(os.scandir(path))
        except OSError:
            return None
        folder = _Folder(mtime)
        for entry in entries:
            try:
                if entry.is_symlink() and not self._inside(entry.path):
                    if entry.is_dir() or is_rollout_name(entry.name):
                        folder.outside.append(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    folder.subfolders.append(entry.path)
                elif is_rollout_name(entry.name) and entry.is_file():
                    folder.files.add(entry.path)
                    if entry.path not in self.files:
                        self._remember(stat_info(entry.path))
                        due.discard(entry.path)
                elif is_misnamed(entry.name) and entry.is_file():
                    folder.misnamed.append(entry.path)
            except OSError:
                continue  # gone between the listing and the stat
        for gone in (before.files if before is not None else set()) - folder.files:
            self._forget(gone)
        return folder

    def _restat(self, path: str) -> None:
        try:
            self._remember(stat_info(path))
        except OSError:
            self._forget(path)  # removed: its folder's mtime says so too

    def _remember(self, info: FileInfo) -> None:
        path = info.path
        if self.files.get(path) != info:
            self.files[path] = info
            self._changed.add(path)
            self._turns[hash(path) % len(self._turns)].add(path)
        recent = self.clock() - info.mtime <= self.hot_for
        if recent and (path in self._hot or len(self._hot) < HOT_MAX):
            self._hot.add(path)
        else:
            self._hot.discard(path)

    def _forget(self, path: str) -> None:
        if self.files.pop(path, None) is not None:
            self._changed.add(path)
        self._hot.discard(path)
        self._turns[hash(path) % len(self._turns)].discard(path)

    def _inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self._real_root or real.startswith(self._real_root + os.sep)
