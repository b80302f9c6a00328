"""Where a sessions tree's rollout files are read from: this machine, or a host over SFTP.

The index asks two things of a tree, and nothing else: which rollout files it holds now
(with size, modification time and, where the filesystem says, an identity that changes
when a file is replaced), and a range of one file's bytes. Both calls are synchronous: the
index runs in a worker thread, so a large read never holds up the dashboard's loop.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol, Unpack

from envtui.sources.sessions.tree_listing import FileInfo, ListingPace, TreeListing

if TYPE_CHECKING:
    from envtui.vocabulary.events import Source


class SessionFiles(Protocol):
    """A sessions tree: its rollout files and their bytes. Both raise OSError on failure."""

    name: str

    @property
    def outside(self) -> list[str]:
        """Links that resolve out of the tree, skipped at the last listing."""
        ...

    @property
    def misnamed(self) -> list[str]:
        """``.jsonl`` files not named as Codex names rollouts, skipped at the last listing."""
        ...

    def listing(self) -> list[FileInfo]: ...

    def read(self, path: str, offset: int, size: int) -> bytes: ...

    async def open(self) -> None:
        """Be ready to list and read (connect, for a host); raises OSError with the reason."""

    async def aclose(self) -> None: ...

    def rollout_source(self, path: str) -> Source:
        """The rollout dashboard's source for one file, followed as it grows."""
        ...


def default_sessions_dir(environ: dict[str, str] | None = None) -> Path:
    """``$CODEX_HOME/sessions``, else ``~/.codex/sessions``."""
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "sessions"


class LocalSessionFiles:
    """A sessions tree on this machine, listed as :class:`TreeListing` says (the cost of a
    listing follows what changed), and read with one file kept open at a time."""

    def __init__(self, root: Path, **pace: Unpack[ListingPace]) -> None:
        self.root = root
        self.name = str(root)
        self._tree = TreeListing(root, **pace)
        self._open_file: BinaryIO | None = None

    @property
    def outside(self) -> list[str]:
        return self._tree.outside

    @property
    def misnamed(self) -> list[str]:
        return self._tree.misnamed

    def listing(self) -> list[FileInfo]:
        self._tree.refresh()
        return list(self._tree.files.values())

    def changes(self) -> tuple[Mapping[str, FileInfo], set[str]]:
        """Every rollout by path, and the paths added, changed or removed since the last
        call (all of them, the first time): the index looks at those alone."""
        self._tree.refresh()
        return self._tree.files, self._tree.take_changes()

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
