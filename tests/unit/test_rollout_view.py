"""``envtui rollout``: the environments table from each step's recorded snapshot, and words."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest

from tests.support.data.handmade_rollouts import RolloutWriter
from tests.support.waiting import pilot_wait_until

from envtui.context.model import EnvironmentsState, EnvironmentState
from envtui.dashboard.store import StepRow, Store
from envtui.sources.rollout_follow import follow_rollout
from envtui.steps.rules import check_step
from envtui.steps.values import StepView
from envtui.tui.app import DashboardOptions, EnvTuiApp
from envtui.tui.widgets import ContextPanel, EnvironmentTable
from envtui.vocabulary.profiles import Profile

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LOCAL = EnvironmentState(cwd="/repo", shell="bash", is_primary=True)
DEVBOX_STARTING = EnvironmentState(cwd="/srv", status="starting")
PROBE_FAILED = EnvironmentState(cwd="/srv", status="failed", error="exec-server transport closed")
DEVBOX = EnvironmentState(cwd="/srv", shell="zsh")


def _rollout(tmp_path: Path) -> Path:
    writer = RolloutWriter()
    writer.turn()
    writer.step(
        EnvironmentsState(
            environments={"local": LOCAL, "devbox": DEVBOX_STARTING, "probe": PROBE_FAILED},
            current_date="2026-11-30",
        )
    )
    writer.call("exec_command", {"cmd": "ls"})
    writer.output()
    writer.step(
        EnvironmentsState(
            environments={"local": LOCAL, "devbox": DEVBOX}, current_date="2026-11-30"
        )
    )
    writer.call("exec_command", {"cmd": "ls"})
    writer.end_turn()
    writer.turn()
    writer.item("turn_context", {"cwd": "/repo"})
    writer.call("exec_command", {"cmd": "pwd"})  # nothing changed: no block at this step
    writer.end_turn()
    return writer.save(tmp_path)


def _rows(app: EnvTuiApp) -> dict[str, tuple[str, ...]]:
    table = app.screen.query_one(EnvironmentTable)
    shell = [key for key, _, _ in table._layout].index("shell")
    rows = [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]
    return {row[2]: (row[0], row[1], row[shell]) for row in rows}


@pytest.mark.tui
async def test_the_table_shows_each_steps_recorded_snapshot_and_says_so(tmp_path: Path) -> None:
    source = functools.partial(follow_rollout, _rollout(tmp_path))
    app = EnvTuiApp(source, DashboardOptions(source_name="rollout"))
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot_wait_until(pilot, lambda: len(app.store.steps) == 3, what="three steps")
        await pilot_wait_until(
            pilot,
            lambda: "step 3" in str(app.screen.query_one(EnvironmentTable).border_title),
            what="the title",
        )
        table = app.screen.query_one(EnvironmentTable)
        assert str(table.border_title) == "▶ environments · as recorded at step 3, not live"
        assert _rows(app) == {
            "local": ("★", "● ready", "bash"),
            "devbox": ("", "● ready", "zsh"),
        }
        panel = app.screen.query_one(ContextPanel)
        panel.view = "diff"
        await pilot.pause()
        assert "no context sent at this step (nothing changed)" in str(
            panel.query_one("#context-body").render()
        )


def test_the_first_steps_rows_are_ready_starting_and_unavailable_with_the_error(
    tmp_path: Path,
) -> None:
    from tests.support.whole_rollouts import read_rollout

    from envtui.rollout.emit import recorded_statuses

    first = read_rollout(_rollout(tmp_path)).steps[0]
    statuses = recorded_statuses(first.section, first.number)
    assert {i: (s.status, s.primary, s.error, s.recorded_step) for i, s in statuses.items()} == {
        "local": ("ready", True, None, 1),
        "devbox": ("starting", False, None, 1),
        "probe": ("unavailable", False, "exec-server transport closed", 1),
    }


def test_a_step_with_no_block_is_not_called_disabled() -> None:
    from envtui.tui.widgets import _no_block

    sent_nothing = StepRow(
        2, None, None, "<environment_context>…", None, {"environments": {}}, None, None, []
    )
    switched_off = StepRow(2, None, None, None, None, None, None, None, [])
    unknown_full = StepRow(2, None, None, None, "<environment_context>…", None, None, None, [])
    assert _no_block(sent_nothing) == "no context sent at this step (nothing changed)"
    assert _no_block(switched_off).startswith("context disabled")
    assert _no_block(unknown_full).startswith("the full context is not known")


def test_messages_about_several_environments_agree_in_number() -> None:
    view = StepView(number=1, ready=("a", "b"), selection=("a", "b"), marked_primary=("a",))
    lost = {"a": "disconnected", "b": "disconnected"}
    result = check_step(view, None, Profile.CODEX_0171, connection=lost)  # type: ignore[arg-type]
    (stale,) = [f for f in result.findings if f.code == "stale-available"]
    assert stale.message == (
        "the context presents 'a', 'b' as available, but the connections are known to be lost"
    )


async def test_a_rollout_rebuilds_the_status_history_from_its_steps_times(tmp_path: Path) -> None:
    """Read twice, the same transitions at the same times: each is dated by its step."""
    path = _rollout(tmp_path)
    stores = [Store(), Store()]
    for store in stores:
        await follow_rollout(path, store.apply, asyncio.Event())
    first, second = (
        {i: list(r.history.transitions) for i, r in s.environments.items()} for s in stores
    )
    assert first == second
    steps = {step.number: step.at for step in stores[0].steps}
    devbox = [(t.status, t.at) for t in first["devbox"]]
    assert devbox == [("starting", steps[1]), ("ready", steps[2])]


def _columns(app: EnvTuiApp) -> list[str]:
    return [str(key.value) for key in app.screen.query_one(EnvironmentTable).columns]


@pytest.mark.tui
@pytest.mark.parametrize("width", [80, 120, 160, 200])
async def test_a_rollouts_table_has_the_columns_of_a_live_one_at_the_same_width(
    tmp_path: Path, width: int
) -> None:
    """The live stream's host key error is long, the rollout's errors short: the columns
    shown follow the width alone."""
    from tests.support.scenarios.dashboard_pilot import settled
    from tests.support.scenarios.scripted_stream import clock, scripted_source

    live = EnvTuiApp(scripted_source, DashboardOptions(source_name="test", clock=clock))
    async with live.run_test(size=(width, 44)) as pilot:
        await settled(live, pilot)
        shown = _columns(live)
    source = functools.partial(follow_rollout, _rollout(tmp_path))
    app = EnvTuiApp(source, DashboardOptions(source_name="rollout"))
    async with app.run_test(size=(width, 44)) as pilot:
        await pilot_wait_until(pilot, lambda: len(app.store.steps) == 3, what="three steps")
        await pilot_wait_until(
            pilot, lambda: app.screen.query_one(EnvironmentTable).row_count == 2, what="rows"
        )
        assert _columns(app) == shown
    assert {"strip", "error"} <= set(shown)
