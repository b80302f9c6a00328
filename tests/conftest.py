"""For unit and integration tests alike: a run that never sees the user's own setup, and
``async def`` tests without a plugin."""

from __future__ import annotations

import asyncio
import inspect
import time

import pytest


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
