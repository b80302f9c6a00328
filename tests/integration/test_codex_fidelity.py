"""``envtui check`` against rollouts the real Codex writes while it completes turns offline.

Codex 0.171 and 0.150 run against the loopback model stand-in, so turns finish, tools run,
threads compact and fork. Two judges: what Codex recorded (``check`` renders every block
itself and must find no mismatch on a healthy thread, and must find the one a test plants)
and what Codex sent (each step's blocks are the newest blocks of the request the stand-in
received for it, and there is one step per sampling request).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.support.main_in_process import clean_check, finding_lines, run_check
from tests.support.real.codex_tools import (
    CODEX,
    CODEX_0150,
    needs_codex_0150,
    needs_scripted_codex,
    stdio_remote,
)
from tests.support.real.scripted_codex import ScriptedCodex, listening, message, sent_blocks
from tests.support.scenarios.codex_threads import (
    COMPACTION_0171_ANSWERS,
    TIMEZONE_0150_ANSWERS,
    fork_elsewhere,
    timezone_compaction,
    tools_compaction_timezone,
)
from tests.support.waiting import wait_until
from tests.support.whole_rollouts import read_rollout

from envtui.rollout.fork_parent import ParentRollouts
from envtui.rollout.items import parse_time

pytestmark = needs_scripted_codex


def _steps_are_the_requests(codex: ScriptedCodex, thread: str) -> list[list[str]]:
    """Each step's blocks end the request Codex sent for it; one step per request."""
    path = codex.rollout(thread)
    steps = read_rollout(path, baseline=ParentRollouts(path)).steps
    requests = [b for b in codex.requests() if b.get("prompt_cache_key") == thread]
    assert len(steps) == len(requests), (len(steps), len(requests))
    per_step = []
    for step, body in zip(steps, requests, strict=True):
        recorded = [block.text for block in step.blocks if block.text is not None]
        sent = sent_blocks(body)
        assert sent[len(sent) - len(recorded) :] == recorded, step.number
        per_step.append(recorded)
    return per_step


def _plant(path: Path, old: str, new: str, *, in_type: str) -> Path:
    """A copy of the rollout with ``old`` replaced in the first line of type ``in_type``."""
    lines = path.read_text().splitlines()
    for index, line in enumerate(lines):
        if json.loads(line)["type"] == in_type and old in line:
            lines[index] = line.replace(old, new, 1)
            break
    else:
        raise AssertionError(f"no {in_type} line holds {old!r}")
    planted = path.with_name("planted-" + path.name)
    planted.write_text("".join(line + "\n" for line in lines))
    return planted


async def test_0171_compaction_block_is_checked_and_the_next_diff_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert CODEX is not None
    async with ScriptedCodex(tmp_path, CODEX, COMPACTION_0171_ANSWERS, own_etc=True) as codex:
        thread = await tools_compaction_timezone(codex)
        path = codex.rollout(thread)
        blocks = _steps_are_the_requests(codex, thread)
    report = clean_check(path, capsys)
    assert [len(b) for b in blocks] == [1, 0, 2]  # the compaction's block, then the change
    assert blocks[2][0].startswith("<environment_context>\n  <cwd>")
    assert "<timezone>Europe/Berlin</timezone>" in blocks[2][1]
    assert not [n for s in report["steps"] for n in s["notes"] if "not checked" in n]
    planted = _plant(path, "<current_date>", "<current_date>1", in_type="compacted")
    code, out, _ = run_check(planted, capture=capsys)
    assert code == 1
    assert out.startswith("step 3: context-mismatch: ")
    assert "replacement history" in out


@needs_codex_0150
async def test_0150_compaction_sends_the_full_context_again_with_the_next_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert CODEX_0150 is not None
    async with ScriptedCodex(tmp_path, CODEX_0150, TIMEZONE_0150_ANSWERS, own_etc=True) as codex:
        thread = await timezone_compaction(codex)
        path = codex.rollout(thread)
        blocks = _steps_are_the_requests(codex, thread)
    report = clean_check(path, capsys)
    assert report["rollout"]["cli_version"] == "0.150.0"
    assert [len(b) for b in blocks] == [1, 1, 1]
    assert blocks[1][0].startswith("<environment_context>\n  <current_date>")
    assert blocks[2][0].startswith("<environment_context>\n  <cwd>")  # restated in full


async def test_0171_fork_is_checked_from_its_parents_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert CODEX is not None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with ScriptedCodex(tmp_path, CODEX, [message("a"), message("b")]) as codex:
        thread = await codex.start_thread()
        await codex.turn(thread, "in the parent")
        fork = await fork_elsewhere(codex, thread, elsewhere)
        path = codex.rollout(fork)
        (blocks,) = _steps_are_the_requests(codex, fork)
    assert f"<cwd>{elsewhere}</cwd>" in blocks[0]
    report = clean_check(path, capsys)
    assert report["steps"][0]["notes"] == []
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / path.name).write_bytes(path.read_bytes())
    code, out, _ = run_check(alone / path.name, capture=capsys)  # notes are in the report
    assert code == 0
    assert f"forked from thread {thread}" in out
    assert "parent's rollout was not found" in out
    code, out, err = run_check(
        alone / path.name, "--sessions", str(codex.codex_home / "sessions"), capture=capsys
    )
    assert code == 0
    assert "not found" not in out + err


async def test_0171_calls_to_unknown_and_known_environments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert CODEX is not None
    call = {
        "name": "exec_command",
        "arguments": json.dumps({"cmd": "true", "environment_id": "gone"}),
    }
    answers: list[dict[str, Any]] = [{"function_call": call}, message("done")]
    async with ScriptedCodex(tmp_path, CODEX, answers, environments=stdio_remote()) as codex:
        thread = await codex.start_thread()
        await codex.turn(thread, "use an environment that is not there")
        path = codex.rollout(thread)
        _steps_are_the_requests(codex, thread)
    code, out, _ = run_check(path, capture=capsys)
    assert code == 1
    assert finding_lines(out) == [
        "step 1: call-to-unknown-environment: exec_command: gone: a call names 'gone', "
        "which the step does not list as available"
    ]


async def test_0171_connection_changes_between_turn_context_and_request_date_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A websocket remote dies between turns: the next turn waits for its disconnect (about
    45 s) after its turn_context, so the request, not the turn_context, sees it lost. When it
    comes back, the turn after reconnects it before its request: nothing is stale there."""
    assert CODEX is not None
    remote = '[[environments]]\nid = "devbox"\nurl = "ws://127.0.0.1:9876"\n'
    serve = (str(CODEX), "exec-server", "--listen", "ws://127.0.0.1:9876")
    answers = [message("one"), message("two"), message("three")]
    async with ScriptedCodex(tmp_path, CODEX, answers, environments=remote) as codex:
        server = codex.in_namespace(*serve)
        try:
            await wait_until(lambda: listening(server.pid, 9876), timeout=30, what="listening")
            thread = await codex.start_thread()
            await codex.turn(thread, "both there")
            server.send_signal(signal.SIGKILL)
            server.wait()
            await codex.turn(thread, "devbox is gone", timeout=150)
            await codex.until(
                lambda: codex.notified("thread/environment/disconnected"), 60, "the disconnect"
            )
            server = codex.in_namespace(*serve)
            await wait_until(lambda: listening(server.pid, 9876), timeout=30, what="listening")
            await codex.turn(thread, "devbox is back", timeout=150)
        finally:
            server.kill()
            server.wait()
        events = codex.save_events(tmp_path / "events.jsonl")
        path = codex.rollout(thread)
        _steps_are_the_requests(codex, thread)
    code, out, _ = run_check(path, "--events", str(events), capture=capsys)
    assert code == 1
    assert finding_lines(out) == [
        "step 2: stale-available: -: devbox: the context presents 'devbox' as available, "
        "but the connection is known to be lost"
    ]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    contexts = [parse_time(line["timestamp"]) for line in lines if line["type"] == "turn_context"]
    disconnected = parse_time(json.loads(events.read_text().splitlines()[0])["at"])
    assert contexts[1] is not None
    assert disconnected is not None
    assert contexts[1] < disconnected  # the turn_context alone would call it connected
