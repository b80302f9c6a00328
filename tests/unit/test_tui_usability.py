"""Help that tells the truth, a keymap that says what it could not do, ASCII glyphs, a theme
remembered and a theme that leaves out status colours, screenshots where info says (with the exports)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandInput, CommandList

from tests.support.scenarios.dashboard_pilot import settled
from tests.support.scenarios.scripted_stream import clock, scripted_source
from tests.support.waiting import pilot_wait_until

from envtui.settings import ui_state
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.keymap import check_keymap, keys_in_force, typed, valid_key
from envtui.tui.main_screen import MainScreen
from envtui.tui.screens import TextScreen
from envtui.tui.widgets import EnvironmentTable

pytestmark = [pytest.mark.tui, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def make_app(**options: Any) -> EnvTuiApp:
    return EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock, **options))


def toasts(app: EnvTuiApp) -> list[str]:
    return [n.message for n in app.notices]


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("p", True),
        ("?", True),
        ("space", True),
        ("ctrl+shift+f5", True),
        ("question_mark", True),
        ("enter", True),
        ("not-a-key!!", False),
        ("ctrl+", False),
        ("hyperdrive+x", False),
        ("", False),
    ],
)
def test_a_key_is_a_key_a_terminal_sends(key: str, ok: bool) -> None:
    assert valid_key(key) is ok


def test_the_keymap_check_names_unknown_ids_and_keys_and_keeps_the_rest() -> None:
    checked = check_keymap(
        {"pauze": "x", "details": "not-a-key!!", "pause": "space", "zzz": "z"},
        ["pause", "details"],
    )
    assert checked.usable == {"pause": "space"}
    assert checked.problems == [
        "unknown binding id 'pauze' (did you mean 'pause'?)",
        "details: not a key: 'not-a-key!!'",
        "unknown binding id 'zzz' (ids: details, pause)",  # nothing near: every id
    ]


def test_keys_are_shown_as_typed_and_as_the_keymap_moved_them() -> None:
    assert typed("question_mark") == "?"
    assert typed("left_square_bracket") == "["
    assert typed("ctrl+p") == "ctrl+p"
    rows = dict(
        (description, keys)
        for keys, description in keys_in_force(MainScreen.BINDINGS, {"pause": "space,x"})
    )
    assert rows["Help"] == "?"
    assert rows["Prev step"] == "["
    assert rows["Pause"] == "space, x"


async def test_help_shows_the_keymap_in_force_and_bad_entries_are_a_notice() -> None:
    app = make_app(keymap={"pause": "space", "pauze": "x", "details": "not-a-key!!"})
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        notice = "\n".join(toasts(app))
        assert "keymap entries not applied:" in notice
        assert "unknown binding id 'pauze'" in notice
        assert "details: not a key: 'not-a-key!!'" in notice
        await pilot.press("space")  # the remapped key works
        main = app.screen
        assert isinstance(main, MainScreen)
        assert main.paused
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, TextScreen)
        lines = help_screen.body.splitlines()
        assert any(line.split()[:2] == ["space", "Pause"] for line in lines)
        assert any(line.split()[:3] == ["?", "These", "keys"] for line in lines)
        assert any(line.split()[:3] == ["[", "Previous", "step"] for line in lines)
        assert any(line.split()[:3] == ["q,", "ctrl+c", "Quit"] for line in lines)
        assert "question_mark" not in help_screen.body


async def test_ascii_draws_every_glyph_in_ascii() -> None:
    app = make_app(ascii=True)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        table = app.screen.query_one(EnvironmentTable)
        cells = [table.get_row_at(i)[:2] for i in range(table.row_count)]
        statuses = {cell[1].plain for cell in cells}
        assert statuses <= {"+ ready", "~ starting", "x unavailable"}
        assert any(cell[0].plain == "*" for cell in cells)
        assert str(table.border_title) == "> environments"  # the focus, in ASCII too
        drawn = app.export_screenshot()
    assert not any(glyph in drawn for glyph in "●◐✕★⚠")


async def test_the_theme_chosen_in_the_picker_is_remembered_for_the_next_run(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    app = make_app(remember_theme=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(state))
        async with app.run_test(size=(140, 44)) as pilot:
            await settled(app, pilot)
            saved = state / "envtui" / "dashboard.json"
            app.theme = "envtui-light"  # a theme changed but not chosen in the picker
            await pilot.pause()
            assert not saved.exists()
            await pilot.press("t")
            await pilot_wait_until(pilot, lambda: bool(app.screen.query(CommandInput)))
            box = app.screen.query_one(CommandInput)
            assert "keeps it for the next run" in str(box.placeholder)  # the picker says so
            await pilot.press(*"okabe")

            def top_hit() -> str:
                hits = app.screen.query_one(CommandList)
                return str(hits.get_option_at_index(0).prompt) if hits.option_count else ""

            # a list drawn before the last key was searched may still be up: wait for its hit
            await pilot_wait_until(
                pilot, lambda: top_hit() == "envtui-okabe-ito", what="the okabe-ito hit"
            )
            assert not saved.exists()  # typing and moving through the list keeps nothing
            await pilot.press("enter")
            await pilot_wait_until(pilot, saved.exists, what="the state file")
        assert app.theme == "envtui-okabe-ito"
        assert json.loads(saved.read_text())["theme"] == "envtui-okabe-ito"
        assert ui_state.remembered_theme() == "envtui-okabe-ito"


def test_a_broken_state_file_is_no_memory(tmp_path: Path) -> None:
    path = tmp_path / "dashboard.json"
    path.write_text("[not json")
    assert ui_state.remembered_theme(path) is None
    assert ui_state.remember("theme", "envtui-light", path) is None
    assert ui_state.remembered_theme(path) == "envtui-light"


async def test_a_user_theme_without_status_colours_is_used_with_derived_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    themes = tmp_path / "config" / "envtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "plain.toml").write_text(
        'name = "plain"\nprimary = "#112233"\nsuccess = "#00aa00"\nerror = "#aa0000"\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = make_app(theme="plain")
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        assert app.theme == "plain"
        assert toasts(app) == [] or all("theme" not in t for t in toasts(app))
        derived = app.current_theme.to_color_system().generate()
        colours = app.theme_variables
        assert colours["status-ready"] == derived["success"]
        assert colours["status-unavailable"] == derived["error"]
        assert colours["status-primary"] == derived["primary"]
        assert derived["success"].lower().startswith("#00a")  # the theme's own green


async def test_the_screenshot_goes_to_the_exports_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    folder = tmp_path / "state" / "envtui" / "exports"
    app = make_app()
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        app.action_screenshot()
        app.action_screenshot()
        await pilot.pause()
        files = sorted(folder.glob("envtui-screenshot-*.svg"))
        assert len(files) == 2  # the second is numbered, never over the first
        assert all(f"wrote {path}" in toasts(app) for path in files)
        assert files[0].read_text().startswith("<svg")


async def test_export_dir_moves_the_screenshot_with_the_exports(tmp_path: Path) -> None:
    folder = tmp_path / "chosen"
    app = make_app(export_dir=folder)
    async with app.run_test(size=(140, 44)) as pilot:
        await settled(app, pilot)
        app.action_screenshot()
        await pilot.pause()
        [file] = folder.glob("envtui-screenshot-*.svg")
        assert f"wrote {file}" in toasts(app)
