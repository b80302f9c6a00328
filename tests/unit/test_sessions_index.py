"""The sessions index: every thread once, the right counts, from head and tail, followed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.support.data.session_trees import (
    FORK_0171,
    SOURCE_0150,
    SOURCE_0171,
    copy_real,
    day_folder,
    grown,
    thread_id,
    tree_with_links_out,
    with_wrong_last_context,
    written_now,
)
from tests.support.main_in_process import run_cli
from tests.support.whole_rollouts import check_rollout, read_rollout

from envtui.incidents.sessions_view import SessionsView
from envtui.incidents.thread_summary import ThreadSummary
from envtui.rollout.emit import recorded_statuses
from envtui.rollout.fork_parent import ParentRollouts
from envtui.sources.sessions import tree_listing
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex
from envtui.sources.sessions.thread_file import WHOLE_FILE, ThreadFile
from envtui.sources.sessions.tree_listing import FileInfo


class CountingFiles(LocalSessionFiles):
    """The local tree, counting the bytes read."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.bytes_read = 0

    def read(self, path: str, offset: int, size: int) -> bytes:
        data = super().read(path, offset, size)
        self.bytes_read += len(data)
        return data


def _row(view: SessionsView, path: Path) -> ThreadSummary:
    return next(s for s in view.threads if s.path == str(path))


def _truth(path: Path) -> tuple[int, int, dict[str, str], list[str]]:
    """What reading the whole file says: steps, turns, statuses at the end, last findings."""
    rollout = read_rollout(path, baseline=ParentRollouts(path))  # a fork's parent is beside it
    report = check_rollout(rollout, rollout.default_profile()[0])
    turns = sum('"type":"task_started"' in line for line in path.read_text().splitlines())
    statuses = recorded_statuses(rollout.steps[-1].section, 0)
    last = report.steps[-1]
    return (
        len(rollout.steps),
        turns,
        {i: s.status for i, s in statuses.items()},
        sorted({f.code for f in last.findings}),
    )


def test_every_real_thread_is_listed_once_with_what_a_full_read_says(tmp_path: Path) -> None:
    """A file up to WHOLE_FILE is read whole (its step count exact); a larger one from head
    and tail, its step count a lower bound, everything else the same."""
    paths = [*copy_real(tmp_path), with_wrong_last_context(tmp_path)]
    view = SessionsIndex(LocalSessionFiles(tmp_path)).poll()
    assert view.up
    by_thread = {s.thread_id: s for s in view.threads}
    assert len(by_thread) == len(view.threads) == len(paths)
    assert {p.stat().st_size <= WHOLE_FILE for p in paths} == {True, False}
    for path in paths:
        steps, turns, statuses, findings = _truth(path)
        summary = by_thread[read_rollout(path).thread_id or ""]
        whole = path.stat().st_size <= WHOLE_FILE
        assert (summary.steps_exact, summary.turns) == (whole, turns)
        assert summary.steps == steps if whole else 0 < summary.steps < steps
        assert {i: e.status for i, e in summary.environments.items()} == statuses
        assert summary.incidents == findings
    assert by_thread[thread_id(999)].incidents == ["context-mismatch"]
    versions = {s.cli_version: s.profile for s in view.threads}
    assert versions == {"0.171.0": "codex-0.171", "0.150.0": "codex-0.150"}


def test_a_large_rollout_is_read_from_head_and_tail_with_the_same_latest_state(
    tmp_path: Path,
) -> None:
    path = grown(tmp_path, 1, 4 * WHOLE_FILE, ending=True)
    files = CountingFiles(tmp_path)
    summary = SessionsIndex(files).poll().threads[0]
    steps, turns, statuses, findings = _truth(path)
    assert {i: e.status for i, e in summary.environments.items()} == statuses
    assert summary.incidents == findings == ["context-mismatch"]
    # the middle before the latest full world state is longer than the index reads: its
    # turns are not counted, and the row says so
    assert not summary.turns_exact
    assert 0 < summary.turns < turns
    assert not summary.steps_exact
    assert 0 < summary.steps < steps
    assert summary.thread_id == thread_id(1)
    assert summary.cwd == "/home/me/work"
    # the middle is scanned, never parsed: the tail that was parsed is a small part
    assert summary.steps * 4 < steps


def test_appended_lines_are_read_incrementally_and_show_the_new_step(tmp_path: Path) -> None:
    source = written_now(copy_real(tmp_path)[0])  # live: its fold is kept to follow it
    lines = source.read_text().splitlines(keepends=True)
    cut = next(i for i, x in enumerate(lines) if '"task_started"' in x and i > 2)
    source.write_text("".join(lines[:cut]))
    files = CountingFiles(tmp_path)
    index = SessionsIndex(files)
    before = _row(index.poll(), source)
    read_before = files.bytes_read
    with source.open("a") as out:
        out.write("".join(lines[cut:]))
    after = index.poll()
    assert after.changed == {before.thread_id}
    assert _row(after, source).steps > before.steps
    assert files.bytes_read - read_before == len("".join(lines[cut:]).encode())
    idle = files.bytes_read
    assert index.poll().changed == set()
    assert files.bytes_read == idle  # nothing written: nothing read


def test_a_half_written_last_line_waits_for_its_end(tmp_path: Path) -> None:
    source = copy_real(tmp_path)[2]  # 0.150, read whole
    data = source.read_bytes()
    source.write_bytes(data[: len(data) - 40])
    index = SessionsIndex(LocalSessionFiles(tmp_path))
    assert _row(index.poll(), source).bad_lines == 0
    source.write_bytes(data)
    summary = _row(index.poll(), source)
    assert summary.bad_lines == 0
    assert summary.steps == _truth(source)[0]


def test_a_new_file_is_a_new_row_and_a_removed_one_goes(tmp_path: Path) -> None:
    _first, *_ = copy_real(tmp_path)
    index = SessionsIndex(LocalSessionFiles(tmp_path))
    assert len(index.poll().threads) == 3
    added = with_wrong_last_context(tmp_path)
    view = index.poll()
    assert thread_id(999) in view.changed
    assert len(view.threads) == 4
    added.unlink()
    view = index.poll()
    assert view.gone == {thread_id(999)}
    assert len(view.threads) == 3


def test_a_replaced_file_is_indexed_again(tmp_path: Path) -> None:
    path = copy_real(tmp_path)[0]
    files = LocalSessionFiles(tmp_path)
    info = next(i for i in files.listing() if i.path == str(path))
    thread = ThreadFile(files, info)
    thread.index()
    path.write_text(path.read_text().splitlines(keepends=True)[0])
    shorter = next(i for i in files.listing() if i.path == str(path))
    assert thread.poll(shorter)
    assert thread.fold is not None
    assert thread.fold.reader.info.steps == 0


def test_since_leaves_out_old_threads_and_live_follows_the_clock(tmp_path: Path) -> None:
    old, new, _ = copy_real(tmp_path)
    os.utime(old, (1_000_000, 1_000_000))
    os.utime(new, (2_000_000, 2_000_000))
    index = SessionsIndex(LocalSessionFiles(tmp_path), since=3600, clock=lambda: 2_000_100)
    view = index.poll()
    assert str(old) not in {s.path for s in view.threads}
    assert {s.path: s.live for s in view.threads}[str(new)] is True


def test_a_thread_in_two_files_is_shown_once_from_the_newest(tmp_path: Path) -> None:
    path = copy_real(tmp_path)[0]
    copy = path.parent.parent / "29" / path.name
    copy.parent.mkdir()
    copy.write_text(path.read_text())
    os.utime(path, (1_000_000, 1_000_000))
    view = SessionsIndex(LocalSessionFiles(tmp_path)).poll()
    rows = [s for s in view.threads if s.path in (str(path), str(copy))]
    assert [s.path for s in rows] == [str(copy)]


def test_a_missing_tree_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    view = SessionsIndex(LocalSessionFiles(tmp_path / "nope")).poll()
    assert not view.up
    assert "cannot list" in (view.problem or "")


def test_broken_lines_are_counted(tmp_path: Path) -> None:
    path = copy_real(tmp_path)[2]  # 0.150, read whole
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(5, "{not json\n")
    path.write_text("".join(lines))
    summary = _row(SessionsIndex(LocalSessionFiles(tmp_path)).poll(), path)
    assert summary.bad_lines == 1


@pytest.mark.parametrize("since", [None, 10.0])
def test_the_json_line_has_the_documented_keys(tmp_path: Path, since: float | None) -> None:
    copy_real(tmp_path)
    summary = SessionsIndex(LocalSessionFiles(tmp_path), since=since).poll().threads
    data = json.loads(json.dumps(summary[0].as_json())) if summary else {}
    if since is None:
        assert set(data) >= {"thread", "cwd", "cli_version", "environments", "incidents", "live"}
        assert set(data["environments"]) == {"starting", "ready", "unavailable"}


def test_file_info_name_is_the_last_part() -> None:
    assert FileInfo("/a/b/rollout-x.jsonl", 0, 0.0).name == "rollout-x.jsonl"


def test_a_link_out_of_the_tree_is_skipped_and_counted(tmp_path: Path) -> None:
    tree, inside = tree_with_links_out(tmp_path)
    view = SessionsIndex(LocalSessionFiles(tree)).poll()
    assert {s.thread_id for s in view.threads} == {read_rollout(inside).thread_id}
    assert thread_id(999) not in {s.thread_id for s in view.threads}
    folder = inside.parent
    assert sorted(view.outside) == sorted(
        [str(folder / f"rollout-2026-11-30T10-00-01-{thread_id(5)}.jsonl"), str(folder / "2026")]
    )
    listed = {info.name for info in LocalSessionFiles(tree).listing()}
    assert listed == {inside.name, f"rollout-2026-11-30T10-00-02-{thread_id(6)}.jsonl"}


def test_json_says_which_links_out_of_the_tree_were_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree, _ = tree_with_links_out(tmp_path)
    code, out, err = run_cli(["sessions", str(tree), "--json"], capsys)
    assert code == 0
    assert len(out.splitlines()) == 1
    assert thread_id(999) not in out
    assert "envtui sessions: 2 link(s) out of the tree skipped (not read): " in err


def test_a_quiet_file_written_again_is_seen_within_its_turns(tmp_path: Path) -> None:
    """A file not written for a while is stat'ed once in cold_turns listings: a poll over a
    quiet tree does not look at every file, and a write to one is still seen."""
    paths = copy_real(tmp_path)
    for path in paths:
        os.utime(path, (1_000_000, 1_000_000))
    index = SessionsIndex(LocalSessionFiles(tmp_path, cold_turns=4))
    index.poll()
    target = paths[2]
    with target.open("a") as out:
        out.write(target.read_text().splitlines(keepends=True)[-1])
    os.utime(target, (1_000_100, 1_000_100))
    seen = (
        [target_id in index.poll().changed for _ in range(4)]
        if (target_id := read_rollout(target).thread_id)
        else []
    )
    assert seen.count(True) == 1
    assert index.poll().changed == set()


def _cut_after_compaction(tree: Path, source: Path) -> Path:
    """The real 0.150 rollout as it stood when its compaction was the last thing written
    (the turn that compacted, complete; the full context of the next turn not yet)."""
    lines = source.read_text().splitlines(keepends=True)
    compacted = next(i for i, x in enumerate(lines) if '"type":"compacted"' in x)
    end = next(i for i in range(compacted, len(lines)) if '"task_complete"' in lines[i]) + 1
    path = day_folder(tree) / source.name
    path.write_text("".join(lines[:end]))
    return path


def test_a_thread_whose_last_item_is_a_compaction_shows_the_state_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _cut_after_compaction(tmp_path, SOURCE_0150)
    before = read_rollout(path).steps[-1]  # the latest step, before the compaction
    expected = {i: s.status for i, s in recorded_statuses(before.section, 0).items()}
    assert expected == {"local": "ready"}
    summary = _row(SessionsIndex(LocalSessionFiles(tmp_path)).poll(), path)
    assert {i: e.status for i, e in summary.environments.items()} == expected
    assert (summary.primary, summary.environments_known) == ("local", True)
    code, out, _ = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    row = json.loads(out)
    assert (code, row["environments"], row["primary"]) == (0, _counts(ready=1), "local")
    assert row["environments_known"] is True


def test_two_environments_and_a_remote_primary_survive_a_compaction_last(tmp_path: Path) -> None:
    """The real 0.150 rollout cut at its compaction, its world state naming a second,
    remote environment that is the primary: two ready, the remote primary."""
    path = _cut_after_compaction(tmp_path, SOURCE_0150)
    lines = path.read_text().splitlines(keepends=True)
    for number, line in enumerate(lines):
        item = json.loads(line)
        if item["type"] == "world_state" and item["payload"]["full"]:
            envs = item["payload"]["state"]["environments"]["environments"]
            envs["build"] = {"cwd": "/srv", "status": "available", "shell": "bash"}
            envs["build"]["is_primary"] = True
            lines[number] = json.dumps(item, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    summary = _row(SessionsIndex(LocalSessionFiles(tmp_path)).poll(), path)
    assert (summary.count("ready"), summary.primary) == (2, "build")


def test_a_fork_read_without_its_parent_says_its_environments_are_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(FORK_0171, day_folder(tmp_path) / FORK_0171.name)
    summary = SessionsIndex(LocalSessionFiles(tmp_path)).poll().threads[0]
    assert summary.environments_known is False
    assert summary.primary is None
    code, out, _ = run_cli(["sessions", str(tmp_path), "--json"], capsys)
    row = json.loads(out)
    assert (code, row["environments_known"], row["environments"]) == (0, False, None)
    # with its parent beside it, the same fork's state is known
    shutil.copy(SOURCE_0171, day_folder(tmp_path) / SOURCE_0171.name)
    rows = SessionsIndex(LocalSessionFiles(tmp_path)).poll().threads
    fork = next(s for s in rows if s.path.endswith(FORK_0171.name))
    assert fork.environments_known is True
    assert fork.count("ready") == 1


def _counts(*, ready: int = 0, starting: int = 0, unavailable: int = 0) -> dict[str, int]:
    return {"starting": starting, "ready": ready, "unavailable": unavailable}


def test_a_quiet_tree_costs_a_share_of_its_files_a_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60 quiet files, 10 turns: a listing stats about 6 of them and reports no change; a
    file written now is stat'ed at every listing, until it too is quiet."""
    paths = [grown(tmp_path, number, 1) for number in range(60)]
    for path in paths:
        os.utime(path, (1_000_000, 1_000_000))
    files = LocalSessionFiles(tmp_path, cold_turns=10)
    assert len(files.changes()[1]) == 60  # the first time: every file
    stats: list[str] = []
    real = tree_listing.stat_info

    def counted(path: str) -> FileInfo:
        stats.append(path)
        return real(path)

    monkeypatch.setattr(tree_listing, "stat_info", counted)
    for _ in range(10):
        assert files.changes()[1] == set()
    assert sorted(stats) == sorted(str(p) for p in paths)  # each once in 10 listings
    os.utime(paths[0], None)  # written now
    stats.clear()
    seen = [str(paths[0]) in files.changes()[1] for _ in range(10)]
    assert seen.count(True) == 1
    # hot once seen: looked at at every listing after that one
    assert stats.count(str(paths[0])) == 10 - seen.index(True)
