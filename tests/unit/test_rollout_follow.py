"""Following a rollout reads only what is new, checks only new steps, and survives the file."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.data.handmade_rollouts import RolloutWriter, function_tool
from tests.support.waiting import wait_until
from tests.support.whole_rollouts import read_rollout_lines

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.rollout.check import RolloutChecker
from envtui.rollout.checked import CheckedSteps
from envtui.rollout.records import RolloutStep
from envtui.sources import rollout_follow
from envtui.sources.file_windows import LocalFile
from envtui.sources.rollout_follow import RolloutFollower, read_window
from envtui.steps.report import StepReport
from envtui.vocabulary.events import Event, SourceStatus, StepRecorded, WarningMessage

LOCAL = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)


def steps_of(events: list[Event]) -> list[int]:
    return [e.msg.step for e in events if isinstance(e.msg, StepRecorded)]


def statuses(events: list[Event]) -> list[tuple[str, str | None]]:
    return [(e.msg.state, e.msg.reason) for e in events if isinstance(e.msg, SourceStatus)]


def rollout(turns: int, steps_per_turn: int) -> RolloutWriter:
    writer = RolloutWriter()
    for turn in range(turns):
        writer.turn()
        writer.tools(function_tool("exec_command"))
        for step in range(steps_per_turn):
            cwd = f"/repo/{turn}/{step}"
            writer.step(EnvironmentsState(environments={"local": replace(LOCAL, cwd=cwd)}))
            writer.call("exec_command", {"cmd": "ls"})
            writer.output()
        writer.end_turn()
    return writer


def test_lines_fed_one_by_one_give_the_steps_a_whole_read_gives_each_once() -> None:
    writer = rollout(turns=3, steps_per_turn=4)
    whole = read_rollout_lines(writer.lines)
    steps = CheckedSteps(settled=True)
    given = [
        step
        for number, line in enumerate(writer.lines, 1)
        for step, _ in steps.read_line(number, line)
    ]
    given += [step for step, _ in steps.finish()]
    assert [s.number for s in given] == [s.number for s in whole.steps] == list(range(1, 13))
    assert [s.context_text for s in given] == [s.context_text for s in whole.steps]
    assert [s.section for s in given] == [s.section for s in whole.steps]
    assert [s.tools for s in given] == [s.tools for s in whole.steps]
    assert steps.info.thread_id == whole.thread_id


@pytest.fixture
def fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rollout_follow, "POLL", 0.05)


class CountedPauses:
    """``read_window``'s pause between two looks at the file, the follower's own, counted."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, stop: asyncio.Event) -> bool:
        self.count += 1
        return await rollout_follow.poll_pause(stop)

    async def looks(self, looks: int) -> None:
        """Until the file has been looked at ``looks`` more times, each begun after this call
        (a look that was under way may have begun before: one pause more makes up for it)."""
        start = self.count
        await wait_until(lambda: self.count > start + looks, what=f"{looks} more looks")


async def test_each_poll_reads_only_the_new_bytes_and_checks_only_the_new_steps(
    tmp_path: Path, fast_polls: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[int] = []

    real_check = RolloutChecker.check

    def counted(checker: RolloutChecker, step: RolloutStep) -> StepReport:
        checked.append(step.number)
        return real_check(checker, step)

    monkeypatch.setattr(RolloutChecker, "check", counted)
    writer = rollout(turns=2, steps_per_turn=3)
    path = tmp_path / "rollout.jsonl"
    first = writer.append_to(path)
    events: list[Event] = []
    window = LocalFile(path)
    stop = asyncio.Event()
    pauses = CountedPauses()
    follower = RolloutFollower(str(path), events.append)
    task = asyncio.ensure_future(read_window(window, follower, stop, follow=True, pause=pauses))
    try:
        await wait_until(lambda: steps_of(events) == list(range(1, 7)), what="six steps")
        assert window.bytes_read == first
        await pauses.looks(3)  # several looks at a file that did not grow
        assert window.bytes_read == first
        writer.turn()
        writer.step(EnvironmentsState(environments={"local": LOCAL}))
        added = writer.append_to(path)
        await wait_until(lambda: steps_of(events) == list(range(1, 8)), what="the seventh")
        assert window.bytes_read == first + 1 + added  # one byte back: the check for a rewrite
        assert checked == list(range(1, 8))  # each step checked once, when it came
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=5)


async def test_truncation_replacement_and_deletion_are_said_once_and_reading_goes_on(
    tmp_path: Path, fast_polls: None
) -> None:
    path = tmp_path / "rollout.jsonl"
    rollout(turns=1, steps_per_turn=2).append_to(path)
    events: list[Event] = []
    stop = asyncio.Event()
    follower = RolloutFollower(str(path), events.append)
    pauses = CountedPauses()
    task = asyncio.ensure_future(
        read_window(LocalFile(path), follower, stop, follow=True, pause=pauses)
    )
    try:
        await wait_until(lambda: steps_of(events) == [1, 2], what="two steps")
        path.write_text("")  # truncated
        rollout(turns=1, steps_per_turn=1).append_to(path)
        await wait_until(lambda: steps_of(events) == [1, 2, 1], what="the new content")
        replacement = tmp_path / "next.jsonl"
        rollout(turns=1, steps_per_turn=3).append_to(replacement)
        os.replace(replacement, path)  # a new inode under the same name
        await wait_until(lambda: steps_of(events) == [1, 2, 1, 1, 2, 3], what="the new file")
        path.unlink()
        await wait_until(lambda: statuses(events)[-1][0] == "down", what="the deletion")
        await pauses.looks(3)  # several looks at a missing file
        rollout(turns=1, steps_per_turn=1).append_to(path)
        await wait_until(lambda: steps_of(events)[-1:] == [1] and len(steps_of(events)) == 7)
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=5)
    assert statuses(events) == [
        ("up", f"{path} truncated: read again"),
        ("up", f"{path} replaced by a new file: read again"),
        ("down", f"{path} was deleted"),
        ("up", f"{path} is readable again"),
    ]
    assert not [e for e in events if isinstance(e.msg, WarningMessage)]


async def test_a_file_rewritten_in_place_with_more_bytes_is_noticed(
    tmp_path: Path, fast_polls: None
) -> None:
    path = tmp_path / "rollout.jsonl"
    rollout(turns=1, steps_per_turn=1).append_to(path)
    events: list[Event] = []
    follower = RolloutFollower(str(path), events.append)
    window = LocalFile(path)
    await read_window(window, follower, asyncio.Event(), follow=False)
    assert steps_of(events) == [1]
    longer = rollout(turns=2, steps_per_turn=2)
    longer.lines[0] = longer.lines[0].replace('"cwd": "/repo"', '"cwd": "/elsewhere/x"')
    with path.open("r+b") as handle:  # same inode, other bytes where the last one read was
        handle.write("".join(line + "\n" for line in longer.lines).encode())
    view = await window.read(follower.offset, 1 << 20)
    assert view is not None
    assert not follower.take(view)
    assert statuses(events) == [("up", f"{path} rewritten: read again")]


async def test_a_broken_line_is_reported_once_with_its_number(tmp_path: Path) -> None:
    writer = rollout(turns=1, steps_per_turn=1)
    writer.lines.insert(2, "{not json")
    path = tmp_path / "rollout.jsonl"
    writer.append_to(path)
    events: list[Event] = []
    await read_window(
        LocalFile(path), RolloutFollower(str(path), events.append), asyncio.Event(), follow=False
    )
    warnings = [e.msg.message for e in events if isinstance(e.msg, WarningMessage)]
    assert warnings == [f"{path}: line 3 is not JSON; skipped"]
    assert steps_of(events) == [1]
