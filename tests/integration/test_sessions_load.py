"""Correctness under load: the sessions view over 10,000 threads shows the right rows after
appends and new files (Pilot), each row as a fresh index of the same tree says."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from tests.support.data.session_trees import many_threads, next_turn_0150, thread_id
from tests.support.waiting import pilot_wait_until

from envtui.incidents.thread_summary import ThreadSummary
from envtui.sources.session_files import LocalSessionFiles
from envtui.sources.sessions_index import SessionsIndex, SessionsView, watch_sessions
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions_app import SessionsApp
from envtui.tui.sessions_format import TIMED, session_values
from envtui.tui.sessions_table import KEYS, SessionsTable

THREADS = 10_000
INDEXED = 600.0  # seconds the first index may take on a loaded machine (a bound, not a timing)


def _app(root: Path) -> SessionsApp:
    files = LocalSessionFiles(root)
    index = SessionsIndex(files)

    async def watch(show: object, stop: object) -> None:
        await watch_sessions(index, show, stop, poll=0.2)  # type: ignore[arg-type]

    return SessionsApp(watch, lambda s: files.rollout_source(s.path), DashboardOptions())


def _cells(table: SessionsTable, thread: str) -> dict[str, str]:
    return {key: cell.plain for key, cell in zip(KEYS, table.get_row(thread), strict=True)}


def _expected(truth: SessionsView, now: datetime) -> dict[str, dict[str, str]]:
    """Every row as a fresh index of the tree makes it (written: the same clock reading)."""
    rows: dict[str, ThreadSummary] = {t.thread_id: t for t in truth.threads}
    return {thread: session_values(summary, now) for thread, summary in rows.items()}


async def test_ten_thousand_threads_show_the_right_rows_after_appends_and_new_files(
    tmp_path: Path,
) -> None:
    paths = many_threads(tmp_path, THREADS)
    app = _app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.sessions
        table = screen.table
        await pilot_wait_until(
            pilot, lambda: table.row_count == THREADS, timeout=INDEXED, what="10,000 rows"
        )
        appended = [paths[7], paths[4_321], paths[9_999]]
        for path in appended:
            with path.open("a") as out:
                out.write(next_turn_0150())
        added = many_threads(tmp_path, 2, first=THREADS)
        grown = {thread_id(7), thread_id(4_321), thread_id(9_999)}
        await pilot_wait_until(
            pilot,
            lambda: (
                table.row_count == THREADS + 2 and all(screen.threads[t].steps == 2 for t in grown)
            ),
            timeout=120,
            what="the appends and the new files",
        )
        await pilot.pause(1.5)  # a tick of the clock: the written column of the rows shown
        now = app.options.clock()
        truth = SessionsIndex(LocalSessionFiles(tmp_path)).poll()
        expected = _expected(truth, now)
        assert len(expected) == THREADS + 2
        shown = {thread: _cells(table, thread) for thread in table.shown_ids()}
        assert shown.keys() == expected.keys()
        # the written column moves with the clock on the rows on screen only
        untimed = [k for k in KEYS if k not in TIMED]
        wrong = [
            t
            for t in expected
            if [shown[t][k] for k in untimed] != [expected[t][k] for k in untimed]
        ]
        assert wrong == []
        on_screen = table.shown_ids()[: table.size.height - 1]
        assert [shown[t] for t in on_screen] == [expected[t] for t in on_screen]
        for thread in grown:
            assert shown[thread]["steps"] == "2"
        # written last, shown first (the table sorts by written, newest first)
        newest = {thread_id(THREADS), thread_id(THREADS + 1), *grown}
        assert set(table.shown_ids()[:5]) == newest
        assert [p.name for p in added] == [
            f"rollout-2026-11-30T15-07-54-{thread_id(n)}.jsonl" for n in (THREADS, THREADS + 1)
        ]
