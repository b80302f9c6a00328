"""The dashboard, driven by Pilot: every key, and each panel against a scripted stream."""

from __future__ import annotations

import html
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import ComposeResult
from textual.command import CommandList, CommandPalette
from textual.theme import Theme
from textual.widgets import TabbedContent

from tests.support.scenarios.dashboard_pilot import run_from_palette, settled
from tests.support.scenarios.scripted_stream import clock, scripted_events, scripted_source, status
from tests.support.screens_shown import screen_shown
from tests.support.waiting import pilot_wait_until, wait_until

from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.incidents_view import IncidentList
from envtui.tui.keymap import keys_in_force
from envtui.tui.log_widget import EventLog
from envtui.tui.main_screen import MainScreen
from envtui.tui.screens import TextScreen
from envtui.tui.widgets import ContextPanel, EnvironmentTable, ToolsPanel

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

BUILT_IN_THEMES = ("envtui-dark", "envtui-light", "envtui-high-contrast", "envtui-okabe-ito")
STATUSES = ("ready", "starting", "unavailable", "primary")


def make_app(
    tmp_path: Path | None = None, source: Any = scripted_source, **options: Any
) -> EnvTuiApp:
    return EnvTuiApp(
        source, DashboardOptions(source_name="test", clock=clock, export_dir=tmp_path, **options)
    )


def screen(app: EnvTuiApp) -> MainScreen:
    assert isinstance(app.screen, MainScreen)
    return app.screen


def layout_shown(app: EnvTuiApp) -> str | None:
    """The main screen's layout once mounted and restored (see ``MainScreen.layout_shown``)."""
    return app.screen.layout_shown if isinstance(app.screen, MainScreen) else None


def table_rows(app: EnvTuiApp) -> list[list[str]]:
    table = app.screen.query_one(EnvironmentTable)
    return [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_panels_show_the_scripted_stream(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:  # wide enough for every column
        await settled(app, pilot)
        # the strip is the last minutes in 30 s cells aligned on the clock, then the one under
        # way (here 12:00:30 on): build was starting, ready for 2 s, then lost (up and down:
        # 1 flap, 2 of 30 known seconds ready); local started in a second (ready 97 %)
        assert table_rows(app) == [
            [
                "",
                "✕ unavailable",
                "build",
                "········▚✕",
                "7%",
                "1",
                "ssh",
                "/srv/build",
                "-",
                "24 s ago",
                "connection lost: Connection lost",
            ],
            [
                "★",
                "● ready",
                "local",
                "········▇█",
                "97%",
                "0",
                "local",
                "/repo",
                "bash",
                "29 s ago",
                "",
            ],
            [
                "",
                "✕ unavailable",
                "legacy",
                "········✕✕",
                "0%",
                "0",
                "ssh",
                "/",
                "-",
                "28 s ago",
                "host key mismatch: the key [127.0.0.1]:2222 differs",
            ],
        ]
        log = app.screen.query_one(EventLog)
        # no two lines alike: only its two steps fold, into one window
        assert log.line_count == len(scripted_events()) - 1
        assert any('id "" environment_connected build' in line for line in log.lines)
        assert any(
            line.endswith(" environment_status build starting → ready primary")
            for line in log.lines
        )
        context = app.screen.query_one(ContextPanel)
        assert context.text.startswith("<environment_context>\n  <environments>")
        assert context.border_title == "context · step 2 · full"
        tools = app.screen.query_one(ToolsPanel)
        assert tools.border_title == "tools"
        assert [line.rstrip() for line in str(tools.render()).splitlines()] == [
            "exec_command           environment_id?",  # optional: the marker says so
            "write_stdin",  # absent: no marker
        ]
        findings = app.screen.query_one(IncidentList)
        assert findings.option_count == 2
        banner = app.screen.query_one("#banner")
        assert banner.has_class("-visible")
        assert (
            "2 active incident(s): stale-available (build), execution-routed-elsewhere (build)"
            in str(banner.render())
        )
        header = str(app.screen.query_one("#header").render())
        assert "thread thread-1" in header
        assert "step 2" in header
        assert "2026-11-30 Europe/Berlin" in header


async def test_d_cycles_full_diff_snapshot_patch(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        context = app.screen.query_one(ContextPanel)
        await pilot.press("3")  # d is the context's key: to the context first
        seen = []
        for _ in range(4):
            await pilot.press("d")
            seen.append(context.border_title)
        assert seen == [
            "▶ context · step 2 · diff",
            "▶ context · step 2 · snapshot",
            "▶ context · step 2 · patch",
            "▶ context · step 2 · full",
        ]
        await pilot.press("d", "d")
        assert json.loads(context.text)["environments"]["build"]["is_primary"] is True


async def test_brackets_move_between_steps(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        context = app.screen.query_one(ContextPanel)
        await pilot.press("left_square_bracket")
        assert context.border_title == "context · step 1 · full"
        assert "<status>starting</status>" in context.text
        await pilot.press("left_square_bracket")
        assert context.border_title == "context · step 1 · full"
        await pilot.press("right_square_bracket")
        assert context.border_title == "context · step 2 · full"


async def test_filter_with_slash_and_clear_with_escape(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("slash")
        await pilot.press(*"host key")
        assert [row[2] for row in table_rows(app)] == ["legacy"]
        table = app.screen.query_one(EnvironmentTable)
        assert table.border_title == "environments  filter: host key"  # the box has the focus
        await pilot.press("enter")  # leaves the box; the filter stays
        assert [row[2] for row in table_rows(app)] == ["legacy"]
        await pilot.press("escape")
        assert [row[2] for row in table_rows(app)] == ["build", "local", "legacy"]
        assert table.border_title == "▶ environments"  # focused again


async def test_pause_freezes_the_view_and_resume_catches_up(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("p")
        main = screen(app)
        assert main.paused
        for second in range(5):
            app.ingest(status(f"new-{second}", "starting", 20))
        header = app.screen.query_one("#header")
        await pilot_wait_until(  # a paused frame redraws the header only
            pilot, lambda: "PAUSED +5 events" in str(header.render()), what="a paused frame"
        )
        assert len(table_rows(app)) == 3
        await pilot.press("p")
        await settled(app, pilot, events=len(scripted_events()) + 5)
        assert len(table_rows(app)) == 8
        # the two steps of the script are one window of steps
        assert app.screen.query_one(EventLog).line_count == len(scripted_events()) - 1 + 5


async def test_enter_explains_an_environment_and_an_incident(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("enter")
        shown = await screen_shown(app, pilot, TextScreen)
        assert shown.title_text == "environment · build"
        assert "connection  disconnected" in shown.body
        assert "environment_disconnected build" in shown.body
        await pilot.press("escape")
        main = await screen_shown(app, pilot, MainScreen)
        main.query_one(IncidentList).focus()
        await pilot.press("enter")
        shown = await screen_shown(app, pilot, TextScreen)
        # the newest incident comes first
        assert shown.title_text == "incident · execution-routed-elsewhere · build"
        assert "ran in 'build', but the step routed" in shown.body
        await pilot.press("escape")


async def test_question_mark_lists_every_key(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, TextScreen)
        firsts = {line.split("  ")[1] for line in app.screen.body.splitlines() if line[:2] == "  "}
        for keys, description in keys_in_force(MainScreen.BINDINGS, {}):
            assert keys in firsts or any(keys in first.split(", ") for first in firsts), (
                keys,
                description,
            )
        assert "escapes everything" not in app.screen.body  # that note is the README's


async def test_y_copies_the_context_and_e_exports_the_step(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("y")
        assert app.clipboard == app.screen.query_one(ContextPanel).text
        await pilot.press("e")
        exported = json.loads((tmp_path / "envtui-step-thread-1-2.json").read_text())
        assert exported["step"] == 2
        assert exported["context"].startswith("<environment_context>")
        assert exported["tools"] == [
            {"name": "exec_command", "environment_id": "optional"},
            {"name": "write_stdin", "environment_id": "absent"},
        ]
        assert [f["code"] for f in exported["findings"]] == ["stale-available"]


async def test_e_creates_the_export_folder_and_never_overwrites(tmp_path: Path) -> None:
    folder = tmp_path / "not" / "yet"
    app = EnvTuiApp(
        scripted_source, DashboardOptions(source_name="test", clock=clock, export_dir=folder)
    )
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("e")
        await pilot.press("e")
        await pilot.pause()
        first = folder / "envtui-step-thread-1-2.json"
        second = folder / "envtui-step-thread-1-2-2.json"
        assert json.loads(first.read_text())["step"] == 2
        assert json.loads(second.read_text()) == json.loads(first.read_text())
        toasts = [n.message for n in app.notices]
        assert f"wrote {first}" in toasts
        assert f"wrote {second}" in toasts


async def test_s_cycles_the_sort_and_keeps_the_selected_environment(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        table = app.screen.query_one(EnvironmentTable)
        table.move_cursor(row=2)
        assert table.selected_id() == "legacy"
        await pilot.press("s")  # by status
        assert table.sort_key == "status"
        assert table.selected_id() == "legacy"
        await pilot.press("s")  # by id
        assert [row[2] for row in table_rows(app)] == ["build", "legacy", "local"]
        await pilot.press("S")
        assert [row[2] for row in table_rows(app)] == ["local", "legacy", "build"]
        assert table.selected_id() == "legacy"


def status_colours(theme: Theme) -> dict[str, str]:
    """A theme's own status colours, else its success, warning, error and primary colours."""
    colours = theme.to_color_system().generate()
    fallback = {"ready": "success", "starting": "warning", "unavailable": "error"}
    return {
        state: theme.variables.get(f"status-{state}", colours[fallback.get(state, state)])
        for state in STATUSES
    }


async def test_t_opens_the_theme_picker_and_every_built_in_theme_colours_the_statuses(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("t")

        def picker() -> list[str]:
            options = app.screen.query(CommandList)
            if not options:
                return []
            shown = options.first()
            return [str(shown.get_option_at_index(i).prompt) for i in range(shown.option_count)]

        await pilot_wait_until(
            pilot, lambda: picker() == sorted(app.available_themes), what="every theme listed"
        )
        assert isinstance(app.screen, CommandPalette)
        assert set(BUILT_IN_THEMES) <= set(picker())
        await pilot.press("escape")
        table = app.screen.query_one(EnvironmentTable)

        async def switch_to(name: str) -> dict[str, str]:
            theme = app.get_theme(name)
            assert theme is not None
            expected = status_colours(theme)
            app.theme = name
            await pilot_wait_until(pilot, lambda: table.styles_for == expected, what=name)
            return expected

        for name in (*BUILT_IN_THEMES, "nord"):  # nord has no status colours of its own
            expected = await switch_to(name)
            # The CSS resolved the same $status-* variables, and every cell is drawn in them.
            assert {s: app.theme_variables[f"status-{s}"] for s in STATUSES} == expected
            for row in range(table.row_count):
                marker, state = table.get_row_at(row)[:2]
                assert marker.style == expected["primary"]
                assert state.style == expected[state.plain.split(" ")[-1]]


async def test_q_quits(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(app, pilot)
        await pilot.press("q")
        await pilot_wait_until(pilot, lambda: app.return_code is not None, what="q to quit")
    assert app.return_code == 0


async def test_narrow_terminal_uses_tabs(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        assert app.screen.query("TabbedContent")
        assert app.screen.query_one(IncidentList).option_count == 2
        await pilot.resize_terminal(130, 40)
        await pilot_wait_until(pilot, lambda: layout_shown(app) == "wide", what="the wide layout")
        await settled(app, pilot)
        assert app.screen.query_one(IncidentList).option_count == 2


async def test_keys_act_on_the_new_widgets_after_the_layout_changes(tmp_path: Path) -> None:
    """Crossing the wide/narrow width builds new widgets; 3 d, 1 s and / redraw those."""
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.resize_terminal(80, 24)
        await pilot_wait_until(
            pilot, lambda: layout_shown(app) == "narrow", what="the narrow layout"
        )
        await settled(app, pilot)
        await pilot.press("3", "d")  # the context's tab, then its view
        assert app.screen.query_one(ContextPanel).border_title == "▶ context · step 2 · diff"
        await pilot.press("1", "s", "s")  # the table: by status, then by id
        assert [row[2] for row in table_rows(app)] == ["build", "legacy", "local"]
        await pilot.press("slash", *"legacy")
        assert [row[2] for row in table_rows(app)] == ["legacy"]


async def test_a_quit_while_the_other_layout_mounts_ends_without_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app quits (q, a closed tab) while a resize's new layout mounts: the swap stops
    there instead of drawing into widgets that are going."""
    app = make_app(tmp_path)
    composing = TabbedContent.compose

    def quit_while_mounting(self: TabbedContent) -> ComposeResult:
        self.app.exit()  # the narrow layout's tabs are made, not yet mounted
        yield from composing(self)

    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        monkeypatch.setattr(TabbedContent, "compose", quit_while_mounting)
        await pilot.resize_terminal(80, 24)
        await pilot_wait_until(pilot, lambda: not app.is_running, what="the app to quit")
    assert app.return_code == 0


async def test_relative_times_move_on_without_events(tmp_path: Path) -> None:
    now = [clock()]
    app = EnvTuiApp(
        scripted_source,
        DashboardOptions(source_name="test", clock=lambda: now[0], export_dir=tmp_path),
    )
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        keys = [key for key, _, _ in screen(app).query_one(EnvironmentTable)._layout]
        changed, strip = keys.index("changed"), keys.index("strip")
        assert [table_rows(app)[1][i] for i in (2, changed, strip)] == [
            "local",
            "29 s ago",
            "········▇█",
        ]
        now[0] += timedelta(minutes=1)
        await wait_until(
            lambda: table_rows(app)[1][changed] == "1 min ago", what="the changed column"
        )
        assert table_rows(app)[1][strip] == "······▇███"  # the strip moved on with the clock


async def test_keymap_from_config_moves_a_key(tmp_path: Path) -> None:
    app = make_app(tmp_path, keymap={"pause": "space"})
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await pilot.press("space")
        assert screen(app).paused


async def test_untrusted_text_is_shown_literally(tmp_path: Path) -> None:
    nasty = ["[/]", "[bold red]x", "\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x9b2J"]

    async def source(sink, stop) -> None:  # type: ignore[no-untyped-def]
        for index, text in enumerate(nasty):
            sink(status(text, "ready", index, cwd=text, shell=text, error=text))

    app = make_app(tmp_path, source=source)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot, events=len(nasty))
        rows = table_rows(app)
        assert [row[2] for row in rows] == [
            "[/]",
            "[bold red]x",
            "\\x1b[31mred\\x1b[0m",
            "\\x1b]0;title\\x07",
            "\\x9b2J",
        ]
        svg = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert "[bold red]x" in svg
        assert "\x1b" not in svg
        assert "\x9b" not in svg
        await pilot.press("enter")
        details = await screen_shown(app, pilot, TextScreen)
        assert "\x1b" not in str(details.query_one("#text-body").render())


async def test_a_broken_user_theme_is_a_notice_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    themes = tmp_path / "xdg" / "envtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "broken.toml").write_text("name = ")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        assert app.theme_problems
        await pilot_wait_until(
            pilot,
            lambda: any("broken.toml" in n.message for n in app.notices),
            what="a notice naming the file",
        )


async def test_command_palette_keeps_textuals_commands_and_adds_envtuis(tmp_path: Path) -> None:
    from textual.app import App

    from envtui.tui.app import EnvtuiCommands

    assert App.COMMANDS <= EnvTuiApp.COMMANDS
    assert EnvtuiCommands in EnvTuiApp.COMMANDS
    app = make_app(tmp_path)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        await run_from_palette(
            app, pilot, "pause or resume", "envtui: Pause or resume the view · key p"
        )
        await settled(app, pilot)
        assert screen(app).paused
