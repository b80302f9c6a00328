"""Record the real rollouts under ``tests/rollouts/`` again: ``python -m tests.support.data.record_rollouts``.

Each one is written by the real Codex (0.171 and 0.150) driven offline against the model
stand-in; only the temporary directory it ran in is replaced by ``/home/me`` (consistently,
so every block and snapshot still agree). The unit tests read them as real input (they
must check clean, and mutating them must never crash ``check``), and the benchmark builds
long rollouts by repeating their turns.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from tests.support.files import ROLLOUTS
from tests.support.real.codex_tools import CODEX, CODEX_0150
from tests.support.real.scripted_codex import ScriptedCodex
from tests.support.scenarios.codex_threads import (
    COMPACTION_0171_ANSWERS,
    CUT_OFF_ANSWERS,
    FAILED_REMOTE,
    FAILED_REMOTE_ANSWERS,
    TIMEZONE_0150_ANSWERS,
    cut_off_turn,
    failed_remote,
    fork_elsewhere,
    timezone_compaction,
    tools_compaction_timezone,
)

CASES = ROLLOUTS / "cases"
"""Rollouts of cases that are not clean (a failed remote, a cut-off turn): named by the
case, beside the clean ones, so what reads every clean rollout does not read them."""
NEUTRAL_ROOT = "/home/me"


def _save(path: Path, root: Path, target: Path, name: str | None = None) -> Path:
    text = path.read_text().replace(str(root), NEUTRAL_ROOT)
    saved = target / (name or path.name)
    saved.write_text(text)
    return saved


async def record_0171(root: Path, target: Path) -> None:
    """Tools, a compaction and a timezone change; then a fork that moves to another cwd."""
    assert CODEX is not None
    other = root / "work-fork"
    other.mkdir()
    async with ScriptedCodex(root, CODEX, COMPACTION_0171_ANSWERS, own_etc=True) as codex:
        thread = await tools_compaction_timezone(codex)
        fork = await fork_elsewhere(codex, thread, other)
        _save(codex.rollout(thread), root, target)
        _save(codex.rollout(fork), root, target)


async def record_0150(root: Path, target: Path) -> None:
    """A timezone change between turns, then a compaction and the full context again."""
    assert CODEX_0150 is not None
    async with ScriptedCodex(root, CODEX_0150, TIMEZONE_0150_ANSWERS, own_etc=True) as codex:
        thread = await timezone_compaction(codex)
        _save(codex.rollout(thread), root, target)


async def record_failed_remote(root: Path, target: Path) -> None:
    """0.171: a remote that fails at every step of two turns."""
    assert CODEX is not None
    answers = FAILED_REMOTE_ANSWERS
    async with ScriptedCodex(root, CODEX, answers, environments=FAILED_REMOTE) as codex:
        thread = await failed_remote(codex)
        path = codex.rollout(thread)
    _save(path, root, target / "cases", "failed-remote-0171.jsonl")


async def record_cut_off(root: Path, target: Path) -> None:
    """0.171 and 0.150: a turn cut off by killing the app-server (no turn_aborted)."""
    for codex_binary, name in ((CODEX, "cut-off-0171.jsonl"), (CODEX_0150, "cut-off-0150.jsonl")):
        assert codex_binary is not None
        home = root / name
        async with ScriptedCodex(home, codex_binary, CUT_OFF_ANSWERS) as codex:
            thread = await cut_off_turn(codex)
        _save(codex.rollout(thread), home, target / "cases", name)


async def main(target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    (target / "cases").mkdir(exist_ok=True)
    for record in (record_0171, record_0150, record_failed_remote, record_cut_off):
        with tempfile.TemporaryDirectory() as scratch:
            await record(Path(scratch), target)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROLLOUTS))
