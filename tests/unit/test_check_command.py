"""``envtui check`` on prepared rollouts and on the engine: findings, notes and exit codes."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.support.data.handmade_rollouts import RolloutWriter, function_tool
from tests.support.main_in_process import finding_lines, run_check

from envtui.cli import main
from envtui.context.model import EnvironmentsState, EnvironmentState

LOCAL = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)
DEVBOX = EnvironmentState(cwd="/repo", shell="zsh")
TWO = EnvironmentsState(
    environments={"local": LOCAL, "devbox": DEVBOX}, current_date="2026-11-30", timezone="Etc/UTC"
)
APPLY_PATCH = {
    "type": "custom",
    "name": "apply_patch",
    "format": {"type": "grammar", "definition": "start: begin_patch hunk+ end_patch"},
}
TOOLS = (
    function_tool("exec_command"),
    function_tool("write_stdin"),
    function_tool("view_image"),
    APPLY_PATCH,
)
TOOLS_WITH_IDS = (
    function_tool("exec_command", environment_id=True),
    function_tool("view_image", environment_id=True),
)


def _healthy() -> RolloutWriter:
    writer = RolloutWriter()
    writer.turn()
    writer.tools(*TOOLS)
    writer.step(
        EnvironmentsState(
            environments={"local": LOCAL}, current_date="2026-11-30", timezone="Etc/UTC"
        ),
        at="2026-11-30T03:16:01.000Z",
    )
    writer.call("exec_command", {"cmd": "ls"})
    writer.output()
    writer.tools(*TOOLS_WITH_IDS)
    writer.step(TWO, at="2026-11-30T03:16:09.000Z")
    writer.call("exec_command", {"cmd": "ls", "environment_id": "devbox"})
    writer.end_turn()
    return writer


def test_healthy_rollout_has_no_findings_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_check(_healthy().save(tmp_path), capture=capsys)
    assert (code, err) == (0, "")  # the report, notes too, is on standard output
    assert out.endswith("0 finding(s) in 2 step(s)\n")
    assert all(line.startswith("note: ") for line in out.splitlines()[:-1])


def test_a_context_codex_recorded_differently_is_a_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.tools(*TOOLS)
    wrong = "<environment_context>\n  <cwd>/elsewhere</cwd>\n  <shell>bash</shell>\n</environment_context>"
    writer.step(EnvironmentsState(environments={"local": LOCAL}), text=wrong)
    code, out, _ = run_check(writer.save(tmp_path), capture=capsys)
    assert code == 1
    assert finding_lines(out) == [
        "step 1: context-mismatch: -: -: envtui renders this step's context differently from Codex "
        "(line 2: envtui '  <cwd>/repo</cwd>', Codex '  <cwd>/elsewhere</cwd>')"
    ]
    code, out, _ = run_check(writer.save(tmp_path), "--json", capture=capsys)
    (mismatch,) = json.loads(out)["findings"]
    assert mismatch["line"] == 4
    assert mismatch["severity"] == "error"
    assert "-  <cwd>/repo</cwd>\n+  <cwd>/elsewhere</cwd>" in mismatch["diff"]
    assert len(mismatch["diff"].splitlines()) <= 12


def test_a_block_codex_did_not_send_is_a_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.step(EnvironmentsState(environments={"local": LOCAL}), text=None)
    code, out, _ = run_check(writer.save(tmp_path), capture=capsys)
    assert code == 1
    assert "envtui would send a context block here, and Codex sent none" in out


def test_stricter_escaping_alone_is_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.step(EnvironmentsState(environments={"local": LOCAL}, subagents="- w: <fast>"))
    code, out, _err = run_check(writer.save(tmp_path), "--json", capture=capsys)
    assert code == 0
    assert json.loads(out)["steps"][0]["notes"] == [
        "deviation: envtui escapes network domains and subagent lines; Codex wrote them raw"
    ]


DEVBOX_LOST = (
    '{"id":"","msg":{"type":"environment_connected","environment_id":"devbox"},"at":"2026-11-30T03:16:02+00:00"}\n'
    '{"id":"","msg":{"type":"environment_disconnected","environment_id":"devbox"},"at":"2026-11-30T03:16:05+00:00"}\n'
)
"""devbox connects, then its connection is lost, before step 2 of ``_healthy()``."""


def test_stale_available_needs_the_events_and_then_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text(DEVBOX_LOST + "not json\n")
    code, out, _ = run_check(_healthy().save(tmp_path), capture=capsys)
    assert code == 0
    assert "note: stale-available needs connection events (--events FILE)" in out
    code, out, err = run_check(_healthy().save(tmp_path), "--events", str(events), capture=capsys)
    assert (code, err) == (1, "")
    assert out.startswith(
        "step 2: stale-available: -: devbox: the context presents 'devbox' as available, but the connection is known to be lost\n"
    )
    assert f"note: {events}: line 3: invalid JSON" in out


def test_tool_rules_run_on_recorded_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.tools(*TOOLS)
    writer.step(TWO)
    code, out, _ = run_check(writer.save(tmp_path), capture=capsys)
    assert code == 1
    assert out.startswith(
        "step 1: missing-environment-id: exec_command, view_image: -: with 2 selected environments"
    )


def test_two_primaries_are_a_primary_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = RolloutWriter()
    writer.turn()
    writer.item("world_state", {"full": True, "state": {"environments": {"environments": {
        "a": {"cwd": "/a", "status": "available", "is_primary": True},
        "b": {"cwd": "/b", "status": "available", "is_primary": True},
    }}}})  # fmt: skip
    code, out, _ = run_check(writer.save(tmp_path), "--json", capture=capsys)
    codes = [f["code"] for f in json.loads(out)["findings"]]
    assert "primary-mismatch" in codes
    assert code == 1


def test_json_carries_the_rollout_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = _healthy()
    writer.lines.append('{"type": "cut sh')
    _code, out, _ = run_check(
        writer.save(tmp_path), "--json", "--profile", "codex-0.150", capture=capsys
    )
    summary = json.loads(out)["rollout"]
    assert summary == {
        "lines": len(writer.lines),
        "bad_lines": [len(writer.lines)],
        "unknown_items": 0,
        "turns_without_step": 0,
        "cli_version": "0.171.0",
        "profile": "codex-0.150",
        "last_turn": "completed",
        "last_turn_cut_off": False,
    }


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    rollout = tmp_path / "r.jsonl"
    rollout.write_text(_healthy().text())
    assert main(["check", str(rollout), "--events", str(tmp_path / "none.jsonl")]) == 2
    bad = tmp_path / "c.toml"
    bad.write_text("colour = 1\n")
    assert main(["check", "--config", str(bad)]) == 2


def test_engine_steps_of_a_healthy_local_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[[environments]]\nid = "local"\nkind = "local"\ncwd = "{tmp_path}"\n')
    assert main(["check", "--config", str(config), "--steps", "2", "--interval", "0"]) == 0
    assert capsys.readouterr().out.endswith("0 finding(s) in 2 step(s)\n")


def test_engine_steps_find_an_environment_that_never_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "known_hosts").write_text("")
    config = tmp_path / "c.toml"
    config.write_text(
        f'[[environments]]\nid = "local"\nkind = "local"\ncwd = "{tmp_path}"\n'
        f'[[environments]]\nid = "gone"\nkind = "ssh"\ncwd = "/"\nhost = "127.0.0.1"\nport = {port}\nknown_hosts = "{tmp_path / "known_hosts"}"\n'
    )
    assert (
        main(["check", "--config", str(config), "--steps", "2", "--interval", "0.5", "--json"]) == 1
    )
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["code"], f["environment_id"], f["step"]) for f in findings] == [
        ("selected-never-resolved", "gone", None)
    ]


def test_tools_from_a_json_file_replace_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[[environments]]\nid = "local"\nkind = "local"\ncwd = "{tmp_path}"\n')
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            {
                "tools": [
                    function_tool("exec_command", environment_id=True),
                    function_tool("write_stdin"),
                    function_tool("view_image"),
                    APPLY_PATCH,
                ]
            }
        )
    )
    assert (
        main(
            [
                "check",
                "--config",
                str(config),
                "--steps",
                "1",
                "--interval",
                "0",
                "--tools",
                str(tools),
            ]
        )
        == 1
    )
    assert capsys.readouterr().out.startswith(
        "step 1: unexpected-environment-id: exec_command: -: with 1 selected environment"
    )
    tools.write_text("[1, 2")
    assert main(["check", "--config", str(config), "--tools", str(tools)]) == 2
    assert "invalid JSON" in capsys.readouterr().err


def test_tools_from_a_file_for_a_rollout_without_recorded_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    writer = RolloutWriter(cli_version="0.150.0")
    writer.turn()
    writer.step(TWO)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(list(TOOLS)))
    code, out, _ = run_check(writer.save(tmp_path), "--tools", str(tools), capture=capsys)
    assert code == 1
    assert out.startswith(
        "step 1: missing-environment-id: exec_command, apply_patch, view_image: -: with 2 ready environments"
    )


def test_event_times_without_a_utc_offset_are_taken_as_utc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text(
        DEVBOX_LOST.replace("+00:00", "")  # the same times, without their UTC offset
        + '{"id":"","msg":{"type":"warning","message":"m"},"at":"0001-01-01T00:00:00+14:00"}\n'
    )
    code, out, err = run_check(_healthy().save(tmp_path), "--events", str(events), capture=capsys)
    assert code == 1
    assert out.startswith("step 2: stale-available: -: devbox:")
    assert f"note: {events}: line 3: at: time out of range" in out
    assert err == ""


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[" * 100_000, "invalid JSON: nested deeper than 100 levels"),
        ('{"tools": 5}', 'expected a list of tool specs or {"tools": [...]}'),
        ("[NaN]", "invalid JSON: NaN is not JSON"),
        ("[1, 2]", "no tool spec with a type and a name"),
        (b"[\xff]", "not UTF-8 (invalid byte at offset 1)"),
    ],
)
def test_bad_tools_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes, expected: str
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out, err = run_check(_healthy().save(tmp_path), "--tools", str(tools), capture=capsys)
    assert (code, out) == (2, "")
    assert err == f"envtui check: error: {tools}: {expected}\n"


def test_bad_events_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = tmp_path / "events.jsonl"
    events.write_bytes(b"\xff\n")
    code, _, err = run_check(_healthy().save(tmp_path), "--events", str(events), capture=capsys)
    assert code == 2
    assert err.startswith(f"envtui check: error: {events}: cannot read: ")
    assert err.count("\n") == 1


def test_json_folds_the_findings_into_incidents_with_their_resolution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """devbox is lost before step 2 and back before step 3: one stale-available incident,
    raised at step 2 and resolved at step 3."""
    events = tmp_path / "events.jsonl"
    events.write_text(
        DEVBOX_LOST
        + '{"id":"","msg":{"type":"environment_connected","environment_id":"devbox"},"at":"2026-11-30T03:16:12+00:00"}\n'
    )
    writer = _healthy()
    writer.turn()
    writer.step(TWO, at="2026-11-30T03:16:15.000Z")
    writer.call("exec_command", {"cmd": "ls", "environment_id": "devbox"})
    writer.end_turn()
    code, out, _ = run_check(
        writer.save(tmp_path), "--json", "--events", str(events), capture=capsys
    )
    assert code == 1
    report = json.loads(out)
    assert [f["code"] for f in report["findings"]] == ["stale-available"]
    assert report["incidents"] == [
        {
            "code": "stale-available",
            "environments": ["devbox"],
            "tool": None,
            "first_step": 2,
            "last_step": 2,
            "steps": 1,
            "resolved_step": 3,
        }
    ]
