"""The world state a rollout builds up, item by item, and where a fork's baseline comes from.

Codex persists its world state as a full ``world_state`` item, then merge patches applied
in order; a compaction clears it (the next render is a full restatement), and a patch with
no baseline is ignored, as Codex ignores it on resume. A fork (0.171) starts with patches
whose baseline is its parent's world state at ``forked_from_ordinal_exclusive``:
:func:`world_at` replays the parent's lines up to there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from envtui.context.model import SECTION_ID
from envtui.context.patch import apply_world_patch, remove_null_object_fields
from envtui.rollout.check_memo import KEPT, same_json, same_json_as, written
from envtui.rollout.items import text_of

MAX_FORK_DEPTH = 16
"""How many forks of forks are followed back for a baseline before giving up."""


@dataclass
class ForkOrigin:
    """Where a forked thread came from: the parent thread and the first ordinal not taken."""

    thread_id: str
    ordinal: int
    baseline_note: str | None = None  # why the parent's state is not known, if it is not

    @classmethod
    def from_meta(cls, payload: dict[str, Any]) -> ForkOrigin | None:
        parent = text_of(payload.get("forked_from_id"))
        ordinal = payload.get("forked_from_ordinal_exclusive")
        if parent is None or type(ordinal) is not int or ordinal < 0:
            return None  # 0.150 forks copy the parent's history instead
        return cls(parent, ordinal)


BaselineLookup = Callable[[ForkOrigin], tuple[dict[str, Any] | None, str | None]]
"""The parent's world state at a fork's ordinal, or None and the reason it is not known."""


class WorldReplay:
    """The world state so far: None until a full ``world_state`` (or a fork's baseline).

    A rollout whose primary moves at every step patches its world back and forth between a
    few states. The last few patches are remembered with the world they were applied to and
    the world they gave, and a world equal to one of the last few (as :func:`same_json`
    tells) is that one: the same patch on the same world gives the same object again, without
    merging, and everything that remembers snapshots by identity after this (the check's
    restored states, its rendered blocks, its rules) finds it at once. Worlds are never
    changed in place, so sharing them is safe.
    """

    def __init__(self) -> None:
        self.world: dict[str, Any] | None = None
        self._patched: list[_Patched] = []  # the last few patches, newest last
        self._recent: list[dict[str, Any]] = []  # the last few distinct worlds, newest last

    def section(self) -> Any:
        return self.world.get(SECTION_ID) if self.world is not None else None

    def reset(self) -> None:
        self.world = None

    def adopt(self, world: dict[str, Any] | None) -> None:
        self.world = world

    def read_item(
        self, payload: dict[str, Any], line: int, fork: ForkOrigin | None
    ) -> tuple[Any, Any, str | None] | None:
        """Apply one item: (section before, section after, why unchecked); None if unusable."""
        state = payload.get("state")
        if not isinstance(state, dict):
            return None
        previous = self.section()
        try:
            if payload.get("full") is True:
                self.world = self._known(remove_null_object_fields(state))
                return None, self.section(), None
            if self.world is None:
                return previous, previous, _no_baseline(line, fork)
            self.world = self._patch(self.world, state)
        except RecursionError:
            return None  # nested deeper than anything Codex writes
        return previous, self.section(), None

    def _patch(self, world: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
        for seen in self._patched[::-1]:
            if seen.before is world and same_json_as(seen.patch, seen.written, patch):
                return seen.after
        after = self._known(apply_world_patch(world, patch))
        self._patched = [*self._patched[1 - KEPT :], _Patched(world, patch, written(patch), after)]
        return after

    def _known(self, world: dict[str, Any]) -> dict[str, Any]:
        """``world``, or the recent world that is the same."""
        for seen in self._recent[::-1]:
            if same_json(seen, world):
                return seen
        self._recent = [*self._recent[1 - KEPT :], world]
        return world


class _Patched(NamedTuple):
    """A patch applied: the world it was applied to, the patch (and its ``repr``), the world
    it gave."""

    before: dict[str, Any]
    patch: dict[str, Any]
    written: str | None
    after: dict[str, Any]


def _no_baseline(line: int, fork: ForkOrigin | None) -> str:
    if fork is not None:
        why = fork.baseline_note or "its state at the fork is not known"
        return (
            f"line {line}: a world_state patch of a fork of thread {fork.thread_id} "
            f"(at ordinal {fork.ordinal}): {why}"
        )
    return f"line {line}: a world_state patch with no baseline is ignored"


def world_at(
    lines: Iterable[str], ordinal: int, baseline: BaselineLookup | None = None
) -> tuple[dict[str, Any] | None, str | None]:
    """The world state of a rollout's items before ``ordinal``, and a note when unknown.

    A parent that is a fork itself starts from its own parent's state (``baseline``).
    """
    replay = WorldReplay()
    for raw in lines:
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(item, dict):
            continue
        at = item.get("ordinal")
        if type(at) is int and at >= ordinal:
            break
        payload = item.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = item.get("type")
        if kind == "session_meta" and baseline is not None:
            origin = ForkOrigin.from_meta(payload)
            if origin is not None:
                replay.adopt(baseline(origin)[0])
        elif kind == "world_state":
            replay.read_item(payload, 0, None)
        elif kind == "compacted":
            replay.reset()
    if replay.world is None:
        return None, "the parent's rollout has no world state before the fork"
    return replay.world, None
