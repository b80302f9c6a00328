"""Sessions trees for tests and the sessions benchmark: real rollouts, damaged and grown ones.

Codex lays rollouts out as ``sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``; every
tree here does too. The real rollouts are those codex 0.171 and 0.150 wrote
(``tests/rollouts``); a grown one repeats a real turn of the 0.171 rollout until it is
as large as asked, as ``benchmarks/bench_check.py`` builds its long rollouts.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.files import ROLLOUTS

REAL = sorted(ROLLOUTS.glob("rollout-*.jsonl"))
SOURCE_0171 = next(ROLLOUTS.glob("rollout-*-01a22cff-8327-*.jsonl"))
SOURCE_0150 = next(ROLLOUTS.glob("rollout-*-01a22cff-896e-*.jsonl"))
FORK_0171 = next(ROLLOUTS.glob("rollout-*-01a22cff-865d-*.jsonl"))
DAY = "2026/11/30"


def day_folder(root: Path) -> Path:
    folder = root / DAY
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def copy_real(root: Path) -> list[Path]:
    """The real rollouts, in a tree under ``root``."""
    return [Path(shutil.copy(path, day_folder(root) / path.name)) for path in REAL]


def thread_id(number: int) -> str:
    return f"01a22cff-0000-7000-8000-{number:012d}"


def _lines() -> list[str]:
    return SOURCE_0171.read_text(encoding="utf-8").splitlines()


def _retarget(line: str, thread: str) -> str:
    """The session_meta line of another thread (the rest of a rollout names no thread)."""
    item = json.loads(line)
    item["payload"]["id"] = item["payload"]["session_id"] = thread
    return json.dumps(item, separators=(",", ":"), ensure_ascii=False)


def grown(
    root: Path, number: int, size: int, *, tools_every_turn: bool = False, ending: bool = False
) -> Path:
    """A rollout of thread ``thread_id(number)`` of at least ``size`` bytes: the real first
    turn, then its body (task_started, turn_context … task_complete) again and again;
    ``ending`` adds the real rollout's later turns (a compaction, then a timezone change
    whose context message was altered: a context-mismatch at the last step)."""
    lines = _lines()
    kinds = [(json.loads(x)["type"], json.loads(x)["payload"].get("type")) for x in lines]
    end = kinds.index(("event_msg", "task_complete"))
    first = [_retarget(lines[0], thread_id(number)), *lines[1 : end + 1]]
    body = [lines[1], *lines[9 : end + 1]]
    if tools_every_turn:
        body.insert(1, lines[2])
    path = day_folder(root) / f"rollout-2026-11-30T15-07-52-{thread_id(number)}.jsonl"
    chunk = ("\n".join(body) + "\n").encode()
    with path.open("wb") as out:
        written = out.write(("\n".join(first) + "\n").encode())
        while written < size:
            written += out.write(chunk)
        if ending:
            out.write(("\n".join(_wrong_last_context(lines)[end + 1 :]) + "\n").encode())
    return path


def with_wrong_last_context(root: Path, *, ago: float | None = None) -> Path:
    """The real 0.171 rollout, its last context message changed: a context-mismatch at the
    thread's latest step (and only there); with ``ago``, as if just written (see
    :func:`written_now`). It appears at once, whole: a tree watched meanwhile never sees
    it half written, nor with its recorded times before the moved ones."""
    lines = _wrong_last_context(_lines())
    lines[0] = _retarget(lines[0], thread_id(999))
    path = day_folder(root) / f"rollout-2026-11-30T15-07-52-{thread_id(999)}.jsonl"
    data = ("\n".join(lines) + "\n").encode()
    return _arrive(path, data if ago is None else _moved(data, ago))


def _wrong_last_context(lines: list[str]) -> list[str]:
    last = max(i for i, x in enumerate(lines) if "<environment_context>" in x and '"user"' in x)
    changed = list(lines)
    changed[last] = changed[last].replace("Europe/Berlin", "Europe/Paris")
    return changed


def written_now(path: Path, *, ago: float = 0.0) -> Path:
    """The rollout as if Codex had just written it: each line's timestamp moved by the same
    amount, so that the last is ``ago`` seconds old (order and gaps as recorded, every other
    byte as it was)."""
    return _arrive(path, _moved(path.read_bytes(), ago))


def _moved(data: bytes, ago: float) -> bytes:
    lines = data.splitlines(keepends=True)
    found = [_STAMP.match(line) for line in lines]
    stamps = [_time(m.group(1)) for m in found if m is not None]
    shift = datetime.now(UTC) - timedelta(seconds=ago) - max(stamps)
    moved = []
    for line, match in zip(lines, found, strict=True):
        if match is not None:
            when = (_time(match.group(1)) + shift).isoformat(timespec="milliseconds")
            line = b'{"timestamp":"' + when.replace("+00:00", "Z").encode() + line[match.end(1) :]
        moved.append(line)
    return b"".join(moved)


def _arrive(path: Path, data: bytes) -> Path:
    """``data`` at ``path`` at once: a poll sees the old file or the new one, never a mix."""
    fresh = path.with_name(path.name + ".new")  # not a rollout name: never listed
    fresh.write_bytes(data)
    fresh.replace(path)
    return path


_STAMP = re.compile(rb'\{"timestamp":"([^"]+)')


def _time(raw: bytes) -> datetime:
    return datetime.fromisoformat(raw.decode().replace("Z", "+00:00"))


def grown_tree(root: Path, count: int, size: int) -> list[Path]:
    """``count`` grown rollouts of about ``size`` bytes each (the benchmark's tree)."""
    first = grown(root, 0, size, ending=True)
    data = first.read_bytes()
    head_end = data.index(b"\n")
    head = data[:head_end].decode()
    paths = [first]
    for number in range(1, count):
        path = first.with_name(first.name.replace(thread_id(0), thread_id(number)))
        path.write_bytes(_retarget(head, thread_id(number)).encode() + data[head_end:])
        paths.append(path)
    return paths


def tree_with_links_out(tmp_path: Path) -> tuple[Path, Path]:
    """A tree with one real rollout, and links to a real rollout and a folder outside it
    (were they followed, another thread would be listed), and a link inside it."""
    tree = tmp_path / "sessions"
    inside = copy_real(tree)[0]
    elsewhere = tmp_path / "elsewhere"
    outside = with_wrong_last_context(elsewhere)
    folder = inside.parent
    for other in folder.iterdir():
        if other != inside:
            other.unlink()
    (folder / f"rollout-2026-11-30T10-00-01-{thread_id(5)}.jsonl").symlink_to(outside)
    (folder / "2026").symlink_to(elsewhere / "2026", target_is_directory=True)
    (folder / "loop").symlink_to("..", target_is_directory=True)
    (folder / f"rollout-2026-11-30T10-00-02-{thread_id(6)}.jsonl").symlink_to(inside.name)
    return tree, inside


HOSTILE_IDS = ("esc\x1b]2;TITLE\x07", "c1\x9b31m", "rlo\u202eevil", "bel\x07")
"""Environment ids a rollout may carry that a terminal would act on (OSC 2, CSI, RLO, BEL)."""


def with_environments(root: Path, ids: list[str]) -> Path:
    """The real 0.171 rollout (a thread of its own), every world state naming ``ids``, each
    as its one local environment is described (the first is the primary)."""
    lines = _lines()
    lines[0] = _retarget(lines[0], thread_id(777))
    for number, line in enumerate(lines):
        item = json.loads(line)
        section = (
            item["payload"].get("state", {}).get("environments")
            if item["type"] == "world_state"
            else None
        )
        if isinstance(section, dict) and isinstance(section.get("environments"), dict):
            proto = next(iter(section["environments"].values()))
            section["environments"] = {i: dict(proto) for i in ids}
            section["environments"][ids[0]]["is_primary"] = True
            lines[number] = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
    path = day_folder(root) / f"rollout-2026-11-30T15-07-52-{thread_id(777)}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def first_turn_0150() -> list[str]:
    """The real 0.150 rollout's first turn (its lines to the first task_complete)."""
    lines = SOURCE_0150.read_text(encoding="utf-8").splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if '"task_complete"' in line)
    return lines[: end + 1]


def next_turn_0150() -> str:
    """The real 0.150 rollout's second turn (a timezone change): appended, one more step."""
    lines = SOURCE_0150.read_text(encoding="utf-8").splitlines(keepends=True)
    ends = [i for i, line in enumerate(lines) if '"task_complete"' in line]
    return "".join(lines[ends[0] + 1 : ends[1] + 1])


def many_threads(root: Path, count: int, *, first: int = 0) -> list[Path]:
    """``count`` threads, ``thread_id(first)`` on: each the real 0.150 first turn under a
    session_meta of its own (about 35 KB a file)."""
    head, *rest = first_turn_0150()
    body = "".join(rest).encode()
    folder = day_folder(root)
    paths = []
    for number in range(first, first + count):
        path = folder / f"rollout-2026-11-30T15-07-54-{thread_id(number)}.jsonl"
        path.write_bytes(_retarget(head, thread_id(number)).encode() + b"\n" + body)
        paths.append(path)
    return paths
