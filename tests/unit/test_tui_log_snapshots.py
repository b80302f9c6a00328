"""Snapshots of the event log at 80x24 and 160x45: a host refused at every retry, the
steps of a minute and their finding, each one line with its count first."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.integration.test_tui_log_steps import refusing_ghost_with_steps
from tests.support.scenarios.dashboard_pilot import Feed, settled
from tests.support.scenarios.scripted_stream import clock

from envtui.tui.app import DashboardOptions, EnvTuiApp

pytestmark = pytest.mark.tui


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
def test_the_folded_log(snap_compare: Any, size: tuple[int, int]) -> None:
    events = refusing_ghost_with_steps()
    options = DashboardOptions(source_name="test", clock=clock, zone=UTC)
    app = EnvTuiApp(Feed(events), options)

    async def settle(pilot: Pilot[Any]) -> None:
        await settled(app, pilot, events=len(events))

    assert snap_compare(app, terminal_size=size, run_before=settle)
