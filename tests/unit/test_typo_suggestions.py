"""A typo gets a suggestion: a config key (with its file and line), a binding id in the
keymap, a command, a flag, a choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.main_in_process import run_cli

from envtui.cli import main
from envtui.settings.config import Config, ConfigError, parse_config
from envtui.settings.suggestions import keys_at
from envtui.vocabulary.suggest import did_you_mean


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '[[enviroments]]\nid = "a"\ncwd = "/"\n',
            "c.toml:1: enviroments: unknown key; did you mean 'environments'?",
        ),
        (
            '[[environments]]\nid = "a"\nkind = "local"\ncwdd = "/srv"\n',
            # the typo, not the required key it stands for
            "c.toml:4: environments[0].cwdd: unknown key; did you mean 'cwd'?",
        ),
        (
            "step_intervall = 5\n",
            "c.toml:1: step_intervall: unknown key; did you mean 'step_interval'?",
        ),
        (
            "step_interval = 5\n[alerts]\nbel = true\n",
            "c.toml:3: alerts.bel: unknown key; did you mean 'bell'?",
        ),
        ("[network]\nzzzz = 1\n", "c.toml:2: network.zzzz: unknown key"),  # nothing near
    ],
)
def test_a_mistyped_config_key_names_its_line_and_the_key_it_was_meant_to_be(
    text: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config(text, "c.toml")
    assert str(raised.value) == expected


def test_the_keys_of_a_table_come_from_the_config_models() -> None:
    assert {"cwd", "id", "kind", "host", "program"} <= keys_at(Config, ["environments", 0])
    assert "environments" in keys_at(Config, [])
    assert keys_at(Config, ["keymap"]) == set()  # free keys: binding ids, checked elsewhere
    assert did_you_mean("host", {"host", "hosts"}) is None  # valid elsewhere: misplaced


def test_a_config_typo_reaches_the_command_line_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[[environments]]\nid = "a"\nkind = "local"\ncwdd = "/srv"\n')
    assert run_cli(["snapshot", "--config", str(config)], capsys) == (
        2,
        "",
        f"envtui snapshot: error: {config}:4: environments[0].cwdd: unknown key; "
        "did you mean 'cwd'?\n",
    )


@pytest.mark.parametrize(
    ("argv", "last_line"),
    [
        (
            ["wach"],
            "envtui: error: argument COMMAND: invalid choice: 'wach'; did you mean 'watch'?",
        ),
        (
            ["watch", "--confg", "x"],
            "envtui watch: error: unrecognized arguments: --confg x; --confg: did you mean "
            "'--config'?",
        ),
        (
            ["check", "--profile", "codex-0.17"],
            "envtui check: error: argument --profile: invalid choice: 'codex-0.17'; did you mean "
            "'codex-0.171'?",
        ),
        (["watch", "--zzzzzz"], "envtui watch: error: unrecognized arguments: --zzzzzz"),
        (
            ["--confg", "x"],
            "envtui: error: unrecognized arguments: --confg; --confg: did you mean '--config'? "
            "(it goes after the command)",
        ),
        (
            ["--debg", "watch"],
            "envtui: error: unrecognized arguments: --debg; --debg: did you mean '--debug'?",
        ),
    ],
)
def test_a_mistyped_command_flag_or_choice_gets_a_suggestion(
    argv: list[str], last_line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == last_line
    command = last_line.split(":")[0].removeprefix("envtui")  # the parser that said it
    assert err.startswith(f"usage: envtui{command} [-h]")


def test_a_command_nothing_is_near_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["zzzz"])
    assert "invalid choice: 'zzzz' (choose from 'render', " in capsys.readouterr().err


def test_an_unknown_keymap_id_is_named_at_its_line_with_the_nearest_id() -> None:
    from envtui.tui.app import EnvTuiApp
    from envtui.tui.options import DashboardOptions

    config = parse_config('step_interval = 5\n[keymap]\npauze = "space"\nhelp = "h"\n', "c.toml")
    assert config.keymap_where == {"pauze": "c.toml:3", "help": "c.toml:4"}
    options = DashboardOptions(keymap=dict(config.keymap), keymap_where=config.keymap_where)
    app = EnvTuiApp(None, options)
    assert app.keymap_problems == ["c.toml:3: unknown binding id 'pauze' (did you mean 'pause'?)"]
    assert app.keymap_in_force == {"help": "h"}
    inline = parse_config('keymap = { pauze = "space" }\n', "d.toml")
    assert inline.keymap_where == {"pauze": "d.toml:1"}


def test_a_previous_state_given_without_its_option_is_pointed_at_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["render", "state.json", "--diff", "previous.json"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "envtui render: error: unrecognized arguments: previous.json "
        "(a previous state is given as `--previous previous.json`)"
    )
    with pytest.raises(SystemExit):
        main(["render", "state.json", "--bogus"])  # a flag: no such hint
    assert "--previous" not in capsys.readouterr().err.splitlines()[-1]
