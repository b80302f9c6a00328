"""Help that tells the truth, and numbers and paths refused with the real reason."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.files import ROOT
from tests.support.main_in_process import run_cli

from envtui.cli import build_parser, listing_parser, parser_for
from envtui.commands import COMMANDS
from envtui.settings.codex_binary import locate_codex


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    root = build_parser()
    action = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_every_subcommand_has_a_description_and_every_argument_a_help(name: str) -> None:
    parser = _subcommands()[name]
    assert parser.description, f"envtui {name} has no description"
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"envtui {name}: {action.dest} says nothing about itself"


def test_help_shows_the_defaults_that_mean_something(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["replay", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "0 as fast as possible (default: 1.0)" in out
    assert "FILE a JSONL event stream envtui recorded" in out
    with pytest.raises(SystemExit):
        build_parser().parse_args(["snapshot", "--help"])
    assert "still starting (default: 15.0)" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["replay", "x.jsonl", "--speed", "-1"],
            "argument --speed: must be 0 or more (0 replays as fast as possible), got -1",
        ),
        (
            ["replay", "x.jsonl", "--speed", "fast"],
            "argument --speed: must be 0 or more (0 replays as fast as possible); 'fast' is not a number",
        ),
        (
            ["replay", "x.jsonl", "--speed", "nan"],
            "argument --speed: must be 0 or more (0 replays as fast as possible), got nan",
        ),
        (["events", "--duration", "-2"], "argument --duration: must be 0 or more, got -2"),
        (["check", "--steps", "0"], "argument --steps: must be 1 or more, got 0"),
        (["codex", "--poll-interval", "0"], "argument --poll-interval: must be more than 0, got 0"),
        (["snapshot", "--timeout", "inf"], "argument --timeout: must be 0 or more, got inf"),
    ],
)
def test_impossible_numbers_are_refused_with_the_allowed_range(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip().endswith(message)


def test_a_codex_path_that_does_not_exist_is_named_not_replaced(tmp_path: Path) -> None:
    elsewhere = tmp_path / "codex"
    elsewhere.write_text("")
    lookup = locate_codex("/nope/codex", environ={"ENVTUI_CODEX": str(elsewhere)})
    assert lookup.path is None
    assert lookup.problem == "--codex /nope/codex: no such file"
    lookup = locate_codex(None, environ={"ENVTUI_CODEX": "/nope/codex"})
    assert lookup.problem == "$ENVTUI_CODEX /nope/codex: no such file"


def test_envtui_codex_says_the_named_binary_does_not_exist(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(["codex", "--codex", "/nope/codex"], capsys)
    assert (code, err) == (2, "envtui codex: error: --codex /nope/codex: no such file\n")


def test_record_refuses_an_existing_file_and_a_missing_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = tmp_path / "in.jsonl"
    stream.write_text("")
    kept = tmp_path / "kept.jsonl"
    kept.write_text("evidence\n")
    code, _, err = run_cli(["replay", str(stream), "--record", str(kept)], capsys)
    assert code == 2
    assert err == (
        f"envtui replay: error: --record {kept}: the file exists; --append adds to it, "
        "--force replaces it\n"
    )
    assert kept.read_text() == "evidence\n"
    missing = tmp_path / "no" / "such" / "x.jsonl"
    code, _, err = run_cli(["replay", str(stream), "--record", str(missing)], capsys)
    assert (code, err) == (
        2,
        f"envtui replay: error: --record {missing}: no such directory: {missing.parent}\n",
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args(["replay", str(stream), "--record", "x", "--append", "--force"])


HELP_LOADS = {
    "envtui",
    "envtui.cli",
    "envtui.commands",
    "envtui.commands.output",
    "envtui.vocabulary",
    "envtui.vocabulary.safe_text",
}
"""All of envtui that ``envtui --help`` imports: the command line, the table of commands and
the one-line errors; no command's module (each would load its options, some the models)."""


def test_envtui_help_imports_no_commands_module() -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "envtui", "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "cumulative" not in line
    }
    assert {name for name in imported if name.split(".")[0] == "envtui"} == HELP_LOADS
    assert all(f"    {name} " in result.stdout for name in COMMANDS)


def test_the_listing_prints_the_same_help_as_the_whole_tree() -> None:
    assert listing_parser().format_help() == build_parser().format_help()


def test_each_listed_module_adds_its_command_and_the_tree_lists_them_in_order() -> None:
    assert list(_subcommands()) == list(COMMANDS)
    for name in COMMANDS:
        root = build_parser(name)
        action = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
        assert name in action.choices, f"{COMMANDS[name].module} does not add {name}"


@pytest.mark.parametrize("argv", [["--version"], ["rendr"], ["--debug"]])
def test_a_start_without_a_command_is_answered_from_the_listing(argv: list[str]) -> None:
    assert isinstance(parser_for(argv), type(listing_parser()))
    assert getattr(parser_for(argv), "listed_only", False)
    assert not getattr(parser_for(["render", *argv]), "listed_only", False)
