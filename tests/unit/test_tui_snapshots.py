"""Snapshots of the main screen in each built-in theme, at 120x40 and 80x24."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.scripted import clock, scripted_events, scripted_source

from envtui.tui.app import DashboardOptions, EnvTuiApp

THEMES = ("envtui-dark", "envtui-light", "envtui-high-contrast", "envtui-okabe-ito")
SIZES = ((120, 40), (80, 24))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", THEMES)
def test_main_screen(snap_compare: Any, theme: str, size: tuple[int, int]) -> None:
    async def settle(pilot: Any) -> None:
        for _ in range(200):  # bounded: the scripted stream is in and drawn
            table = pilot.app.screen.query("EnvironmentTable")
            if (
                pilot.app.store.counters["total"] == len(scripted_events())
                and table
                and table.first().row_count == 3
            ):
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)

    app = EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock, theme=theme))
    assert snap_compare(app, terminal_size=size, run_before=settle)
