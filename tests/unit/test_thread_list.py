"""The thread list (``T``) on a scripted list of threads: its rows, kept by thread id, and the
chosen thread opened in a dashboard fed by the source the list hands back."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from tests.support.screens_shown import screen_shown
from tests.support.waiting import pilot_wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.sessions.sessions_screen import ThreadScreen
from envtui.tui.thread_list import WAITING_MARK, ThreadListScreen
from envtui.vocabulary.events import EventSink, Source, thread_event
from envtui.vocabulary.thread_choices import ThreadChoice, ThreadsUnavailable
from envtui.vocabulary.thread_messages import ThreadStatusChanged

pytestmark = pytest.mark.tui
FOLLOWED = "\N{BLACK CIRCLE}"


class Threads:
    """Two threads; :meth:`open_thread` says the thread's status once, then waits."""

    def __init__(self) -> None:
        self.choices = [
            ThreadChoice(id="t-a", status="idle", name="fix \x1b[31mit", cwd="/w", loaded=True,
                         followed=True),
            ThreadChoice(id="t-b", status="active", name="other", cwd="/v", loaded=True),
        ]  # fmt: skip
        self.opened: list[str] = []
        self.stopped: list[str] = []
        self.away: ThreadsUnavailable | None = None

    def thread_choices(self) -> list[ThreadChoice]:
        return [] if self.away else sorted(self.choices, key=lambda c: not c.waiting)

    def unavailable(self) -> ThreadsUnavailable | None:
        return self.away

    def open_thread(self, thread_id: str) -> Source:
        async def source(sink: EventSink, stop: asyncio.Event) -> None:
            self.opened.append(thread_id)
            status = ThreadStatusChanged(thread=thread_id, status="waiting_on_approval")
            sink(thread_event(status))
            await stop.wait()
            self.stopped.append(thread_id)

        return source


def _cells(screen: ThreadListScreen) -> list[tuple[str, ...]]:
    table = screen.table
    return [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def test_the_threads_are_listed_and_one_that_starts_waiting_is_marked_in_place() -> None:
    threads = Threads()
    app = EnvTuiApp(None, DashboardOptions(source_name="codex daemon", threads=threads))
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press("T")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadListScreen))
        screen = app.screen
        assert isinstance(screen, ThreadListScreen)
        await pilot_wait_until(pilot, lambda: screen.table.row_count == 2)
        assert _cells(screen)[0] == (FOLLOWED, "t-a", "fix \\x1b[31mit", "idle", "/w", "")
        threads.choices[1] = replace(threads.choices[1], status="waiting_on_approval")
        await pilot_wait_until(
            pilot,
            lambda: [r[:2] for r in _cells(screen)] == [(FOLLOWED, "t-a"), (WAITING_MARK, "t-b")],
            what="t-b marked waiting, in its place (the rows stay where the cursor is)",
        )
        header = str(screen.query_one("#threads-header").render())
        assert f"{WAITING_MARK} 1 waiting on you" in header


async def test_a_source_away_is_said_with_its_reason_and_the_threads_come_back_with_it() -> None:
    threads = Threads()
    app = EnvTuiApp(None, DashboardOptions(source_name="codex daemon", threads=threads))
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.press("T")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadListScreen))
        screen = app.screen
        assert isinstance(screen, ThreadListScreen)

        def header() -> str:
            return str(screen.query_one("#threads-header").render())

        await pilot_wait_until(pilot, lambda: screen.table.row_count == 2)
        assert "unavailable" not in header()
        threads.away = ThreadsUnavailable("the daemon went \x1b[2Jaway", retry_in=2.4, restarts=3)
        await pilot_wait_until(pilot, lambda: screen.table.row_count == 0, what="rows gone")
        assert "0 threads" not in header()  # never "no threads" while they cannot be known
        assert "source unavailable: the daemon went \\x1b[2Jaway" in header()
        assert "reconnecting by itself (next try in 2 s, tried 3 times)" in header()
        threads.away = ThreadsUnavailable("refused", retry_in=0, restarts=4)
        await pilot_wait_until(pilot, lambda: "(trying now, tried 4 times)" in header())
        threads.away = None
        await pilot_wait_until(pilot, lambda: screen.table.row_count == 2, what="listed again")
        assert "unavailable" not in header()
        assert "2 threads" in header()


async def test_before_the_first_attach_the_list_says_it_is_attaching() -> None:
    threads = Threads()
    threads.away = ThreadsUnavailable("attaching to the codex app-server daemon")
    app = EnvTuiApp(None, DashboardOptions(source_name="codex daemon", threads=threads))
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.press("T")
        screen = await screen_shown(app, pilot, ThreadListScreen)

        def header() -> str:
            return str(screen.query_one("#threads-header").render())

        await pilot_wait_until(
            pilot, lambda: "attaching to the codex app-server daemon" in header(), what="said"
        )
        text = header()
        assert "threads" not in text.split("·  ")[0]


async def test_enter_opens_the_thread_and_esc_comes_back_and_stops_it() -> None:
    threads = Threads()
    app = EnvTuiApp(None, DashboardOptions(source_name="codex daemon", threads=threads))
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press("T")
        listing = await screen_shown(app, pilot, ThreadListScreen)
        # the rows are listed, and the keys go to them
        await pilot_wait_until(
            pilot,
            lambda: listing.table.row_count == 2 and listing.focused is listing.table,
            what="the two threads listed",
        )
        await pilot.press("down", "enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadScreen))
        opened = app.screen
        assert isinstance(opened, ThreadScreen)
        await pilot_wait_until(pilot, lambda: opened.store.needs_you.status is not None)
        assert threads.opened == ["t-b"]
        assert opened.store.needs_you.status == "waiting_on_approval"
        assert opened.options.threads is None  # no list inside a thread
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: app.screen is listing)
        await pilot_wait_until(pilot, lambda: threads.stopped == ["t-b"], what="its source ended")


async def test_without_threads_the_key_does_nothing() -> None:
    app = EnvTuiApp(None, DashboardOptions(source_name="demo"))
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press("T")
        await pilot.pause()
        assert app.screen is app.main_screen
