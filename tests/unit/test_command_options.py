"""Shared options are declared once, and the dashboard commands are the rows of one table."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from envtui.cli import COMMAND_MODULES, build_parser, main
from envtui.commands import dashboard, options
from envtui.commands.dashboard_sources import SOURCES
from envtui.commands.options import Group, switch
from envtui.settings.config import Config

pytestmark = pytest.mark.usefixtures("a_terminal")  # pytest captures standard output

DASHBOARD_COMMANDS = {"demo", "watch", "replay", "codex", "rollout"}

SHARED: dict[str, tuple[Group, set[str]]] = {
    "DASHBOARD": (options.DASHBOARD, DASHBOARD_COMMANDS),
    "METRICS": (options.METRICS, {"events", "watch", "codex", "sessions"}),
    "CODEX": (options.CODEX, {"events", "codex"}),
    "ENVIRONMENTS": (options.ENVIRONMENTS, {"check", "events", "snapshot"}),
}
"""Each shared group, and the commands that take it."""


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    root = build_parser()
    action = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _described(parser: argparse.ArgumentParser, flag: str) -> tuple[Any, ...]:
    """What a user sees and gets of ``flag`` in one command: help, metavar, default,
    choices, the heading it is listed under, and the flags it excludes."""
    action = next(a for a in parser._actions if flag in a.option_strings)
    heading = next(g.title for g in parser._action_groups if action in g._group_actions)
    excluded = [
        sorted(o for a in group._group_actions if a is not action for o in a.option_strings)
        for group in parser._mutually_exclusive_groups
        if action in group._group_actions
    ]
    return (action.help, action.metavar, action.default, action.choices, heading, excluded)


@pytest.mark.parametrize("group_name", sorted(SHARED))
def test_a_shared_flag_reads_the_same_in_every_command_that_takes_it(group_name: str) -> None:
    group, holders = SHARED[group_name]
    parsers = _subcommands()
    for argument in group.arguments():
        flag = argument.flags[0]
        seen = {name: _described(parsers[name], flag) for name in sorted(holders)}
        first, *others = seen.values()
        assert all(other == first for other in others), f"{flag} differs: {seen}"
        help_text, metavar, *_ = first
        assert (help_text, metavar) == (argument.settings["help"], argument.settings.get("metavar"))


def test_the_alert_flags_are_under_their_heading_and_append_excludes_force() -> None:
    for name in sorted(DASHBOARD_COMMANDS):
        parser = _subcommands()[name]
        assert (
            _described(parser, "--bell")[4]
            == "alerts (also [alerts] in the config; not on replays)"
        )
        assert _described(parser, "--append")[5] == [["--force"]]


def test_an_untitled_group_adds_to_the_parser_itself_and_a_titled_one_is_a_heading() -> None:
    parser = argparse.ArgumentParser(prog="x")
    Group(
        switch("--plain", "one"), Group(switch("--a", "a"), switch("--b", "b"), exclusive=True)
    ).add_to(parser)
    Group(switch("--loud", "two"), title="loud things").add_to(parser)
    text = parser.format_help()
    options_section = text.split("options:")[1].split("loud things:")[0]
    assert "--plain" in options_section
    assert "--a" in options_section
    assert "--loud" in text.split("loud things:")[1]
    with pytest.raises(SystemExit):
        parser.parse_args(["--a", "--b"])
    assert vars(parser.parse_args(["--b", "--loud"])) == {
        "plain": False,
        "a": False,
        "b": True,
        "loud": True,
    }


def test_every_row_of_the_sources_table_is_a_dashboard_command_of_the_cli() -> None:
    assert list(SOURCES) == ["demo", "watch", "replay", "codex", "rollout"]  # the help's order
    lazily_loaded = {
        name for name, module in COMMAND_MODULES.items() if module == dashboard.__name__
    }
    assert lazily_loaded == set(SOURCES)
    for name, parser in _subcommands().items():
        if name in SOURCES:
            assert parser.description == SOURCES[name].description
            assert (parser.get_default("handler"), parser.get_default("mode")) == (
                dashboard.run,
                name,
            )


@pytest.mark.parametrize("name", sorted(DASHBOARD_COMMANDS))
def test_a_dashboard_command_builds_its_source_through_its_row(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, Config]] = []

    def build(args: argparse.Namespace, config: Config) -> int:
        calls.append((args.mode, config))
        return 7  # an exit code: the command ends before anything starts

    def started(*args: object) -> int:
        raise AssertionError("the dashboard started without the row's source")

    monkeypatch.setattr(dashboard, "_run_app", started)
    monkeypatch.setitem(SOURCES, name, dataclasses.replace(SOURCES[name], build=build))
    positional = [str(tmp_path / "file.jsonl")] if name in ("replay", "rollout") else []
    assert main([name, *positional]) == 7
    assert [mode for mode, _ in calls] == [name]
    assert isinstance(calls[0][1], Config)


def _screens(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Both apps replaced by one that keeps the options it is given and runs nothing."""
    import envtui.tui.app
    import envtui.tui.sessions.sessions_app

    given: list[Any] = []

    class Screen:
        def __init__(self, *parts: Any, **how: Any) -> None:
            given.append(parts[-1])  # the options (how it draws: its driver, by keyword)

        def run(self) -> None:
            pass

    monkeypatch.setattr(envtui.tui.app, "EnvTuiApp", Screen)
    monkeypatch.setattr(envtui.tui.sessions.sessions_app, "SessionsApp", Screen)
    return given


def test_both_apps_take_the_theme_glyphs_keys_and_bounds_from_the_flags_and_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'theme = "envtui-light"\nevent_log_lines = 123\nstep_history = 45\n'
        '[keymap]\npause = "space"\n'
    )
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    given = _screens(monkeypatch)
    assert main(["demo", "--config", str(config), "--ascii"]) == 0
    assert main(["sessions", str(sessions), "--config", str(config), "--theme", "t2"]) == 0
    shared = [
        (o.theme, o.ascii, o.remember_theme, o.keymap, o.max_log_lines, o.max_steps) for o in given
    ]
    assert shared == [
        ("envtui-light", True, True, {"pause": "space"}, 123, 45),
        ("t2", False, True, {"pause": "space"}, 123, 45),
    ]
    assert [o.source_name for o in given] == ["demo", f"sessions {sessions}"]
