"""A row's active incidents agree with ``envtui check`` on the same file, or say "not known".

The index reads a rollout's head and tail and only the state lines between; ``check`` reads
every line. A rule of the whole thread (selected-never-resolved) needs every snapshot: the
index folds it in when it saw them all, and says it cannot know when it did not, never
that there is nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.data.session_trees import copy_real, day_folder, thread_id
from tests.support.files import ROLLOUTS
from tests.support.main_in_process import Capture, run_cli

from envtui.incidents.thread_summary import ThreadSummary
from envtui.sources.sessions import thread_file
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex

CASES = sorted((ROLLOUTS / "cases").glob("*.jsonl"))
FAILED_REMOTE = ROLLOUTS / "cases" / "failed-remote-0171.jsonl"


def _tree(root: Path) -> list[Path]:
    """Every rollout of tests/rollouts in one tree, the cases under rollout names."""
    paths = copy_real(root)
    for number, case in enumerate(CASES, start=900):
        name = f"rollout-2026-11-30T15-07-52-{thread_id(number)}.jsonl"
        paths.append(Path(shutil.copy(case, day_folder(root) / name)))
    return paths


def _active_in_check(path: Path, tree: Path, capsys: Capture) -> set[str]:
    """The codes of the incidents ``envtui check --json`` leaves open."""
    _, out, _ = run_cli(["check", str(path), "--json", "--sessions", str(tree)], capsys)
    report = json.loads(out)
    return {i["code"] for i in report["incidents"] if i["resolved_step"] is None}


def _rows(tree: Path) -> dict[str, ThreadSummary]:
    view = SessionsIndex(LocalSessionFiles(tree)).poll()
    return {row.path: row for row in view.threads}


@pytest.mark.parametrize("whole_file", [thread_file.WHOLE_FILE, 0], ids=["as-is", "all-scanned"])
def test_every_rollout_agrees_with_check(
    tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch, whole_file: int
) -> None:
    """Read as usual, and with every file's middle skipped (only the state lines read)."""
    monkeypatch.setattr(thread_file, "WHOLE_FILE", whole_file)
    paths = _tree(tmp_path)
    rows = _rows(tmp_path)
    assert len(rows) == len(paths)
    for path in paths:
        row = rows[str(path)]
        active = _active_in_check(path, tmp_path, capsys)
        assert set(row.incidents) <= active, path.name
        assert active - set(row.incidents) <= set(row.incidents_not_known), path.name


def test_the_failed_remote_case_shows_its_thread_incident(tmp_path: Path, capsys: Capture) -> None:
    """The case of the issue: 120 KB, its middle skipped, every snapshot still seen."""
    path = Path(shutil.copy(FAILED_REMOTE, day_folder(tmp_path) / _name(1)))
    assert path.stat().st_size > thread_file.WHOLE_FILE
    row = _rows(tmp_path)[str(path)]
    assert not row.steps_exact
    assert row.incidents == ["selected-never-resolved"]
    assert row.incidents_not_known == []
    assert _active_in_check(path, tmp_path, capsys) == {"selected-never-resolved"}
    code, out, _ = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    assert code == 0  # the thread is not live: its incident does not fail the command
    assert json.loads(out.splitlines()[0])["incidents"] == ["selected-never-resolved"]


def _name(number: int) -> str:
    return f"rollout-2026-11-30T15-07-52-{thread_id(number)}.jsonl"


def _long_gap(root: Path, gaps: int = 2, number: int = 2) -> Path:
    """The failed-remote thread grown: many turns without a world state after the first,
    then one that restates the state in full, then a last turn. What lies before that full
    world state is far longer than the index reads."""
    lines = FAILED_REMOTE.read_text(encoding="utf-8").splitlines()
    first, turn, full = lines[:18], lines[18:], lines[8]
    assert '"type":"world_state","payload":{"full":true' in full
    body: list[str] = []
    while sum(len(x) for x in body) < gaps * thread_file.READ_GAP:
        body += turn
    restated = [turn[0], full, *turn[1:]]
    path = day_folder(root) / _name(number)
    path.write_text("\n".join([*first, *body, *restated, *turn]) + "\n", encoding="utf-8")
    return path


def test_a_long_unread_gap_says_not_known_never_none(tmp_path: Path, capsys: Capture) -> None:
    path = _long_gap(tmp_path)
    assert _active_in_check(path, tmp_path, capsys) == {"selected-never-resolved"}
    row = _rows(tmp_path)[str(path)]
    assert row.incidents == []
    assert row.incidents_not_known == ["selected-never-resolved"]
    turns = path.read_text().count('"type":"task_started"')
    assert not row.turns_exact
    assert 1 <= row.turns < turns
    # the latest state is still exact: the full world state before the tail
    assert {i: e.status for i, e in row.environments.items()} == {
        "broken": "unavailable",
        "local": "ready",
    }
    assert row.as_json()["incidents_not_known"] == ["selected-never-resolved"]


def _bytes_read(tree: Path) -> int:
    read = 0
    files = LocalSessionFiles(tree)
    original = files.read

    def counting(name: str, offset: int, size: int) -> bytes:
        nonlocal read
        data = original(name, offset, size)
        read += len(data)
        return data

    files.read = counting  # type: ignore[method-assign,assignment]
    assert len(SessionsIndex(files).poll().threads) == 1
    return read


def test_what_is_read_does_not_grow_with_the_gap(tmp_path: Path) -> None:
    """The same thread with a gap four times as long: the index reads the same bytes (its
    head, the first bytes of the gap, and from the latest full world state on)."""
    short = _long_gap(tmp_path / "short", gaps=2)
    long = _long_gap(tmp_path / "long", gaps=8)
    assert long.stat().st_size > short.stat().st_size + 5 * thread_file.READ_GAP
    assert _bytes_read(tmp_path / "long") == _bytes_read(tmp_path / "short")
