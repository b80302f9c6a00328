"""Correctness under load: the sessions view over 10,000 threads shows the right rows after
appends and new files (Pilot), each row as a fresh index of the same tree says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.data.session_trees import many_threads, next_turn_0150, thread_id
from tests.support.waiting import pilot_wait_until

from envtui.incidents.sessions_view import SessionsView
from envtui.incidents.thread_summary import ThreadSummary
from envtui.sources.sessions.session_files import LocalSessionFiles
from envtui.sources.sessions.sessions_index import SessionsIndex, watch_sessions
from envtui.tui.options import DashboardOptions
from envtui.tui.sessions.sessions_app import SessionsApp
from envtui.tui.sessions.sessions_format import TIMED, session_values
from envtui.tui.sessions.sessions_table import KEYS, SessionsTable

THREADS = 10_000
INDEXED = 600.0  # seconds the first index may take on a loaded machine (a bound, not a timing)


class _Clock:
    """The app's wall clock, which the test moves: the real time until it is pinned."""

    def __init__(self) -> None:
        self.pinned: datetime | None = None

    def __call__(self) -> datetime:
        return self.pinned or datetime.now(UTC)


def _app(root: Path, clock: _Clock) -> SessionsApp:
    files = LocalSessionFiles(root)
    index = SessionsIndex(files)

    async def watch(show: object, stop: object) -> None:
        await watch_sessions(index, show, stop, poll=0.2)  # type: ignore[arg-type]

    options = DashboardOptions(clock=clock)
    return SessionsApp(watch, lambda s: files.rollout_source(s.path), options)


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
    clock = _Clock()
    app = _app(tmp_path, clock)
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
        # the clock moves five minutes on: the written column of the rows on screen follows
        now = clock.pinned = datetime.now(UTC) + timedelta(minutes=5)
        truth = SessionsIndex(LocalSessionFiles(tmp_path)).poll()
        expected = _expected(truth, now)
        assert len(expected) == THREADS + 2
        on_screen = table.shown_ids()[: table.size.height - 1]
        await pilot_wait_until(
            pilot,
            lambda: [_cells(table, t) for t in on_screen] == [expected[t] for t in on_screen],
            timeout=30,
            what="the clock's tick on the rows shown",
        )
        shown = {thread: _cells(table, thread) for thread in table.shown_ids()}
        assert shown.keys() == expected.keys()
        # every other column is as a fresh index says, on every row
        untimed = [k for k in KEYS if k not in TIMED]
        wrong = [
            t
            for t in expected
            if [shown[t][k] for k in untimed] != [expected[t][k] for k in untimed]
        ]
        assert wrong == []
        assert [shown[t] for t in on_screen] == [expected[t] for t in on_screen]
        for thread in grown:
            assert shown[thread]["steps"] == "2"
        # written last, shown first (the table sorts by written, newest first)
        newest = {thread_id(THREADS), thread_id(THREADS + 1), *grown}
        assert set(table.shown_ids()[:5]) == newest
        assert [p.name for p in added] == [
            f"rollout-2026-11-30T15-07-54-{thread_id(n)}.jsonl" for n in (THREADS, THREADS + 1)
        ]
