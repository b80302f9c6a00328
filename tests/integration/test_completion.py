"""Shell completion and the man page, both generated from the parser, checked in real shells."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.main_in_process import run_cli

from envtui.cli import build_parser
from envtui.commands.manpage import page

SUBCOMMANDS = ("render", "snapshot", "events", "check", "demo", "watch", "replay", "info")


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = run_cli(["completion", shell], capsys)
    assert (code, err) == (0, "")
    return out


def _needs(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        pytest.skip(f"needs {program} (Debian's {program} package, which .ci/run installs)")
    return path


def test_bash_completes_subcommands_and_their_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bash = _needs("bash")
    script = tmp_path / "envtui.bash"
    script.write_text(_script("bash", capsys))
    probe = (
        f"source {script}\n"
        'complete_for() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; '
        "COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _shtab_envtui; printf '%s\\n' \"${COMPREPLY[@]}\"; }\n"
        "complete_for envtui ''\n"
        "echo ---\n"
        "complete_for envtui replay --sp\n"
        "echo ---\n"
        "complete_for envtui completion ''\n"
    )
    result = subprocess.run([bash, "-c", probe], capture_output=True, text=True, check=True)
    commands, options, shells = result.stdout.split("---\n")
    assert set(SUBCOMMANDS) <= set(commands.split())
    assert options.split() == ["--speed"]
    assert set(shells.split()) == {"bash", "zsh", "fish"}


def test_fish_completes_subcommands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fish = _needs("fish")
    script = tmp_path / "envtui.fish"
    script.write_text(_script("fish", capsys))
    result = subprocess.run(
        [fish, "--no-config", "-c", f"source {script}; complete -C 'envtui '"],
        capture_output=True,
        text=True,
        check=True,
    )
    offered = {line.split("\t")[0] for line in result.stdout.splitlines()}
    assert set(SUBCOMMANDS) <= offered


def test_the_zsh_script_is_valid_zsh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    zsh = _needs("zsh")
    script = tmp_path / "_envtui"
    text = _script("zsh", capsys)
    script.write_text(text)
    subprocess.run([zsh, "-n", str(script)], check=True)
    assert all(f"{name}:" in text or f'"{name}' in text for name in SUBCOMMANDS)


def test_the_man_page_renders_without_warnings_and_names_every_command() -> None:
    groff = _needs("groff")
    result = subprocess.run(
        [groff, "-man", "-Tutf8", "-ww", "-P-cbou"],
        input=page(build_parser()),
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stderr == ""
    text = result.stdout
    for name in (*SUBCOMMANDS, "completion", "manpage", "codex", "rollout"):
        assert f"envtui {name}" in text
    assert "--speed" in text


def test_envtui_manpage_prints_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["manpage"], capsys)
    assert code == 0
    assert out.startswith('.TH ENVTUI 1 "')
