"""Step capture end to end, including the scenario behind Codex's StepContext change."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.support.fakes.fake_environments import FakeLocal, FakeRemote, Recorder, settle

from envtui.environments.manager import EnvironmentManager
from envtui.steps.capture import StepCapture, route
from envtui.steps.rules import check_step
from envtui.steps.section import SectionSettings
from envtui.steps.selection import Selection
from envtui.steps.tools import by_name
from envtui.steps.values import ToolCall
from envtui.vocabulary.profiles import Profile

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


async def _local_and_devbox() -> tuple[FakeLocal, FakeRemote, EnvironmentManager]:
    """A manager with ``local`` selected before ``devbox``, both still starting."""
    local, devbox = FakeLocal("local"), FakeRemote("devbox")
    manager = EnvironmentManager(Recorder())
    manager.register(local)
    manager.register(devbox)
    manager.update_selections([Selection("local", "/r"), Selection("devbox", "/r")])
    await settle()
    return local, devbox, manager


def _capture(profile: Profile) -> StepCapture:
    return StepCapture(SectionSettings(profile, "Europe/Berlin"), clock=lambda: NOW)


@pytest.mark.parametrize("profile", [Profile.CODEX_0150, Profile.CODEX_0171])
async def test_a_call_routed_by_the_live_primary_runs_elsewhere_and_by_the_step_does_not(
    profile: Profile,
) -> None:
    a, b = FakeRemote("A"), FakeRemote("B")  # A is selected first and slow to start
    manager = EnvironmentManager(Recorder())
    manager.register(a)
    manager.register(b)
    manager.update_selections([Selection("A", "/a"), Selection("B", "/b")])
    await settle()
    b.become_ready()
    await settle()
    turn = manager.snapshot()
    capture = _capture(profile)
    step = capture.capture(turn.refreshed(), connection={})
    assert step.view.primary == "B"
    assert step.findings == ()
    exec_command = by_name(step.tools)["exec_command"]
    if profile is Profile.CODEX_0150:
        assert exec_command.environment_id == "absent"  # only B is ready: a single environment

    a.become_ready()  # before the call executes
    await settle()
    call = ToolCall("exec_command", None)
    live = route(call, turn.refreshed())
    assert live == "A"
    routed_live = check_step(
        step.view,
        step.tools,
        profile,
        calls=[call._replace(executed_in=live)],
        connection={},
    )
    assert [f.code for f in routed_live.findings] == ["execution-routed-elsewhere"]
    assert (
        routed_live.findings[0].message
        == "exec_command ran in 'A', but the step routed to the step's primary 'B'"
    )

    by_step = route(call, step.snapshot)
    assert by_step == "B"
    assert (
        check_step(
            step.view,
            step.tools,
            profile,
            calls=[call._replace(executed_in=by_step)],
            connection={},
        ).findings
        == []
    )
    await manager.aclose()


async def test_each_step_records_full_text_diff_patch_and_plan_from_one_snapshot() -> None:
    local, devbox = FakeLocal("local"), FakeRemote("devbox")
    manager = EnvironmentManager(Recorder())
    manager.register(local)
    manager.register(devbox)
    manager.update_selections([Selection("devbox", "/repo"), Selection("local", "/repo")])
    await settle()
    local.become_ready("bash")
    await settle()
    turn = manager.snapshot()
    capture = _capture(Profile.CODEX_0171)
    first = capture.capture(turn.refreshed(), connection={})
    assert first.number == 1
    assert first.diff_text == first.full_text
    assert first.full_text == (
        "<environment_context>\n"
        "  <environments>\n"
        '    <environment id="devbox" primary="false">\n'
        "      <cwd>/repo</cwd>\n"
        "      <status>starting</status>\n"
        "    </environment>\n"
        '    <environment id="local" primary="true">\n'
        "      <cwd>/repo</cwd>\n"
        "      <shell>bash</shell>\n"
        "    </environment>\n"
        "  </environments>\n"
        "  <current_date>2026-11-30</current_date>\n"
        "  <timezone>Europe/Berlin</timezone>\n"
        "</environment_context>"
    )
    assert first.patch == {"environments": first.section}
    devbox.become_ready("zsh")
    await settle()
    second = capture.capture(turn.refreshed(), connection={})
    assert second.number == 2
    assert second.patch == {
        "environments": {
            "environments": {
                "devbox": {"status": "available", "shell": "zsh", "is_primary": True},
                "local": {"is_primary": None},
            }
        }
    }
    assert second.diff_text is not None
    assert '<environment id="devbox" primary="true">' in second.diff_text
    assert '<environment id="local" primary="false">' in second.diff_text
    assert by_name(second.tools)["exec_command"].environment_id == "optional"
    third = capture.capture(turn.refreshed(), connection={})
    assert (third.diff_text, third.patch) == (None, None)
    await manager.aclose()


async def test_failed_environment_follows_the_profile() -> None:
    local, devbox, manager = await _local_and_devbox()
    local.become_ready()
    await settle()
    turn = manager.snapshot()
    old, new = _capture(Profile.CODEX_0150), _capture(Profile.CODEX_0171)
    for capture in (old, new):
        capture.capture(turn.refreshed(), connection={})
    devbox.fail("exec-server transport closed")
    await settle()
    gone = old.capture(turn.refreshed(), connection={})
    kept = new.capture(turn.refreshed(), connection={})
    assert gone.diff_text is not None
    assert '<environment id="devbox" status="unavailable" />' in gone.diff_text
    assert kept.diff_text is not None
    assert (
        "<status>failed</status>\n      <error>exec-server transport closed</error>"
        in kept.diff_text
    )
    await manager.aclose()


async def test_stale_available_on_a_live_step() -> None:
    local, devbox, manager = await _local_and_devbox()
    local.become_ready()
    devbox.become_ready()
    await settle()
    turn = manager.snapshot()
    capture = _capture(Profile.CODEX_0171)
    devbox.fail("exec-server was killed by SIGKILL")  # the snapshot keeps it ready, as Codex does
    await settle()
    step = capture.capture(turn.refreshed(), connection={"devbox": "disconnected"})
    assert [(f.code, f.environment_id) for f in step.findings] == [("stale-available", "devbox")]
    await manager.aclose()
