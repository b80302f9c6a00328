"""The terminal's driver reads keys as Textual's does and knows a closed terminal; the one
private part of Textual's driver it reads is held here, by name, so a release that moves it
fails loudly instead of leaving a dashboard alive without its terminal."""

from __future__ import annotations

import inspect

import pytest
from textual.drivers.linux_driver import LinuxDriver

from envtui.tui.app import EnvTuiApp
from envtui.tui.upstream.terminal_input import TerminalDriver


def test_the_dashboard_draws_on_a_terminal_with_the_terminal_driver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    assert EnvTuiApp(None).driver_class is TerminalDriver


def test_textual_starts_its_input_thread_where_the_driver_looks_for_it() -> None:
    start = inspect.getsource(LinuxDriver.start_application_mode)
    assert "self._key_thread = Thread(target=self._run_input_thread" in start
    assert "self._key_thread: Thread | None = None" in inspect.getsource(LinuxDriver.__init__)


def test_the_driver_keeps_textuals_names_for_what_it_overrides() -> None:
    for name in ("run_input_thread", "start_application_mode", "process_message"):
        assert callable(getattr(LinuxDriver, name)), name
    assert "self.exit_event = Event()" in inspect.getsource(LinuxDriver.__init__)
    assert "self.fileno = " in inspect.getsource(LinuxDriver.__init__)
