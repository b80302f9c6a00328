"""Following a rollout on an SSH host (the in-process server): only the new bytes cross."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.data.handmade_rollouts import RolloutWriter, function_tool
from tests.support.real.ssh_servers import in_process_server
from tests.support.waiting import wait_until

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.environments.ssh import close_connection, open_connection
from envtui.sources import rollout_follow
from envtui.sources.file_windows import SshFile
from envtui.sources.rollout_follow import RolloutFollower, read_window
from envtui.vocabulary.events import Event, SourceStatus, StepRecorded

LOCAL = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)


def steps_of(events: list[Event]) -> list[int]:
    return [e.msg.step for e in events if isinstance(e.msg, StepRecorded)]


def one_turn(writer: RolloutWriter, steps: int) -> None:
    writer.turn()
    writer.tools(function_tool("exec_command"))
    for number in range(steps):
        state = EnvironmentsState(environments={"local": replace(LOCAL, cwd=f"/repo/{number}")})
        writer.step(state)
        writer.call("exec_command", {"cmd": "ls"})
        writer.output()
    writer.end_turn()


async def test_over_ssh_each_poll_reads_only_the_new_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rollout_follow, "POLL", 0.05)
    writer = RolloutWriter()
    one_turn(writer, 3)
    path = tmp_path / "rollout.jsonl"
    first = writer.append_to(path)
    async with in_process_server() as server:
        settings = server.settings(tmp_path / "known_hosts")
        lost: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        connection, _ = await open_connection(settings, lost, client_keys=[server.client_key])
        window = SshFile(connection, str(path), "127.0.0.1")
        events: list[Event] = []
        stop = asyncio.Event()
        follower = RolloutFollower(window.name, events.append)
        task = asyncio.ensure_future(read_window(window, follower, stop, follow=True))
        try:
            await wait_until(lambda: steps_of(events) == [1, 2, 3], what="three steps over SSH")
            assert window.bytes_read == first
            polls = len(server.commands)
            await wait_until(lambda: len(server.commands) >= polls + 4, what="four more polls")
            assert window.bytes_read == first  # polls of a file that did not grow read nothing
            one_turn(writer, 2)
            added = writer.append_to(path)
            await wait_until(lambda: steps_of(events) == [1, 2, 3, 4, 5], what="two more")
            assert window.bytes_read == first + 1 + added  # and one byte back, for a rewrite
            path.unlink()
            await wait_until(
                lambda: any(
                    isinstance(e.msg, SourceStatus) and e.msg.state == "down" for e in events
                ),
                what="the deletion, seen over SSH",
            )
        finally:
            stop.set()
            await asyncio.wait_for(task, timeout=10)
            await close_connection(connection)
    downs = [e.msg for e in events if isinstance(e.msg, SourceStatus)]
    assert [(s.state, s.reason) for s in downs] == [("down", f"127.0.0.1:{path} was deleted")]
