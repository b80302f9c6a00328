"""Two Codex cases read right on rollouts the real binaries wrote (``tests/rollouts/cases/``,
recorded by ``tests/support/data/record_rollouts.py``): a remote that fails from the first step
to the last was selected and never resolved; a turn cut off by killing the app-server (no
``turn_aborted``) is interrupted, not running for ever."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.support.files import ROOT
from tests.support.main_in_process import run_check, run_cli
from tests.support.whole_rollouts import read_rollout

from envtui.rollout.emit import RolloutEvents
from envtui.sources.sessions.sessions_index import LIVE_WINDOW
from envtui.vocabulary.events import FindingReported, WarningMessage

CASES = ROOT / "tests" / "rollouts" / "cases"
FAILED = CASES / "failed-remote-0171.jsonl"
CUT_OFF = [CASES / "cut-off-0171.jsonl", CASES / "cut-off-0150.jsonl"]


def _aged(path: Path, folder: Path, *, seconds: float) -> Path:
    """A copy of ``path`` last written ``seconds`` ago (a checkout dates files now)."""
    copy = folder / path.name
    shutil.copyfile(path, copy)
    then = time.time() - seconds
    os.utime(copy, (then, then))
    return copy


def test_a_remote_that_fails_at_every_step_is_selected_never_resolved(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_check(FAILED, "--json", capture=capsys)
    assert code == 1
    report = json.loads(out)
    statuses = {s["step"]: s["context"] for s in report["steps"]}
    assert len(statuses) == 2
    assert "<status>failed</status>" in (statuses[1] or "")
    (finding,) = report["findings"]
    assert (finding["code"], finding["step"], finding["environment_id"]) == (
        "selected-never-resolved",
        None,
        "broken",
    )


def test_the_failed_remote_is_raised_once_the_rollout_is_read_in_the_dashboard() -> None:
    reading = RolloutEvents()
    events = []
    for number, line in enumerate(FAILED.read_text().splitlines(), start=1):
        events += reading.read_line(number, line).events
    assert not [e for e in events if isinstance(e.msg, FindingReported)]  # not before the end
    found = [e.msg for e in reading.finish() if isinstance(e.msg, FindingReported)]
    assert [(f.code, f.environment_id) for f in found] == [("selected-never-resolved", "broken")]


def test_a_remote_that_fails_is_not_raised_under_the_0150_profile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run_check(FAILED, "--profile", "codex-0.150", capture=capsys)
    findings = [line for line in out.splitlines() if not line.startswith("note: ")]
    assert not [line for line in findings if "selected-never-resolved" in line]
    assert "a codex-0.150 rollout does not record" in out


@pytest.mark.parametrize("recorded", CUT_OFF, ids=lambda p: p.stem)
def test_a_cut_off_last_turn_is_interrupted_not_running(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rollout = read_rollout(recorded)
    assert rollout.info.turns == 2
    assert rollout.info.turn_end is None  # the file has no end for the second turn
    old = _aged(recorded, tmp_path, seconds=LIVE_WINDOW + 60)
    _, out, _ = run_check(old, "--json", capture=capsys)
    report = json.loads(out)
    assert (report["rollout"]["last_turn"], report["rollout"]["last_turn_cut_off"]) == (
        "interrupted",
        True,
    )
    assert any(note.startswith("turn 2 was cut off") for note in report["notes"])


@pytest.mark.parametrize("recorded", CUT_OFF, ids=lambda p: p.stem)
def test_a_last_turn_without_its_end_that_is_still_written_is_running(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fresh = _aged(recorded, tmp_path, seconds=1)
    _, out, _ = run_check(fresh, "--json", capture=capsys)
    report = json.loads(out)
    assert (report["rollout"]["last_turn"], report["rollout"]["last_turn_cut_off"]) == (
        "running",
        False,
    )


def test_a_cut_off_turn_read_once_in_the_dashboard_says_so() -> None:
    reading = RolloutEvents()
    for number, line in enumerate(CUT_OFF[0].read_text().splitlines(), start=1):
        reading.read_line(number, line)
    notices = [e.msg for e in reading.finish() if isinstance(e.msg, WarningMessage)]
    assert [n.message.split(":")[0] for n in notices] == ["turn 2 was cut off"]


def test_a_turn_that_ended_is_completed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = _aged(FAILED, tmp_path, seconds=LIVE_WINDOW + 60)
    _, out, _ = run_check(old, "--json", capture=capsys)
    assert json.loads(out)["rollout"]["last_turn"] == "completed"


def test_sessions_say_a_cut_off_last_turn_is_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day = tmp_path / "2026" / "12" / "02"
    day.mkdir(parents=True)
    for path in (CUT_OFF[0], FAILED):
        thread = json.loads(path.read_text().splitlines()[0])["payload"]["id"]
        copy = day / f"rollout-2026-12-02T01-00-00-{thread}.jsonl"
        shutil.copyfile(path, copy)
        then = time.time() - LIVE_WINDOW - 60
        os.utime(copy, (then, then))
    _, out, _ = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert sorted((row["last_turn"], row["live"]) for row in rows) == [
        ("completed", False),
        ("interrupted", False),
    ]
