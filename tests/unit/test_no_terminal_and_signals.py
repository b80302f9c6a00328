"""A dashboard refuses a standard output that is no terminal, in one line naming what to
run instead. (SIGTERM and SIGHUP from main's first line on, in processes of their own:
tests/integration/test_stop_by_default.py.)"""

from __future__ import annotations

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
