"""The streaming rollout reader: blocks per step, compaction, forks, request time, memory."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.connection_fold import connection_states
from tests.support.data.handmade_rollouts import RolloutWriter
from tests.support.main_in_process import finding_lines, run_check
from tests.support.whole_rollouts import read_rollout_lines

from envtui.context.diff import render_diff
from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.context.snapshot import snapshot
from envtui.rollout.items import code_mode_calls, parse_time
from envtui.rollout.reader import RolloutReader
from envtui.rollout.state import ForkOrigin
from envtui.steps.connection import ConnectionTimeline
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
)

LOCAL = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)
BEFORE = EnvironmentsState(
    environments={"local": LOCAL}, current_date="2026-11-30", timezone="Etc/UTC"
)
AFTER = replace(BEFORE, timezone="Europe/Berlin")
FULL = render_diff(BEFORE, None, codex_escaping=True)
CHANGE = render_diff(AFTER, BEFORE, codex_escaping=True)


def _context(writer: RolloutWriter, text: str, at: str = "2026-11-30T03:16:01.000Z") -> None:
    writer.context(text, at=at)


def _compacted(writer: RolloutWriter, text: str | None) -> None:
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ]
    if text is not None:
        history.insert(
            0,
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        )
    writer.item("compacted", {"message": "summary", "replacement_history": history})


def _answer(writer: RolloutWriter, at: str = "2026-11-30T03:16:09.000Z") -> None:
    writer.item(
        "response_item",
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        },
        at=at,
    )


def test_a_step_with_a_restatement_and_a_change_checks_both_blocks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = RolloutWriter(cli_version="0.150.0")
    writer.turn()
    writer.step(BEFORE)
    _answer(writer)
    writer.end_turn()
    writer.turn()
    assert FULL is not None
    assert CHANGE is not None
    restatement = len(writer.lines)
    _context(writer, FULL)  # restated in full: no world_state of its own
    writer.step(AFTER)  # the change, and its patch
    _answer(writer)
    writer.end_turn()
    (_, second) = read_rollout_lines(writer.text().splitlines()).steps
    assert [(b.text, b.paired) for b in second.blocks] == [(FULL, False), (CHANGE, True)]
    code, out, _ = run_check(writer.save(tmp_path), capture=capsys)
    assert (code, finding_lines(out)) == (0, [])
    writer.lines[restatement] = writer.lines[restatement].replace("Etc/UTC", "UTC")
    planted = writer.save(tmp_path)
    code, out, _ = run_check(planted, capture=capsys)
    assert code == 1
    assert out.startswith("step 2: context-mismatch: ")
    assert "1 of the step's 2 blocks differ" in out


def test_a_0171_compaction_holds_the_next_block_and_the_full_world_state_after_it() -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.step(BEFORE)
    _answer(writer)
    writer.end_turn()
    writer.turn()  # the compaction turn: no request of its own
    _compacted(writer, FULL)
    writer.item("world_state", {"full": True, "state": {"environments": snapshot(BEFORE)}})
    writer.item("turn_context", {"cwd": "/repo"})
    writer.end_turn()
    writer.turn()
    writer.item("turn_context", {"cwd": "/repo"})
    writer.item(
        "response_item",
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go on"}]},
    )
    _answer(writer)
    writer.end_turn()
    rollout = read_rollout_lines(writer.text().splitlines())
    assert [len(s.blocks) for s in rollout.steps] == [1, 1]
    (block,) = rollout.steps[1].blocks
    assert (block.source, block.text, block.previous, block.paired) == (
        "compaction",
        FULL,
        None,
        True,
    )
    assert rollout.info.turns_without_step == 1


def test_a_0150_compaction_only_clears_the_baseline() -> None:
    writer = RolloutWriter(cli_version="0.150.0")
    writer.turn()
    writer.step(BEFORE)
    _answer(writer)
    writer.end_turn()
    _compacted(writer, None)
    writer.turn()
    _context(writer, FULL or "")
    writer.item("world_state", {"full": True, "state": {"environments": snapshot(BEFORE)}})
    _answer(writer)
    writer.end_turn()
    (_, after) = read_rollout_lines(writer.text().splitlines()).steps
    (block,) = after.blocks
    assert (block.source, block.previous, block.paired) == ("message", None, True)


def test_a_fork_takes_its_parents_state_as_the_baseline() -> None:
    writer = RolloutWriter()
    writer.lines[0] = writer.lines[0].replace(
        '"cwd": "/repo"',
        '"cwd": "/repo", "forked_from_id": "parent-1", "forked_from_ordinal_exclusive": 41',
    )
    writer.turn()
    writer._section, writer._state = snapshot(BEFORE), BEFORE  # the parent's state
    writer.step(AFTER)
    _answer(writer)
    asked: list[ForkOrigin] = []

    def parent(origin: ForkOrigin) -> tuple[dict[str, object] | None, str | None]:
        asked.append(origin)
        return {"environments": snapshot(BEFORE)}, None

    (step,) = read_rollout_lines(writer.text().splitlines(), baseline=parent).steps
    assert [(o.thread_id, o.ordinal) for o in asked] == [("parent-1", 41)]
    (block,) = step.blocks
    assert (block.previous, block.text, block.unchecked) == (snapshot(BEFORE), CHANGE, None)
    (orphan,) = read_rollout_lines(
        writer.text().splitlines(), baseline=lambda o: (None, "gone")
    ).steps
    assert orphan.notes == [
        "context not checked: line 4: a world_state patch of a fork of thread parent-1 (at ordinal 41): gone"
    ]


def test_the_step_is_dated_by_its_request_not_its_turn_context() -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.item("turn_context", {"cwd": "/repo"}, at="2026-11-30T03:16:01.000Z")
    writer.step(BEFORE, at="2026-11-30T03:16:46.000Z")  # after the readiness work
    writer.item("event_msg", {"type": "item_completed"}, at="2026-11-30T03:16:50.000Z")
    writer.call("exec_command", {"cmd": "ls"})
    writer.item(
        "response_item",
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        at="2026-11-30T03:17:00.000Z",
    )
    _answer(writer, at="2026-11-30T03:17:09.000Z")
    first, second = read_rollout_lines(writer.text().splitlines()).steps
    assert first.at == parse_time("2026-11-30T03:16:46.000Z")
    assert second.at == parse_time("2026-11-30T03:17:00.000Z")


def test_steps_come_back_as_soon_as_they_are_over_and_the_reader_keeps_none() -> None:
    writer = RolloutWriter()
    for _ in range(3):
        writer.turn()
        writer.step(BEFORE)
        _answer(writer)
        writer.end_turn()
    reader = RolloutReader()
    handed: list[tuple[int, int]] = []
    for number, line in enumerate(writer.text().splitlines(), start=1):
        handed += [(number, step.number) for step in reader.read_line(number, line)]
    assert handed == [(7, 1), (11, 2), (15, 3)]  # each at its task_complete line
    assert reader.finish() == []
    assert not [name for name, value in vars(reader).items() if isinstance(value, list) and value]


def test_the_connection_timeline_agrees_with_the_fold() -> None:
    times = [f"2026-11-30T03:16:0{s}+00:00" for s in range(10)]
    events = [
        (EnvironmentDisconnected if i % 3 else EnvironmentConnected)(environment_id=f"e{i % 2}")
        for i in range(10)
    ]
    from envtui.vocabulary.events import thread_event

    stream = [thread_event(msg, at=parse_time(times[i])) for i, msg in enumerate(events)]
    timeline = ConnectionTimeline(stream)
    for when in [times[3], times[3], *times, times[2], None, times[5]]:
        at = parse_time(when)
        assert timeline.at(at) == connection_states(stream, at), when


LAZY_CALL = re.compile(r"\b([a-z][a-z0-9_]*)\s*\(\s*\{(.*?)\}\s*\)", re.DOTALL)
LITERAL = re.compile(r"""\benvironment_id\s*:\s*(["'])([^"'\\\n]+)\1""")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab_({}) \n:'\"environment_id", max_size=60))
def test_code_mode_calls_are_what_the_lazy_pattern_found(source: str) -> None:
    expected = []
    for match in LAZY_CALL.finditer(source):
        literal = LITERAL.search(match.group(2))
        expected.append((match.group(1), literal.group(2) if literal else None))
    assert list(code_mode_calls(source)) == expected


def test_a_rollout_json_line_with_every_field_of_the_wrong_type_is_read_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = json.dumps({"type": "session_meta", "payload": {"id": "t", "cli_version": "0.171.0"}})
    deep = "[" * 600 + "]" * 600
    nested = '{"k":' * 600 + "{}" + "}" * 600
    hostile = [
        '{"type":"response_item","payload":{"type":"message","role":"user","content":5}}',
        '{"type":"event_msg","payload":{"type":[]}}',
        '{"type":"response_item","payload":{"type":{}}}',
        '{"type":"world_state","payload":{"full":true,"state":{"environments":{"environments":{"a":{"cwd":"/x","status":[]}}}}}}',
        '{"type":"session_meta","payload":{"id":"t","cli_version":"' + "9" * 5000 + '"}}',
        '{"type":"response_item","payload":{"type":"function_call","name":"f","arguments":"'
        + "[" * 50000
        + '"}}',
        '{"type":"world_state","payload":{"full":true,"state":{"x":' + deep + "}}}",
        '{"type":"world_state","payload":{"full":false,"state":{"x":' + nested + "}}}",
        '{"type":"response_item","payload":{"type":"custom_tool_call","name":"exec","input":"'
        + "a({" * 20000
        + '"}}',
    ]
    for case in hostile:
        path = tmp_path / "case.jsonl"
        path.write_text(meta + "\n" + case + "\n")
        code, _, err = run_check(path, capture=capsys)
        assert code in (0, 1), case[:80]
        assert "Traceback" not in err
