"""What a host's daemon lists beyond its loaded threads' status: every thread's name and
preview in its row, and a row of its own for a loaded thread whose rollout was not read.

The same with real daemons: tests/integration/test_fleet_daemon_rows.py.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support.data.session_trees import copy_real

from envtui.environments.daemon.threads import DaemonThread
from envtui.incidents.fleet_rows import (
    PREVIEW_CHARS,
    HostFreshness,
    ThreadFacts,
    ThreadLive,
    live_changes,
    row_json,
)
from envtui.sources.sessions.fleet import Fleet, SessionsHost
from envtui.sources.sessions.host_daemon import (
    READS_PER_THREAD,
    DaemonReport,
    HostDaemon,
    facts_of,
)
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex
from envtui.tui.sessions.sessions_format import details_text, host_values, session_values

IDLE = {"type": "idle"}
LOADED = "01a24dac-d87b-7250-a692-7764abd91600"
UPDATED = datetime(2026, 12, 6, 23, 25, 3, tzinfo=UTC)


def _host(name: str, root: Path, *, since: float | None = None) -> SessionsHost:
    files = LocalSessionFiles(root)
    return SessionsHost(name, files, SessionsIndex(files, host=name, since=since))


def test_a_thread_only_on_disk_takes_the_name_or_preview_its_daemon_lists(
    tmp_path: Path,
) -> None:
    copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a")])
    first, named = fleet.poll().threads[:2]
    preview = "fix the \x1b[31mflaky[/] build\nplease"
    facts = {
        first.thread_id: ThreadFacts(preview=preview),
        named.thread_id: ThreadFacts(name="release", preview="the first words"),
    }
    fleet.set_daemon("a", DaemonReport("attached", live={}, facts=facts))
    view = fleet.poll()
    (host,) = view.hosts
    line = row_json(first, host)
    assert (line["state"], line["name"], line["preview"]) == ("not loaded", preview, preview)
    assert row_json(named, host)["name"] == "release"  # a name before the preview
    cell = host_values(first, line["state"], line["name"])["name"]
    assert cell == "fix the \\x1b[31mflaky[/] build please"  # one line, escapes shown
    files_only = HostFreshness("a", live=None)
    assert (row_json(first, files_only)["name"], row_json(first, files_only)["preview"]) == (
        None,
        None,
    )  # a host without a daemon: what the files give


def test_a_long_preview_is_kept_cut_and_the_daemons_facts_of_a_thread_read() -> None:
    thread = DaemonThread(LOADED)
    thread.take(
        {
            "id": LOADED,
            "preview": "x" * 10_000,
            "cwd": "/w",
            "path": "/h/sessions/rollout.jsonl",
            "updatedAt": int(UPDATED.timestamp()),
            "createdAt": int(UPDATED.timestamp()) - 60,
            "cliVersion": "0.171.0",
            "parentThreadId": "p",
            "source": "vscode",
            "status": IDLE,
        }
    )
    facts = facts_of(thread)
    assert facts.preview is not None
    assert len(facts.preview) == PREVIEW_CHARS
    assert facts.preview.endswith("…")
    assert facts.started == UPDATED - timedelta(seconds=60)
    assert (facts.cwd, facts.updated, facts.cli_version, facts.parent, facts.source) == (
        "/w",
        UPDATED,
        "0.171.0",
        "p",
        "vscode",
    )


def test_a_loaded_thread_outside_since_has_a_row_from_its_daemon_until_it_unloads(
    tmp_path: Path,
) -> None:
    for path in copy_real(tmp_path / "a"):  # written a day ago: all outside --since
        os.utime(path, (UPDATED.timestamp() - 86_400,) * 2)
    fleet = Fleet([_host("a", tmp_path / "a", since=60.0)])
    assert fleet.poll().threads == []
    facts = ThreadFacts(
        preview="go", cwd="/w", path="/h/r.jsonl", updated=UPDATED, cli_version="0.171.0"
    )
    report = DaemonReport("attached", live={LOADED: ThreadLive(IDLE)}, facts={LOADED: facts})
    fleet.set_daemon("a", report)
    view = fleet.poll()
    (row,) = view.threads
    assert view.changed == {f"a/{LOADED}"}
    assert (row.host, row.thread_id, row.cwd, row.last_written, row.cli_version) == (
        "a",
        LOADED,
        "/w",
        UPDATED,
        "0.171.0",
    )
    assert not row.rollout_read
    assert not row.environments_known
    line = row_json(row, view.hosts[0])
    assert (line["state"], line["status"], line["name"], line["rollout_read"]) == (
        "idle",
        IDLE,
        "go",
        False,
    )
    shown = session_values(row, UPDATED)
    assert (shown["environments"], shown["incidents"], shown["steps"]) == (
        "? unknown",
        "? rollout not read",
        "-",
    )
    assert "its rollout not read" in details_text(row)
    again = fleet.poll()
    assert again.changed == set()
    assert len(again.threads) == 1
    fleet.set_daemon("a", DaemonReport("attached", live={}, facts={LOADED: facts}))
    gone = fleet.poll()
    assert gone.threads == []
    assert gone.gone == {f"a/{LOADED}"}


def test_a_loaded_thread_whose_rollout_is_read_has_one_row_its_files(tmp_path: Path) -> None:
    copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a")])
    rows = fleet.poll().threads
    held = rows[0].thread_id
    fleet.set_daemon("a", DaemonReport("attached", live={held: ThreadLive(IDLE)}, facts={}))
    view = fleet.poll()
    assert len(view.threads) == len(rows)
    assert all(row.rollout_read for row in view.threads)


def test_facts_that_did_not_change_are_no_news_and_those_that_did_redraw_their_row() -> None:
    reports: list[DaemonReport] = []
    daemon = HostDaemon("box", None, lambda _, r: reports.append(r))  # type: ignore[arg-type]

    client = SimpleNamespace(threads={LOADED: DaemonThread(LOADED, path="/r", preview="go")})
    listed = daemon._listed(client)  # type: ignore[arg-type]
    daemon._facts_stale = True  # a thread said something that is not in its facts
    assert daemon._listed(client) is listed  # type: ignore[arg-type]
    before = [HostFreshness("box", live={}, facts=listed)]
    same = [HostFreshness("box", live={}, facts=listed)]
    assert live_changes(before, same, [f"box/{LOADED}"]) == set()
    renamed = {LOADED: ThreadFacts(name="release", path="/r", preview="go")}
    after = [HostFreshness("box", live={}, facts=renamed)]
    assert live_changes(before, after, [f"box/{LOADED}", "box/other"]) == {f"box/{LOADED}"}


def test_a_loaded_threads_row_stays_when_its_rollout_goes_in_the_same_poll(tmp_path: Path) -> None:
    copy_real(tmp_path / "a")
    fleet = Fleet([_host("a", tmp_path / "a")])
    first = fleet.poll().threads[0]
    facts = {first.thread_id: ThreadFacts(preview="still here")}
    fleet.set_daemon(
        "a", DaemonReport("attached", live={first.thread_id: ThreadLive(IDLE)}, facts=facts)
    )
    fleet.poll()
    Path(first.path).unlink()  # the file row goes; the daemon still holds the thread
    view = fleet.poll()
    assert first.key in view.changed
    assert first.key not in view.gone  # a table that drops the gone after the changed keeps it
    (row,) = [t for t in view.threads if t.key == first.key]
    assert not row.rollout_read
    again = fleet.poll()
    assert first.key not in again.gone
    assert [t.key for t in again.threads if t.key == first.key] == [first.key]


def test_a_status_change_makes_one_threads_facts_again_not_all_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import envtui.sources.sessions.host_daemon as host_daemon

    daemon = HostDaemon("box", None, lambda _, r: None)  # type: ignore[arg-type]
    threads = {
        f"t{n}": DaemonThread(f"t{n}", path=f"/r{n}", preview=f"go {n}", loaded=True)
        for n in range(50)
    }
    client = SimpleNamespace(threads=threads)
    listed = daemon._listed(client)  # type: ignore[arg-type]
    made: list[int] = []
    every = host_daemon.thread_facts

    def counted(client: object) -> object:
        made.append(1)
        return every(client)  # type: ignore[arg-type]

    monkeypatch.setattr(host_daemon, "thread_facts", counted)
    threads["t7"].name = "release"
    daemon._changed(threads["t7"])
    after = daemon._listed(client)  # type: ignore[arg-type]
    assert made == []  # not every thread's facts made again
    assert after is not listed  # a new map: the old report's is never changed in place
    assert after["t7"].name == "release"
    assert all(after[k] is listed[k] for k in listed if k != "t7")


async def test_a_thread_without_first_words_is_read_three_times_at_most_while_it_rests() -> None:
    """Read as each of its turns starts (Codex may not have kept the words yet: not counted)
    and ends (counted, as a read when it is new is); after the third counted, never again."""
    reads: list[str] = []

    class Reader:
        async def read(self, thread_id: str) -> None:
            reads.append(thread_id)

    daemon = HostDaemon("box", None, lambda _, r: None)  # type: ignore[arg-type]
    client = Reader()
    daemon.client = client  # type: ignore[assignment]
    daemon.state = "attached"
    thread = DaemonThread("img", path="/r", loaded=True)  # its first message: an image alone
    for status in ["active", "idle"] * 5:
        thread.set_status(
            {"type": status, "activeFlags": []} if status == "active" else {"type": status}
        )
        daemon._read_preview(thread)
        daemon._read_preview(thread)  # the same status said again: not read again
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    assert reads == ["img"] * 2 * READS_PER_THREAD
