"""Reading rollout files: world-state items, tools, calls, steps, and broken input."""

from __future__ import annotations

import json

from tests.support.data.handmade_rollouts import RolloutWriter, code_mode_exec, function_tool
from tests.support.whole_rollouts import read_rollout_lines

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.rollout.items import calls_from
from envtui.steps.tools import tool_groups
from envtui.vocabulary.profiles import Profile

LOCAL = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)
DEVBOX_STARTING = EnvironmentState(cwd="/repo", status="starting")
DEVBOX = EnvironmentState(cwd="/repo", shell="zsh")


def _two_steps() -> RolloutWriter:
    writer = RolloutWriter()
    writer.turn()
    writer.tools(function_tool("exec_command", environment_id=True), function_tool("write_stdin"))
    writer.step(
        EnvironmentsState(
            environments={"local": LOCAL, "devbox": DEVBOX_STARTING}, current_date="2026-11-30"
        )
    )
    writer.call("exec_command", {"cmd": "ls", "environment_id": "local"})
    writer.output()
    writer.step(
        EnvironmentsState(
            environments={"local": LOCAL, "devbox": DEVBOX}, current_date="2026-11-30"
        )
    )
    writer.end_turn()
    return writer


def test_full_then_patch_world_state_items_give_each_steps_snapshot() -> None:
    rollout = read_rollout_lines(_two_steps().text().splitlines())
    first, second = rollout.steps
    (first_block,) = first.blocks
    (second_block,) = second.blocks
    assert (first_block.previous, second_block.previous) == (None, first.section)
    assert first.section["environments"]["devbox"] == {"cwd": "/repo", "status": "starting"}
    assert second_block.current == second.section
    assert second.section["environments"]["devbox"] == {
        "cwd": "/repo",
        "status": "available",
        "shell": "zsh",
    }
    assert first.calls[0].environment_id == "local"
    assert rollout.info.cli_version == "0.171.0"
    assert rollout.info.default_profile() == (Profile.CODEX_0171, None)


def test_a_new_step_starts_when_model_output_follows_a_tool_output() -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.step(EnvironmentsState(environments={"local": LOCAL}))
    writer.call("exec_command", {"cmd": "ls"})
    writer.output()
    writer.call("exec_command", {"cmd": "pwd"})  # no new context: the diff was empty
    writer.end_turn()
    writer.turn()
    writer.end_turn()  # a turn with no request
    rollout = read_rollout_lines(writer.text().splitlines())
    assert [len(step.calls) for step in rollout.steps] == [1, 1]
    assert rollout.info.turns_without_step == 1


def test_truncated_last_line_and_unknown_items_are_counted_not_fatal() -> None:
    lines = _two_steps().text().splitlines()
    lines.insert(3, json.dumps({"timestamp": "x", "type": "hologram", "payload": {}}))
    lines.append(lines[-1][: len(lines[-1]) // 2])  # a write cut short
    rollout = read_rollout_lines(lines)
    assert rollout.bad_lines == [len(lines)]
    assert rollout.info.unknown_items == {"hologram": 1}
    assert len(rollout.steps) == 2


def test_compaction_resets_the_baseline_and_a_patch_without_one_is_not_checked() -> None:
    writer = _two_steps()
    writer.item("compacted", {"message": "summary"})
    writer.turn()
    writer.item(
        "world_state", {"full": False, "state": {"environments": {"current_date": "2026-12-01"}}}
    )
    rollout = read_rollout_lines(writer.text().splitlines())
    (block,) = rollout.steps[-1].blocks
    assert block.unchecked is not None
    assert "no baseline" in block.unchecked


def test_unknown_cli_version_defaults_to_0171_with_a_note() -> None:
    rollout = read_rollout_lines(RolloutWriter(cli_version=None).text().splitlines())
    profile, note = rollout.info.default_profile()
    assert profile is Profile.CODEX_0171
    assert note is not None
    assert (
        read_rollout_lines(
            RolloutWriter(cli_version="0.150.0").text().splitlines()
        ).default_profile()[0]
        is Profile.CODEX_0150
    )


def test_additional_tools_update_by_namespace_and_name() -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.tools(function_tool("exec_command"), function_tool("view_image"))
    writer.step(EnvironmentsState(environments={"local": LOCAL}))
    writer.call("exec_command", {"cmd": "ls"})
    writer.tools(function_tool("exec_command", environment_id=True))  # only exec_command changes
    writer.step(EnvironmentsState(environments={"local": LOCAL, "devbox": DEVBOX}))
    rollout = read_rollout_lines(writer.text().splitlines())
    first, second = rollout.steps
    assert {t.name: t.environment_id for t in first.tools or []} == {
        "exec_command": "absent",
        "view_image": "absent",
    }
    assert {t.name: t.environment_id for t in second.tools or []} == {
        "exec_command": "optional",
        "view_image": "absent",
    }


def test_code_mode_tools_are_unfolded() -> None:
    groups = tool_groups([{"type": "namespace", "name": "functions", "tools": [code_mode_exec(
        ("exec_command", "args: { cmd: string; environment_id?: string }"),
        ("wait_for_environment", "args: { environment_id: string }"),
        ("apply_patch", "input: string"),
        ("write_stdin", "args: { session_id: number }"),
    )]}])  # fmt: skip
    tools = {t.name: t.environment_id for t in groups[("functions", "exec")]}
    assert tools == {
        "exec": "absent",
        "exec_command": "optional",
        "wait_for_environment": "required",
        "apply_patch": "unknown",
        "write_stdin": "absent",
    }


def test_calls_name_their_environment_in_each_shape() -> None:
    assert (
        calls_from(
            {
                "type": "function_call",
                "name": "view_image",
                "arguments": '{"path":"a.png","environment_id":"devbox"}',
            }
        )[0].environment_id
        == "devbox"
    )
    assert (
        calls_from({"type": "function_call", "name": "exec_command", "arguments": "not json"})[
            0
        ].environment_id
        is None
    )
    patch = "*** Begin Patch\n*** Environment ID: devbox\n*** Add File: a\n+x\n*** End Patch"
    assert (
        calls_from({"type": "custom_tool_call", "name": "apply_patch", "input": patch})[
            0
        ].environment_id
        == "devbox"
    )
    code = 'const r = await tools.exec_command({ cmd: "ls", environment_id: "gpu" });\nawait tools.view_image({ path: "p" });'
    assert [
        (c.tool, c.environment_id)
        for c in calls_from({"type": "custom_tool_call", "name": "exec", "input": code})
    ] == [
        ("exec_command", "gpu"),
        ("view_image", None),
    ]
    assert calls_from({"type": "local_shell_call", "call_id": "x"})[0].tool == "local_shell"
