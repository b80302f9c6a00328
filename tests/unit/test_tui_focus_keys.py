"""Focus and keys a person can follow: the focused panel is marked in its title, a digit
goes to each panel (and its tab when narrow), ``G`` goes live from any panel, a panel's key
changes only that panel, and what a panel asks for is a message the screen handles."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TypeVar

import pytest
from textual.message import Message
from textual.widgets import TabbedContent

from tests.support.scenarios.dashboard_pilot import settled
from tests.support.scenarios.scripted_stream import clock, scripted_source
from tests.support.screen_text import screen_lines
from tests.support.waiting import pilot_wait_until

from envtui.sources.rollout_follow import follow_rollout
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.incidents_view import IncidentList
from envtui.tui.log_widget import EventLog
from envtui.tui.main_screen import MainScreen
from envtui.tui.screens import TextScreen
from envtui.tui.widgets import FOCUS_MARK, ContextPanel, EnvironmentTable, ToolsPanel

M = TypeVar("M", bound=Message)

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def make_app() -> EnvTuiApp:
    return EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock))


def main(app: EnvTuiApp) -> MainScreen:
    assert isinstance(app.screen, MainScreen)
    return app.screen


def of_type(posted: list[Message], kind: type[M]) -> list[M]:
    """The messages of ``kind``, each once (the hook sees a message at every node it
    bubbles through)."""
    return list(dict.fromkeys(m for m in posted if isinstance(m, kind)))


def header(app: EnvTuiApp) -> str:
    return str(main(app).widgets.header.render())


async def test_keys_post_the_panels_intents_and_the_screen_acts_on_them() -> None:
    posted: list[Message] = []
    app = make_app()
    async with app.run_test(size=(140, 44), message_hook=posted.append) as pilot:
        await settled(app, pilot)
        incidents = main(app).widgets.findings
        await pilot.press("5")
        assert incidents.has_focus
        number = incidents.selected_number()
        assert number is not None
        await pilot.press("a")
        acks = of_type(posted, IncidentList.Acknowledge)
        assert [m.number for m in acks] == [number]
        await pilot_wait_until(
            pilot,
            lambda: getattr(app.store.incidents.find(number), "state", None) == "acknowledged",
            what="ack",
        )
        await pilot.press("enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="history")
        assert [m.number for m in of_type(posted, IncidentList.Details)] == [number]
        await pilot.press("escape")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, MainScreen), what="back")
        await pilot.press("1")
        selected = main(app).widgets.table.selected_id()
        assert selected is not None
        await pilot.press("enter")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="details")
        asked = [m.env_id for m in of_type(posted, EnvironmentTable.Details)]
        assert asked == [selected]
        assert isinstance(app.screen, TextScreen)
        assert app.screen.title_text == f"environment · {selected}"


async def test_g_goes_live_from_the_focused_log_too() -> None:
    posted: list[Message] = []
    app = make_app()
    async with app.run_test(size=(140, 44), message_hook=posted.append) as pilot:
        await settled(app, pilot)
        await pilot.press("2", "left_square_bracket")
        assert main(app).widgets.log.has_focus
        assert "step 1 of 2 · not live" in header(app)
        await pilot.press("G")
        assert any(isinstance(m, EventLog.GoLive) for m in posted)
        await pilot_wait_until(pilot, lambda: main(app).step_number is None, what="live")
        assert "not live" not in header(app)
        assert main(app).widgets.log.following


async def test_a_digit_goes_to_each_panel_and_only_the_focused_title_is_marked() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        w = main(app).widgets
        panels = [w.table, w.log, w.context, w.tools, w.findings]
        for digit, panel in enumerate(panels, start=1):
            await pilot.press(str(digit))
            assert panel.has_focus
            marked = [p for p in panels if str(p.border_title).startswith(FOCUS_MARK)]
            assert marked == [panel]


async def test_at_80_columns_a_digit_shows_the_panels_tab() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        tabs = app.screen.query_one(TabbedContent)
        for digit, tab, panel in (
            ("5", "tab-findings", IncidentList),
            ("4", "tab-tools", ToolsPanel),
            ("3", "tab-context", ContextPanel),
            ("2", "tab-events", EventLog),
        ):
            await pilot.press(digit)
            assert tabs.active == tab
            assert isinstance(app.screen.focused, panel)
        await pilot.press("1")
        assert main(app).widgets.table.has_focus


async def test_a_key_typed_for_one_panel_changes_no_setting_of_another() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        w = main(app).widgets
        before = (w.table.sort_key, w.table.sort_reverse, w.context.view, w.findings.show_resolved)
        active = len(app.store.incidents.active())
        await pilot.press("2", "s", "S", "d", "R", "a")  # in the log: none of them its own
        await pilot.press("1", "d", "R", "a")  # in the table: neither
        await pilot.press("3", "s", "S", "R", "a")  # in the context: neither
        await pilot.pause()
        after = (w.table.sort_key, w.table.sort_reverse, w.context.view, w.findings.show_resolved)
        assert after == before
        assert len(app.store.incidents.active()) == active
        await pilot.press("d")  # the context's own key, in the context
        assert w.context.view == "diff"


async def test_while_the_context_shows_a_past_step_the_table_says_it_is_live() -> None:
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        table = main(app).widgets.table
        await pilot.press("left_square_bracket")
        assert table.border_title == f"{FOCUS_MARK}environments · live (context: step 1)"
        await pilot.press("G")
        assert table.border_title == f"{FOCUS_MARK}environments"


async def test_at_80_columns_a_rollouts_header_keeps_not_live(tmp_path: Path) -> None:
    from tests.unit.test_rollout_view import _rollout

    rollout = _rollout(tmp_path)
    long_name = rollout.with_name("rollout-2026-11-30T12-00-00-" + "f" * 36 + ".jsonl")
    rollout.rename(long_name)
    source = functools.partial(follow_rollout, long_name)
    app = EnvTuiApp(source, DashboardOptions(source_name=f"rollout {long_name.name}"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot_wait_until(pilot, lambda: len(app.store.steps) == 3, what="three steps")
        await pilot.press("left_square_bracket")
        await pilot_wait_until(pilot, lambda: "not live" in screen_lines(app)[0], what="header")
        assert "step 2 of 3 · not live · G: live" in screen_lines(app)[0]
        table = main(app).widgets.table
        assert "as recorded at step 3, not live (context: step 2)" in str(table.border_title)
