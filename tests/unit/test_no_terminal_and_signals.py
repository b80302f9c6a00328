"""A dashboard refuses a standard output that is no terminal, in one line naming what to
run instead; SIGTERM and SIGHUP end a command from main's first line on, even where an
``except`` on the way swallows the exit."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.files import ROLLOUTS
from tests.support.main_in_process import run_cli

from envtui.commands import output

ROLLOUT = str(sorted(ROLLOUTS.glob("rollout-*.jsonl"))[0])


@pytest.mark.parametrize(
    ("argv", "instead"),
    [
        (["rollout", ROLLOUT], "`envtui check`"),
        (["demo"], "`envtui events`"),
        (["sessions", str(ROLLOUTS)], "`envtui sessions --json`"),
    ],
)
def test_a_dashboard_refuses_an_output_that_is_no_terminal(
    argv: list[str], instead: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(argv, capsys)  # pytest's captured output is no terminal
    assert (code, out) == (2, "")
    assert err == f"envtui {argv[0]}: error: standard output is not a terminal; use {instead}\n"


def test_input_errors_come_before_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["rollout", "/nope/rollout.jsonl"], capsys)
    assert (code, err) == (2, "envtui rollout: error: /nope/rollout.jsonl: no such file\n")


def test_a_browser_tab_or_a_headless_driver_is_drawn_without_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert output.terminal_problem() == "standard output is not a terminal"
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert output.terminal_problem() is None


NAP = """
import os, signal, sys, time, types
import envtui.cli as cli

def nap(args):
    try:
        os.kill(os.getpid(), signal.{signal})
        time.sleep(30)
    except {caught}:
        print("swallowed", flush=True)
        {after}
        time.sleep(30)
    finally:
        print("cleaned up", flush=True)
    return 0

module = types.ModuleType("nap_command")
module.add_parser = lambda sub: sub.add_parser("nap").set_defaults(handler=nap)
sys.modules["nap_command"] = module
cli.COMMAND_MODULES["nap"] = "nap_command"
raise SystemExit(cli.main(["nap"]))
"""


def nap(
    tmp_path: Path, signum: signal.Signals, caught: str, after: str = "pass"
) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "nap.py"
    script.write_text(NAP.format(signal=signum.name, caught=caught, after=after))
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[2],
    )


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_before_the_command_takes_it_over_ends_it_as_128_plus_n(
    tmp_path: Path, signum: signal.Signals
) -> None:
    result = nap(tmp_path, signum, "Exception")  # an except Exception does not catch it
    assert (result.returncode, result.stdout, result.stderr) == (128 + signum, "cleaned up\n", "")


def test_a_swallowed_stop_still_ends_the_process_by_the_signal(tmp_path: Path) -> None:
    result = nap(tmp_path, signal.SIGTERM, "BaseException")  # the exit is swallowed
    assert result.returncode == -signal.SIGTERM  # sent again, with its default action
    assert result.stdout == "swallowed\n"


def test_a_process_that_ignores_the_signal_sent_again_still_exits(tmp_path: Path) -> None:
    # swallowed, and the signal then ignored (as a command stuck half-started could):
    # the last resort ends it with the signal's status
    ignore = "signal.signal(signal.SIGTERM, signal.SIG_IGN)"
    result = nap(tmp_path, signal.SIGTERM, "BaseException", after=ignore)
    assert (result.returncode, result.stdout) == (128 + signal.SIGTERM, "swallowed\n")
