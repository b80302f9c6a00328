"""Threads the real Codex is driven through, the same for the tests and the recorded rollouts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.real.scripted_codex import ScriptedCodex, exec_command, message

COMPACTION_0171_ANSWERS: list[dict[str, Any]] = [
    exec_command("echo hi"), message("ran it"), message("again"), message("fork"),
]  # fmt: skip
TIMEZONE_0150_ANSWERS: list[dict[str, Any]] = [message("one"), message("two")]


async def tools_compaction_timezone(codex: ScriptedCodex) -> str:
    """A tool call, a compaction, then a timezone change (``own_etc``); the thread id.

    0.171 puts the full block into the compaction's replacement history, so the turn after
    it carries two blocks: that one and the change."""
    thread = await codex.start_thread()
    await codex.turn(thread, "run something")
    await codex.compact(thread)
    codex.set_timezone("Europe/Berlin")
    await codex.turn(thread, "after the compaction")
    return thread


async def timezone_compaction(codex: ScriptedCodex) -> str:
    """A timezone change between turns (``own_etc``), then a compaction; the thread id.

    0.150 puts no block into the replacement history: the next turn restates the context."""
    thread = await codex.start_thread()
    await codex.turn(thread, "hello")
    codex.set_timezone("Asia/Tokyo")
    await codex.turn(thread, "a new zone")
    await codex.compact(thread)
    await codex.turn(thread, "after the compaction")
    return thread


async def fork_elsewhere(codex: ScriptedCodex, thread: str, cwd: Path) -> str:
    """A fork of ``thread`` whose first turn moves to ``cwd``: a patch on the parent's state."""
    fork = await codex.fork(thread)
    await codex.turn(fork, "in the fork", cwd=str(cwd))
    return fork


FAILED_REMOTE = '[[environments]]\nid = "broken"\nurl = "ws://127.0.0.1:1"\n'
"""environments.toml: a websocket remote nothing listens for, so it fails at every step."""
FAILED_REMOTE_ANSWERS: list[dict[str, Any]] = [message("one"), message("two")]


async def failed_remote(codex: ScriptedCodex) -> str:
    """Two turns while the remote ``broken`` fails from the first step to the last."""
    thread = await codex.start_thread()
    await codex.turn(thread, "hello")
    await codex.turn(thread, "again")
    return thread


CUT_OFF_ANSWERS: list[dict[str, Any]] = [
    message("one"), {"message": "never sent", "hold": "/nonexistent/never"},
]  # fmt: skip
"""The model answers the first turn, and never the second (the test kills Codex then)."""


async def cut_off_turn(codex: ScriptedCodex) -> str:
    """A turn that completes, then one whose app-server is killed (SIGKILL) while the model
    is still answering: its rollout ends without the turn's end."""
    thread = await codex.start_thread()
    await codex.turn(thread, "hello")
    await codex.request(
        "turn/start", {"threadId": thread, "input": [{"type": "text", "text": "cut off"}]}
    )
    await codex.until(lambda: len(codex.requests()) >= 2, 60, "the second model request")
    return thread  # leaving the ScriptedCodex kills the app-server with SIGKILL
