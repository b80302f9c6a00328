"""SIGTERM and SIGHUP end a command from main's first line on, even where an ``except`` on
the way swallows the exit: each case in a process of its own (the last resort waits its 5 s,
so these are not in the quick unit loop)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_signal_a_library_wrapped_in_its_own_error_still_ends_as_the_signal(
    tmp_path: Path,
) -> None:
    # pydantic, building a validator during an import, turns the StopSignal into a
    # SchemaError: that is the signal, not an internal error
    wrapped = "raise ValueError('Error building validator: StopSignal: 143')"
    result = nap(tmp_path, signal.SIGTERM, "BaseException", after=wrapped)
    assert (result.returncode, result.stdout, result.stderr) == (
        128 + signal.SIGTERM,
        "swallowed\ncleaned up\n",
        "",
    )


WHILE_BUILDING = """
import os, signal, sys, time, types
import envtui.cli as cli

def add_parser(sub):
    # Python wraps an error raised in a class body's __set_name__ (a pydantic field while
    # a command's module is imported) in a RuntimeError of its own
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)
    except BaseException as exc:
        raise RuntimeError("Error calling __set_name__ on 'Field' instance") from exc

module = types.ModuleType("slow_command")
module.add_parser = add_parser
sys.modules["slow_command"] = module
cli.COMMAND_MODULES["slow"] = "slow_command"
raise SystemExit(cli.main(["slow"]))
"""


def test_a_signal_while_the_command_line_is_built_ends_as_the_signal(tmp_path: Path) -> None:
    script = tmp_path / "slow.py"
    script.write_text(WHILE_BUILDING)
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[2],
    )
    assert (result.returncode, result.stdout, result.stderr) == (128 + signal.SIGTERM, "", "")
