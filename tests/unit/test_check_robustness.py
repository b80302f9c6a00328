"""``envtui check`` on real and on damaged rollouts: clean where Codex was, never a traceback.

The rollouts under ``tests/rollouts/`` were written by the real Codex 0.171 (tool calls,
a compaction, a timezone change, a fork) and 0.150 (a timezone change, a compaction).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.support.data.rollout_mutations import REAL_ROLLOUTS, mutated_rollout
from tests.support.main_in_process import run_check

from envtui.rollout.items import code_mode_calls


def test_the_real_rollouts_check_clean_and_every_block_is_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert len(REAL_ROLLOUTS) >= 3
    versions = set()
    for path in REAL_ROLLOUTS:
        code, out, _ = run_check(path, "--json", capture=capsys)
        report = json.loads(out)
        assert (code, report["findings"]) == (0, []), path.name
        assert not [n for s in report["steps"] for n in s["notes"] if "not checked" in n]
        versions.add(report["rollout"]["cli_version"])
    assert versions == {"0.171.0", "0.150.0"}


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mutated_rollout())
def test_a_damaged_rollout_never_gives_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    path = tmp_path / "rollout-2026-11-30T00-00-00-damaged.jsonl"
    path.write_bytes(data)
    for extra in ((), ("--json",)):
        code, out, err = run_check(path, *extra, capture=capsys)
        assert "Traceback" not in err
        if code == 2:  # damaged beyond any rollout item: one line, no report
            assert out == ""
            assert err.startswith(f"envtui check: error: {path}: not a Codex rollout: ")
            assert err.count("\n") == 1
            continue
        assert code in (0, 1), err
        if extra:
            json.loads(out)


def test_bad_tools_and_events_files_are_exit_2_or_read_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rollout = REAL_ROLLOUTS[0]
    deep = tmp_path / "tools.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run_check(rollout, "--tools", str(deep), capture=capsys)
    assert code == 2
    assert err.startswith("envtui check: error: ")
    naive = tmp_path / "events.jsonl"
    naive.write_text(
        '{"id":"","msg":{"type":"environment_disconnected","environment_id":"local"},"at":"2026-11-30T12:00:01"}\n'
    )
    code, _, err = run_check(rollout, "--events", str(naive), capture=capsys)
    assert code in (0, 1)
    assert "Traceback" not in err


def test_hostile_code_mode_cells_of_a_megabyte_are_read() -> None:
    """The lazy pattern this replaces took hours on these; the time is measured (and
    quoted) by benchmarks/bench_check.py, never asserted here."""
    assert list(code_mode_calls("f({environment_id: 'x' " * 45_000)) == []
    assert list(code_mode_calls("a({" * 300_000 + "})")) == [("a", None)]


def test_a_quiet_steps_json_is_the_same_written_directly() -> None:
    from envtui.commands.check_output import _step_json
    from envtui.steps.report import StepReport
    from envtui.vocabulary.safe_text import dumps_json_line

    for report in (
        StepReport(7, 3, 120, None),
        StepReport(8, 3, None, None),
        StepReport(9, 4, 130, "<environment_context>\n</environment_context>", notes=["n"]),
    ):
        assert _step_json(report) == dumps_json_line(report.as_json())
