"""The daemon's threads listed in envtui (``T``) and one opened in a dashboard of its own,
on the real Codex 0.171 app-server daemon (offline).

Two clients of the daemon, as two Codex TUIs would be, each run a thread: the first ends
its turn, the second waits on an approval. envtui, attached to the daemon, lists both (the
waiting one first and marked); the waiting one, chosen, opens with its request, its status
and its own steps, and is declined from there. What Codex did is read from the rollout.

The daemon stopped under the open list: the list says the source is unavailable, why, and
that it reconnects; served again, envtui attaches by itself and the thread a reconnected
client runs is listed.
"""

from __future__ import annotations

import shutil

import pytest

from tests.support.real.codex_approvals import escalated
from tests.support.real.codex_daemon import Owner, daemon_home, serve_daemon, short_root
from tests.support.real.codex_tools import needs_codex
from tests.support.waiting import pilot_wait_until

from envtui.environments.backoff import Backoff
from envtui.environments.daemon.address import DaemonAddress
from envtui.sources.daemon.attach import DaemonOptions, DaemonSource
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.needs_you.confirm import ConfirmAnswer
from envtui.tui.sessions.sessions_screen import ThreadScreen
from envtui.tui.thread_list import WAITING_MARK, ThreadListScreen

pytestmark = [needs_codex, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


async def test_the_threads_are_listed_and_the_waiting_one_opens_with_its_request() -> None:
    gate = short_root() / "first-may-answer"
    first_answer = {"message": "first done", "hold": str(gate)}  # held: asked first, ends last
    script = [first_answer, escalated("echo from-second", "devbox"), {"message": "ok"}]
    with daemon_home(script) as daemon:
        first, second = await Owner.connect(daemon.socket), await Owner.connect(daemon.socket)
        source = DaemonSource(DaemonOptions(address=DaemonAddress(path=daemon.socket)))
        options = DashboardOptions(source_name="codex daemon", answers=source, threads=source)
        app = EnvTuiApp(source, options)
        try:
            async with app.run_test(size=(160, 50)) as pilot:
                await pilot_wait_until(
                    pilot, lambda: source.unavailable() is None, what="attached and listed"
                )
                one = await first.start_turn(daemon.codex.work, "one")

                def status_of(thread: str) -> str | None:
                    found = [c for c in source.thread_choices() if c.id == thread]
                    return found[0].status if found else None

                def asked() -> int:
                    return sum(isinstance(body, dict) for body in daemon.codex.requests())

                await pilot_wait_until(
                    pilot, lambda: asked() == 1, timeout=90, what="the first turn asking"
                )
                await pilot_wait_until(  # the first loaded thread of work, before another
                    pilot, lambda: source.followed == one, what="the first thread followed"
                )
                two = await second.start_turn(daemon.codex.work, "two")
                await pilot_wait_until(
                    pilot,
                    lambda: status_of(two) == "waiting_on_approval",
                    timeout=90,
                    what="the second thread waiting",
                )
                gate.touch()
                await pilot_wait_until(
                    pilot, lambda: status_of(one) == "idle", timeout=90, what="the first turn"
                )
                await pilot.press("T")
                await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadListScreen))
                listing = app.screen
                assert isinstance(listing, ThreadListScreen)
                await pilot_wait_until(
                    pilot, lambda: listing.table.row_count == 2, what="both threads listed"
                )
                rows = [listing.table.get_row_at(i) for i in range(2)]
                assert [(r[0], r[1], r[3]) for r in rows] == [
                    (WAITING_MARK, two, "waiting on approval"),
                    ("\N{BLACK CIRCLE}", one, "idle"),  # the thread the main dashboard follows
                ]
                assert str(daemon.codex.work) in rows[0][4]
                await pilot.press("enter")  # the cursor is on the first row: the waiting one
                await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadScreen))
                opened = app.screen
                assert isinstance(opened, ThreadScreen)
                store = opened.store
                await pilot_wait_until(
                    pilot,
                    lambda: (
                        bool(store.needs_you.unanswered())
                        and bool(store.steps)
                        and {"local", "devbox"} <= set(store.environments)
                    ),
                    timeout=60,
                    what="the opened thread's request, its steps and its environments",
                )
                assert store.primary == "local"
                (request,) = store.needs_you.unanswered()
                assert (request.msg.thread, request.msg.environment_id) == (two, "devbox")
                assert store.needs_you.status == "waiting_on_approval"
                assert {s.thread for s in store.steps} == {two}
                await pilot.press("x")
                await pilot_wait_until(
                    pilot, lambda: isinstance(app.screen, ConfirmAnswer) and app.screen.armed
                )
                await pilot.press("y")
                await pilot_wait_until(
                    pilot, lambda: bool(second.resolved), timeout=30, what="declined through"
                )
                await pilot_wait_until(pilot, lambda: not store.needs_you.pending, timeout=30)
                await pilot.press("escape")
                await pilot_wait_until(pilot, lambda: app.screen is listing, what="the list")
                await pilot.press("escape")
                await pilot_wait_until(pilot, lambda: app.screen is app.main_screen)
                await pilot.press("q")
        finally:
            await first.aclose()
            await second.aclose()
        assert not [r for r in first.requests]  # the first thread never asked anything
        shutil.rmtree(gate.parent, ignore_errors=True)


async def test_the_list_says_the_daemon_away_and_lists_again_once_it_is_back() -> None:
    with daemon_home([{"message": "one"}, {"message": "two"}]) as daemon:
        owner = await Owner.connect(daemon.socket)
        source = DaemonSource(
            DaemonOptions(address=DaemonAddress(path=daemon.socket)), restart=Backoff(0.5, 2.0)
        )
        options = DashboardOptions(source_name="codex daemon", answers=source, threads=source)
        app = EnvTuiApp(source, options)
        try:
            async with app.run_test(size=(200, 50)) as pilot:
                await pilot_wait_until(pilot, lambda: source.unavailable() is None, timeout=60)
                first = await owner.start_turn(daemon.codex.work, "one")
                await pilot.press("T")
                await pilot_wait_until(pilot, lambda: isinstance(app.screen, ThreadListScreen))
                listing = app.screen
                assert isinstance(listing, ThreadListScreen)

                def header() -> str:
                    return str(listing.query_one("#threads-header").render())

                def rows() -> list[str]:
                    table = listing.table
                    return [str(table.get_row_at(i)[1]) for i in range(table.row_count)]

                await pilot_wait_until(pilot, lambda: rows() == [first], timeout=60)
                await owner.aclose()
                daemon.stop()
                await pilot_wait_until(
                    pilot, lambda: "source unavailable" in header(), timeout=30, what="said away"
                )
                assert rows() == []
                assert "daemon" in header()
                assert "reconnecting by itself" in header()
                daemon.process = serve_daemon(daemon.codex).process
                await pilot_wait_until(
                    pilot, lambda: "unavailable" not in header(), timeout=60, what="attached"
                )
                owner = await Owner.connect(daemon.socket)
                second = await owner.start_turn(daemon.codex.work, "two")
                await pilot_wait_until(
                    pilot, lambda: second in rows(), timeout=60, what="listed again"
                )
                assert source.restarts >= 1
                await pilot.press("escape")
                await pilot.press("q")
        finally:
            await owner.aclose()
