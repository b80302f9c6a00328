"""For unit and integration tests alike: a run that never sees the user's own setup,
``async def`` tests without a plugin, and a run that fails when it leaves a process behind."""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import time
from collections.abc import Generator

import pytest
from hypothesis import HealthCheck, settings

from tests.support.leftovers import RUN_MARKER, end_leftovers, leftover_processes, run_mark

sys.dont_write_bytecode = False
"""Each test module is compiled with its assertions rewritten once and kept, as pytest does by
default, even where the environment says not to write bytecode (``PYTHONDONTWRITEBYTECODE``):
otherwise each of the run's workers rewrites every test module again on every run, about a
quarter of the unit suite's CPU time. The files go to the ``__pycache__`` folders git ignores."""

settings.register_profile("envtui", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("envtui")
"""No property test is timed: one example took 218 ms against Hypothesis's default deadline
of 200 ms on a machine kept busy beside the run, and a slow machine is not a failure."""

LEFTOVER_GRACE = 10.0
"""Seconds the run's processes get to end after the last test (a killed tmux server's
dashboard, a replay told to quit) before they count as left behind."""


@pytest.fixture(autouse=True)
def _isolated_user_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep the user's config, themes and locale out of every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("ENVTUI_CONFIG", raising=False)
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("TZ", "UTC")  # the dashboard's wall clock is local time
    time.tzset()
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    for size in ("COLUMNS", "LINES"):  # a pytest-xdist worker sets 80x24: sizes come from ptys
        monkeypatch.delenv(size, raising=False)


@pytest.fixture(autouse=True)
def _default_glyphs() -> Generator[None, None, None]:
    """Every test starts from the default glyphs: the set is the process's, and an app
    started with ``ascii`` (or a test that draws in ASCII) leaves it chosen."""
    yield
    drawing = sys.modules.get("envtui.tui.format")  # not imported for a test that never draws
    if drawing is not None:
        drawing.use_ascii(False)


@pytest.fixture
def a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboards drawn in-process as if on a terminal: pytest captures standard output,
    which they refuse otherwise (a test replaces the app's run, so nothing is drawn)."""
    import envtui.commands.output

    monkeypatch.setattr(envtui.commands.output, "terminal_problem", lambda: None)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests in a fresh event loop each, without a plugin."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**kwargs))
    return True


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """Long inputs (a document nested 100,000 deep) get a short test id, not the whole text."""
    if isinstance(val, str) and len(val) > 80:
        return f"{val[:40]}...({len(val)} characters)"
    return None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Mark every process the run starts: the mark is inherited through the environment,
    so a process reparented to PID 1 is still known as the run's."""
    os.environ.setdefault(RUN_MARKER, run_mark())


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None]:
    """Fail the run, naming them, when processes it started are still alive at its end;
    then end them, so that nothing outlives the run either way.

    A wrapper, so the check comes after every other plugin's end of session: pytest-xdist
    ends its workers there, and before that they are the run's processes still alive."""
    yield
    if hasattr(session.config, "workerinput"):
        return  # a pytest-xdist worker: its siblings carry the mark too; the controller checks
    left = leftover_processes(os.environ[RUN_MARKER], grace=LEFTOVER_GRACE)
    if not left:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"{len(left)} process(es) started by the tests are still alive:", *left]
    if reporter is not None:
        reporter.write_sep("=", "processes left behind", red=True)
        for line in lines:
            reporter.write_line(line)
    end_leftovers(os.environ[RUN_MARKER])
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
