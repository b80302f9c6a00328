"""Snapshots of the main screen in each built-in theme, at 120x40 and 80x24."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.support.scenarios.dashboard_pilot import settled
from tests.support.scenarios.scripted_stream import clock, scripted_source

from envtui.tui.app import DashboardOptions, EnvTuiApp

THEMES = ("envtui-dark", "envtui-light", "envtui-high-contrast", "envtui-okabe-ito")
SIZES = ((120, 40), (80, 24))

pytestmark = pytest.mark.tui


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", THEMES)
def test_main_screen(snap_compare: Any, theme: str, size: tuple[int, int]) -> None:
    app = EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock, theme=theme))

    async def settle(pilot: Pilot[Any]) -> None:
        await settled(app, pilot)  # bounded: the scripted stream is in and drawn

    assert snap_compare(app, terminal_size=size, run_before=settle)


KEYS = {
    "the-log-focused-at-a-past-step": ("2", "left_square_bracket"),
    "the-incidents-tab-by-its-digit": ("5",),
}
"""Keys pressed before a snapshot of how focus and the step shown are told (▶ in the
focused panel's title, the table saying it is live while the context shows a past step,
the digit's tab)."""


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("keys", KEYS)
def test_focus_and_the_step_shown(snap_compare: Any, keys: str, size: tuple[int, int]) -> None:
    app = EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock))

    async def settle(pilot: Pilot[Any]) -> None:
        await settled(app, pilot)
        await pilot.press(*KEYS[keys])
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=settle)
