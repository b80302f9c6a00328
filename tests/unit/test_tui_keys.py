"""The keys are in sight at every size: the footer keeps the ones that matter at 80
columns, the narrow tabs carry counts, the help groups every key by where it acts and is
as big as its text, and the palette offers every action with its key, sorting, going to an
environment and the themes."""

from __future__ import annotations

from typing import Any

import pytest
from textual.binding import Binding
from textual.command import CommandList
from textual.containers import VerticalScroll

from tests.support.scenarios.dashboard_pilot import run_from_palette, settled
from tests.support.scenarios.scripted_stream import clock, scripted_source
from tests.support.screen_text import screen_lines
from tests.support.waiting import pilot_wait_until

from envtui.tui.actions import PANEL_CLASSES, SCREEN_BINDINGS
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.help_keys import help_sections, sectioned_help
from envtui.tui.history_screen import HistoryScreen
from envtui.tui.keybar import KeyBar
from envtui.tui.screens import TextScreen
from envtui.tui.widgets import EnvironmentTable

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def make_app(**options: Any) -> EnvTuiApp:
    return EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock, **options))


async def test_at_80_columns_the_footer_keeps_the_keys_that_matter() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        lines = screen_lines(app)
        # the digits say how to reach the tabs, and each tab its digit
        assert lines[-1] == (
            " ? All keys  / Filter  p Pause  h History  1-5 Panel/tab  q Quit     ^p palette"
        )
        assert lines[8] == " 2 events  3 context  4 tools  5 incidents 2"  # the tab says 2 active


async def test_at_160_columns_the_footer_has_every_key() -> None:
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(app, pilot)
        assert screen_lines(app)[-1] == (  # ?, the focused table's keys, the screen's
            " ? Help  ⏎ Details  / Filter  s Sort  p Pause  [ Prev step  ] Next step  G Live"
            "  y Copy  e Export  t Theme  h History  1-5 Panel/tab  q Quit         ^p palette"
        )


async def test_the_footer_follows_the_keymap_and_a_click_presses_the_key() -> None:
    app = make_app(keymap={"history": "H"})
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        bar = app.screen.query_one(KeyBar)
        assert "H History" in bar.text()
        assert "h History" not in bar.text()
        column = bar.text().index("H History")
        await pilot.click(KeyBar, offset=(column + 1 + 2, 0))  # the padding, then a letter
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="H")


HELP = """\
Keys, by where they act

Table (environments, when focused)
  /               Filter the rows
  esc             Clear the filter
  s               Sort by the next column
  S               Reverse the sort
  ⏎               Details of the environment

Log (events, when focused)
  /               Search the log
  n               Older match
  N               Newer match
  f               Filter the log (env:ID, type:TYPE, text)
  esc             Clear the search and the filter
  end, G          Follow the newest line, and back to live

Context (when focused)
  d               Full, diff, snapshot, patch

Incidents (when focused)
  a               Acknowledge the incident
  ⏎               Its history; of a fold, each episode
  R               Hide or show the resolved ones

Needs you (while Codex waits, envtui codex)
  o               Approve the marked request once (y confirms, after 0.5 s)
  O               Approve it for the session (where Codex offers it)
  x               Decline it
  r               Answer Codex's questions
  w               Mark the next request

History
  H               Open: every timeline on one axis
  z               Span: whole session, 30, 10, 5 min
  esc, q          Close (also help and details)

Panels (the focused one is marked ▶; narrow: the tabs)
  1               The table
  2               The events
  3               The context
  4               The tools
  5               The incidents

Global
  ?               These keys
  space           Pause or resume the view
  [               Previous step
  ]               Next step
  G, end          Back to live: the latest step
  y               Copy the context text
  e               Export the step as JSON
  t               Pick a theme (the one chosen is kept for the next run)
  T               The daemon's threads; enter opens one (envtui codex)
  q, ctrl+c       Quit
  tab, shift+tab  Next / previous panel (narrow: to the tab bar, then ←/→)
  ctrl+p          Command palette: every action, sort, go to, theme"""


def test_the_help_lists_each_key_once_under_where_it_acts() -> None:
    bindings = [
        b
        for b in (
            *SCREEN_BINDINGS,
            *(b for panel in PANEL_CLASSES for b in panel.BINDINGS),
            *HistoryScreen.BINDINGS,
            *TextScreen.BINDINGS,
            *EnvTuiApp.BINDINGS,
        )
        if isinstance(b, Binding)
    ]
    keymap = {"history": "H", "pause": "space"}
    assert sectioned_help(help_sections(bindings, keymap)) == HELP


async def test_the_help_screen_is_as_wide_as_its_text() -> None:
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(app, pilot)
        await pilot.press("question_mark")
        await pilot_wait_until(pilot, lambda: isinstance(app.screen, TextScreen), what="help")
        screen = app.screen
        assert isinstance(screen, TextScreen)
        assert screen.body == HELP.replace("  H  ", "  h  ").replace("  space  ", "  p      ")
        widest = max(len(line) for line in screen.body.splitlines())
        box = screen.query_one(VerticalScroll)
        await pilot_wait_until(pilot, lambda: box.size.width > 0, what="laid out")
        assert box.outer_size.width == widest + 6  # the border, the padding, a scrollbar
        assert "ctrl+p opens" not in screen.body
        assert "escapes everything" not in screen.body  # the XML note is in the README


def prompts(app: EnvTuiApp) -> list[str]:
    hits = app.screen.query_one(CommandList)
    return [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]


async def test_the_palette_offers_every_action_with_its_key() -> None:
    app = make_app(keymap={"sort": "o"})
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(app, pilot)
        await pilot.press("ctrl+p")
        await pilot_wait_until(pilot, lambda: bool(app.screen.query(CommandList)), what="open")
        await pilot.press(*"envtui")
        expected = {
            "envtui: Pause or resume the view · key p",
            "envtui: Previous step · key [",
            "envtui: Sort by the next column · key o",
            "envtui: Hide or show the resolved incidents · key R",
            "envtui: Status history of every environment · key h",
            "envtui: Quit · key q",
            "envtui: Sort by avail",
            "envtui: Go to environment legacy",
            "envtui: Theme envtui-light",
        }
        # the palette draws what it has found so far while it searches on: wait for all of it
        await pilot_wait_until(
            pilot, lambda: expected <= set(prompts(app)), what="every expected entry"
        )
        await pilot.press("escape")


async def test_the_palette_sorts_goes_to_an_environment_and_switches_the_theme() -> None:
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(app, pilot)
        table = app.screen.query_one(EnvironmentTable)
        await run_from_palette(app, pilot, "sort by avail", "envtui: Sort by avail")
        await pilot_wait_until(pilot, lambda: table.sort_key == "avail", what="sorted")
        table.filter = "build"  # legacy is filtered out: going to it shows every row
        await run_from_palette(
            app, pilot, "go to environment legacy", "envtui: Go to environment legacy"
        )
        await pilot_wait_until(pilot, lambda: table.selected_id() == "legacy", what="legacy")
        assert table.filter == ""
        assert table.has_focus
        await run_from_palette(app, pilot, "theme envtui-light", "envtui: Theme envtui-light")
        await pilot_wait_until(pilot, lambda: app.theme == "envtui-light", what="the theme")
