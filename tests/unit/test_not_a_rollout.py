"""A file that is no rollout (a README, an event stream, an empty file, lines of JSON that
are no rollout items) is an input error for ``check`` and ``rollout``, in one line; the
sessions listing keeps such a file, marked, next to the real threads."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.files import ROLLOUTS
from tests.support.main_in_process import run_check, run_cli
from tests.support.scenarios.scripted_stream import scripted_events

from envtui.incidents.thread_summary import ThreadSummary
from envtui.rollout.reader import HEAD_LINES, not_a_rollout
from envtui.tui.sessions.sessions_format import details_text
from envtui.vocabulary.events import encode_event

ROOT = Path(__file__).parents[2]
ROLLOUT = sorted(ROLLOUTS.glob("rollout-*.jsonl"))[0]
NOT_ROLLOUTS = {
    "README.md": (ROOT / "README.md").read_text(),
    "events.jsonl": "".join(encode_event(e) + "\n" for e in scripted_events()),
    "objects.jsonl": '{"type": 1}\n{"kind": "session_meta"}\n[1, 2]\n"text"\n',
}


def _reasons(name: str, text: str) -> str:
    return "it is empty" if not text else "no line is a rollout item"


@pytest.mark.parametrize("name", [*NOT_ROLLOUTS, "empty.jsonl"])
@pytest.mark.parametrize("extra", [(), ("--json",)], ids=["text", "json"])
def test_check_refuses_a_file_that_is_no_rollout(
    tmp_path: Path, name: str, extra: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    text = NOT_ROLLOUTS.get(name, "")
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run_check(path, *extra, capture=capsys)
    assert (code, out) == (2, "")
    assert err == f"envtui check: error: {path}: not a Codex rollout: {_reasons(name, text)}\n"


def test_check_stops_reading_garbage_after_its_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "numbers.jsonl"
    lines = [str(n) for n in range(HEAD_LINES * 3)]
    path.write_text("\n".join(lines) + "\n" + ROLLOUT.read_text())  # too late to count
    code, out, err = run_check(path, capture=capsys)
    assert (code, out) == (2, "")
    assert err.endswith(f"none of its first {HEAD_LINES} lines is a rollout item\n")


def test_a_rollout_with_broken_lines_before_its_items_is_still_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_text("not json\n\n" + ROLLOUT.read_text())
    code, out, _ = run_check(path, capture=capsys)
    assert code == 0
    assert "note: 1 broken line(s) skipped: [1]" in out


def test_the_head_test_reads_no_further_than_its_head() -> None:
    read = []

    def lines() -> Iterator[str]:
        for n in range(10 * HEAD_LINES):
            read.append(n)
            yield "{}\n"

    assert not_a_rollout(lines()) is not None
    assert len(read) == HEAD_LINES
    assert not_a_rollout(iter(["x\n", ROLLOUT.read_text().splitlines()[0]])) is None


@pytest.mark.parametrize("name", [*NOT_ROLLOUTS, "empty.jsonl"])
def test_rollout_refuses_a_file_that_is_no_rollout_before_the_screen(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = NOT_ROLLOUTS.get(name, "")
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run_cli(["rollout", str(path)], capsys)
    assert (code, out) == (2, "")
    assert err == f"envtui rollout: error: {path}: not a Codex rollout: {_reasons(name, text)}\n"


@pytest.mark.usefixtures("a_terminal")
def test_rollout_follows_an_empty_file_codex_has_just_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from envtui.commands import dashboard

    started: list[object] = []

    def run_app(*parts: object) -> int:
        started.append(parts)
        return 0

    monkeypatch.setattr(dashboard, "_run_app", run_app)
    path = tmp_path / "rollout-new.jsonl"
    path.write_text("")
    assert run_cli(["rollout", str(path), "--follow"], capsys)[0] == 0
    assert len(started) == 1


def test_sessions_lists_a_file_that_is_no_rollout_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    day = tmp_path / "2026" / "11" / "30"
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT, day / ROLLOUT.name)
    thread = "0000aaaa-0000-0000-0000-000000000000"
    (day / f"rollout-2026-11-30T10-00-00-{thread}.jsonl").write_text(NOT_ROLLOUTS["README.md"])
    code, out, _ = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    assert code == 0
    rows = {row["thread"]: row for row in map(json.loads, out.splitlines())}
    assert len(rows) == 2
    assert rows[thread]["is_rollout"] is False
    assert (rows[thread]["steps"], rows[thread]["environments"]) == (0, None)
    assert [row["is_rollout"] for t, row in rows.items() if t != thread] == [True]


def test_the_line_under_the_sessions_table_says_a_file_is_no_rollout() -> None:
    marked = ThreadSummary("t", "/x/rollout-t.jsonl", is_rollout=False, environments_known=False)
    assert details_text(marked).endswith("not a Codex rollout: no line read is a rollout item")
    assert "not a Codex rollout" not in details_text(ThreadSummary("t", "/x/rollout-t.jsonl"))
