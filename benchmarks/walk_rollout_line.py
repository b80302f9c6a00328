"""The walk of one rollout line on its way to a finding: how many modules it passes.

A followed rollout is read up to the ``world_state`` line that settles a step whose context
was recorded differently from envtui's render (one character of the real 0.171 rollout's
block is changed), and that one line is then traced with :func:`sys.setprofile`. Each
envtui function counts the first time it is entered (a helper called again is not a new
stop); a *stop* is a run of such entries in one module, with the caller's module as a stop
of its own when the walk comes back to it before entering something new. Printed:

* stops, the modules and packages they are in, and moves between packages;
* *climbs*: a stop in a higher layer than the stop before it (control going back up to
  do more work below), by ARCHITECTURE.md's layer table;
* *returns*: a stop in a module (or, at package level, a package) already left before;
* calls back into a module already on the call stack (a circle at run time), and calls
  from a module into a higher layer (a callback up).

Run from the repository: ``python benchmarks/walk_rollout_line.py [-v]``; ``-v`` lists the
stops, each with the function whose entry made it, and marks the climbs.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from envtui.sources.rollout_follow import RolloutFollower
from envtui.vocabulary.events import Event, FindingReported

ROOT = Path(__file__).resolve().parent.parent
ROLLOUT = (
    ROOT / "tests/rollouts/rollout-2026-11-30T15-07-52-01a22cff-8327-7a01-b3f2-16679aa14a85.jsonl"
)
CHANGED_LINE = 8
"""The context message whose ``world_state`` (the next line) settles the traced step."""


def layers() -> dict[str, int]:
    """Package -> layer, from the first table after "## Layers" in ARCHITECTURE.md."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text[text.index("## Layers") :].split("\n\n| layer")[1]
    found: dict[str, int] = {}
    for row in table.splitlines()[2:]:
        if not row.startswith("|"):
            break
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for name in re.findall(r"`([^`]+)`", cells[1]):
            found[name.rstrip("/")] = int(cells[0].split()[0])
    return found


def package(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def rollout_lines() -> list[str]:
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines()
    item = json.loads(lines[CHANGED_LINE - 1])
    for part in item["payload"]["content"]:
        text = part.get("text", "")
        if text.startswith("<environment_context>"):
            part["text"] = text.replace("</environment_context>", " </environment_context>")
    lines[CHANGED_LINE - 1] = json.dumps(item)
    return lines


def module_of(frame: FrameType | None) -> str:
    return frame.f_globals.get("__name__", "") if frame is not None else ""


def envtui_frames(frame: FrameType | None) -> list[str]:
    """The envtui modules on the stack from ``frame`` down, nearest first."""
    found = []
    while frame is not None:
        if module_of(frame).startswith("envtui"):
            found.append(module_of(frame))
        frame = frame.f_back
    return found


def trace(
    work: Callable[[], None], layer: dict[str, int], entered: list[str]
) -> tuple[list[str], int, int]:
    """(stops, calls back into a module on the stack, calls up a layer) while ``work`` runs;
    ``entered`` gets, for each stop, the function whose entry made it."""
    stops: list[str] = []
    seen: set[tuple[str, int]] = set()
    counts = {"reentry": 0, "upward": 0}

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        module = module_of(frame)
        key = (frame.f_code.co_filename, frame.f_code.co_firstlineno)
        if event != "call" or not module.startswith("envtui") or key in seen:
            return
        seen.add(key)
        stack = envtui_frames(frame.f_back)
        if stack:
            caller = stack[0]
            if not stops or stops[-1] != caller:
                stops.append(caller)
                entered.append(f"back, then {frame.f_code.co_qualname}")
            counts["reentry"] += module != caller and module in stack[1:]
            counts["upward"] += layer.get(package(module), 5) > layer.get(package(caller), 5)
        if not stops or stops[-1] != module:
            stops.append(module)
            entered.append(frame.f_code.co_qualname)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return stops, counts["reentry"], counts["upward"]


def is_climb(before: str, now: str, layer: dict[str, int]) -> bool:
    """Whether the walk goes from ``before`` up to a higher layer at ``now``."""
    return layer.get(package(now), 5) > layer.get(package(before), 5)


def walk_counts(stops: Sequence[str], layer: dict[str, int]) -> tuple[int, int, int]:
    """(moves between packages, climbs, returns) of a walk."""
    moves = climbs = returns = 0
    left: set[str] = set()
    for before, now in itertools.pairwise(stops):
        left.add(before)
        if package(before) != package(now):
            moves += 1
            climbs += is_climb(before, now, layer)
        returns += now in left
    return moves, climbs, returns


def by_package(stops: Sequence[str]) -> list[str]:
    out: list[str] = []
    for stop in stops:
        if not out or out[-1] != package(stop):
            out.append(package(stop))
    return out


def main(argv: Sequence[str]) -> int:
    layer = layers()
    lines = rollout_lines()
    events: list[Event] = []
    follower = RolloutFollower(str(ROLLOUT), events.append)
    for line in lines[:CHANGED_LINE]:
        follower.feed_bytes((line + "\n").encode())
    before = len(events)
    traced = (lines[CHANGED_LINE] + "\n").encode()
    entered: list[str] = []
    stops, reentries, upward = trace(lambda: follower.feed_bytes(traced), layer, entered)
    findings = [e.msg for e in events[before:] if isinstance(e.msg, FindingReported)]
    assert findings, "the traced line settled no step with a finding"
    for name, walk in (("modules", stops), ("packages", by_package(stops))):
        moves, climbs, returns = walk_counts(walk, layer)
        print(
            f"by {name}: {len(walk)} stops in {len(set(walk))} {name}, {moves} moves between "
            f"packages, {climbs} climbs, {returns} returns to one already left"
        )
    print(
        f"call stack: {reentries} calls back into a module already on the stack, "
        f"{upward} calls up a layer; finding: {findings[0].code}"
    )
    if "-v" in argv:
        for i, (stop, function) in enumerate(zip(stops, entered, strict=True)):
            climb = i > 0 and is_climb(stops[i - 1], stop, layer)
            print(f"  {stop:36} {function}{'  <- climb' if climb else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
