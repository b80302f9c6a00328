"""A forked thread's parent rollout, found in the sessions tree, and its state at the fork.

Codex 0.171 writes a fork's rollout with only the fork's own items; its first world_state
patches apply to the parent's state at ``forked_from_ordinal_exclusive``. The parent lives
in the same sessions tree (``CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl``):
the tree the fork's file is in, or the one ``--sessions DIR`` names. A parent that is a
fork itself is followed back the same way.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from envtui.rollout.state import MAX_FORK_DEPTH, ForkOrigin, world_at

_THREAD_ID = re.compile(r"[A-Za-z0-9-]{1,80}")


def sessions_tree(rollout: Path) -> Path | None:
    """The ``sessions`` directory a rollout at ``sessions/YYYY/MM/DD/`` is in, if it is."""
    parents = rollout.absolute().parents
    return parents[3] if len(parents) > 3 and parents[3].name == "sessions" else None


class ParentRollouts:
    """The lookup the rollout reader calls for a fork's baseline."""

    def __init__(self, rollout: Path | None, sessions: Path | None = None) -> None:
        self.places: list[Path] = []
        tree = sessions if sessions is not None else (sessions_tree(rollout) if rollout else None)
        if rollout is not None:
            self.places.append(rollout.absolute().parent)
        self.tree = tree

    def find(self, thread_id: str) -> Path | None:
        """The newest rollout of ``thread_id`` beside the fork, else in the sessions tree."""
        if not _THREAD_ID.fullmatch(thread_id):
            return None
        pattern = f"rollout-*-{thread_id}.jsonl"
        for place in self.places:
            found = sorted(place.glob(pattern))
            if found:
                return found[-1]
        if self.tree is not None:
            found = sorted(self.tree.glob(f"*/*/*/{pattern}"))
            if found:
                return found[-1]
        return None

    def __call__(self, origin: ForkOrigin) -> tuple[dict[str, Any] | None, str | None]:
        return self._baseline(origin, set())

    def _baseline(
        self, origin: ForkOrigin, seen: set[str]
    ) -> tuple[dict[str, Any] | None, str | None]:
        if origin.thread_id in seen or len(seen) >= MAX_FORK_DEPTH:
            return None, "its forks lead back in a loop or too deep"
        path = self.find(origin.thread_id)
        if path is None:
            where = f"in {self.tree}" if self.tree is not None else "beside the fork"
            return None, f"the parent's rollout was not found {where} (give --sessions DIR)"
        seen = seen | {origin.thread_id}
        try:
            with path.open(encoding="utf-8", errors="replace") as lines:
                return world_at(lines, origin.ordinal, lambda o: self._baseline(o, seen))
        except OSError as exc:
            return None, f"{path}: cannot read: {exc.strerror or exc}"
