"""The index's cheaper paths give the rows the plain ones give.

A row's check makes no unified diff (a row shows none): its findings are ``check``'s, codes
and messages. The reads of indexing (head, the tools lines before the first world state,
the last turn start, the latest full world state, the tail) give the same row whatever
their sizes: lines and markers cut by reads, broken lines, and a world state as the last
line, with and without its end.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path

import pytest

from tests.support.data.session_trees import (
    SOURCE_0171,
    grown,
    thread_id,
    with_wrong_last_context,
)

from envtui.incidents.thread_summary import ThreadFold, ThreadSummary
from envtui.rollout.checked import CheckedSteps
from envtui.sources.sessions import thread_file
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex


def _findings(path: Path, *, diffs: bool) -> list[tuple[int, str, str, dict[str, object]]]:
    steps = CheckedSteps(diffs=diffs)
    checked = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(True), start=1):
        checked += steps.read_line(number, line)
    checked += steps.finish()
    return [
        (step.number, f.code, f.message, dict(f.extra))
        for step, report in checked
        for f in report.findings
    ]


def test_a_check_without_diffs_finds_the_same_with_no_diff(tmp_path: Path) -> None:
    path = with_wrong_last_context(tmp_path)
    full, lean = _findings(path, diffs=True), _findings(path, diffs=False)
    assert [f[1] for f in full] == ["context-mismatch"]
    assert "Europe/Paris" in str(full[0][3]["diff"])
    assert [f[:3] for f in lean] == [f[:3] for f in full]  # step, code and message
    assert lean[0][3] == _no_diffs(full[0][3])
    assert _no_diffs(lean[0][3]) == lean[0][3]


def _no_diffs(value: object) -> object:
    """``value`` with every ``diff`` in it emptied (a finding per step nests its blocks')."""
    if isinstance(value, dict):
        return {k: "" if k == "diff" else _no_diffs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_diffs(v) for v in value]
    return value


def _row(tree: Path) -> ThreadSummary:
    (row,) = SessionsIndex(LocalSessionFiles(tree)).poll().threads
    return dataclasses.replace(row, last_written=None, live=False)


def _world_state_line() -> bytes:
    lines = SOURCE_0171.read_bytes().splitlines(keepends=True)
    return next(x for x in lines if b'"type":"world_state","payload":{"full":true' in x)


SHAPES = ["as-written", "world-state-last", "world-state-last-unended", "broken-lines"]


def _shaped(root: Path, shape: str) -> Path:
    path = grown(root, 3, 300 << 10, ending=True)
    data = path.read_bytes()
    if shape.startswith("world-state-last"):
        data += _world_state_line()
        data = data.rstrip(b"\n") if shape.endswith("unended") else data
    elif shape == "broken-lines":
        lines = data.splitlines(keepends=True)
        for at in (len(lines) // 2, len(lines) - 3, len(lines) - 1):
            lines[at] = lines[at][: len(lines[at]) // 2] + b"\n"  # cut in two: not JSON
        data = b"".join(lines)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("shape", SHAPES)
def test_a_row_read_in_tiny_reads_is_the_row_read_as_usual(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """Reads of a few KiB cut the head, the tools line, markers and the tail's lines."""
    _shaped(tmp_path, shape)
    usual = _row(tmp_path)
    monkeypatch.setattr(thread_file, "FIRST_READ", 997)
    monkeypatch.setattr(thread_file, "CHUNK", 4099)
    tiny = _row(tmp_path)
    assert tiny == usual
    assert usual.thread_id == thread_id(3)
    assert usual.environments_known
    assert not usual.turns_exact  # the gap before the latest full world state is not read
    if shape == "broken-lines":
        assert usual.bad_lines == 2  # the tail's; the middle is not parsed
    if shape == "world-state-last":  # a complete last line: read, one more line, its state
        recorded = json.loads(_world_state_line())["payload"]["state"]["environments"]
        assert set(usual.environments) == set(recorded["environments"])


def test_an_unended_last_line_is_read_once_it_ends(tmp_path: Path) -> None:
    """A world state still being written is not read; once its newline is there, it is."""
    path = _shaped(tmp_path, "world-state-last-unended")
    index = SessionsIndex(LocalSessionFiles(tmp_path))
    before = index.poll().threads[0]
    with path.open("ab") as out:
        out.write(b"\n")
    after = index.poll().threads[0]
    stamp = json.loads(_world_state_line())["timestamp"].replace("Z", "+00:00")
    written = datetime.fromisoformat(stamp)
    assert after.bad_lines == before.bad_lines == 0
    assert before.last_item_at != written
    assert after.last_item_at == written


@pytest.mark.parametrize("first_read", [64 << 10, 997, 40])
def test_the_tools_line_before_the_first_world_state_is_taken_whole_and_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first_read: int
) -> None:
    """A long gap is not read, but for its tools lines up to its first world state: found
    across reads that cut the line (and the markers) anywhere; those after it are not."""
    path = grown(tmp_path, 5, 600 << 10, tools_every_turn=True, ending=True)
    lines = path.read_bytes().splitlines(keepends=True)
    tools = [x for x in lines if b'"payload":{"type":"additional_tools"' in x[:128]]
    first_world = next(i for i, x in enumerate(lines) if b'"type":"world_state"' in x)
    assert len(tools) > 10
    assert lines.index(tools[0]) < first_world
    taken: list[str] = []
    monkeypatch.setattr(thread_file, "FIRST_READ", first_read)
    monkeypatch.setattr(
        ThreadFold, "skipped_tools_line", lambda self, number, raw: taken.append(raw)
    )
    SessionsIndex(LocalSessionFiles(tmp_path)).poll()
    assert taken == [tools[0].decode()]
