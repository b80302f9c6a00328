"""Codex's selection rules, one test per rule (codex-protocol.md §1.3, §2)."""

from __future__ import annotations

import pytest

from tests.support.fakes.fake_environments import FakeLocal, FakeRemote, settle
from tests.support.fakes.recorded_manager import manager_with

from envtui.environments.local import LocalEnvironment
from envtui.steps.selection import Selection
from envtui.vocabulary.events import EnvironmentRemoved, WarningMessage


def _sel(env_id: str, cwd: str = "/w", roots: tuple[str, ...] = ()) -> Selection:
    return Selection(env_id, cwd, roots)


async def test_duplicate_ids_keep_the_first() -> None:
    manager, _ = manager_with(FakeRemote("a"), FakeRemote("b"))
    manager.update_selections([_sel("a", "/first"), _sel("b"), _sel("a", "/second")])
    assert [(s.environment_id, s.cwd) for s in manager.selections] == [("a", "/first"), ("b", "/w")]
    await manager.aclose()


async def test_unknown_id_is_skipped_with_a_warning() -> None:
    manager, recorder = manager_with(FakeRemote("a"))
    manager.update_selections([_sel("ghost"), _sel("a")])
    assert [s.environment_id for s in manager.selections] == ["a"]
    (warning,) = recorder.messages(WarningMessage)
    assert warning.environment_id == "ghost"
    assert "ghost" in warning.message
    await manager.aclose()


async def test_local_id_is_reserved_for_the_local_environment() -> None:
    manager, _ = manager_with()
    with pytest.raises(ValueError, match="reserved"):
        manager.register(FakeRemote("local"))
    manager.register(FakeLocal("local"))
    await manager.aclose()


async def test_resolution_is_reused_when_id_cwd_and_roots_match() -> None:
    manager, _ = manager_with(FakeRemote("a"))
    manager.update_selections([_sel("a", "/w", ("/w",))])
    first = manager.snapshot().entries[0].resolution
    manager.update_selections([_sel("a", "/w", ("/w",))])
    assert manager.snapshot().entries[0].resolution is first
    await manager.aclose()


@pytest.mark.parametrize("change", ["cwd", "roots"])
async def test_changed_cwd_or_roots_start_a_new_resolution(change: str) -> None:
    manager, _ = manager_with(FakeRemote("a"))
    manager.update_selections([_sel("a", "/w", ("/w",))])
    first = manager.snapshot().entries[0].resolution
    changed = _sel("a", "/x", ("/w",)) if change == "cwd" else _sel("a", "/w", ("/r",))
    manager.update_selections([changed])
    assert manager.snapshot().entries[0].resolution is not first
    await settle()
    assert first is not None
    assert first.cancelled()
    await manager.aclose()


async def test_failed_resolution_is_kept_until_the_next_update_and_then_replaced() -> None:
    remote = FakeRemote("a")
    manager, _ = manager_with(remote)
    manager.update_selections([_sel("a")])
    await settle()
    remote.fail("connection refused")
    await settle()
    entry = manager.snapshot().entries[0]
    assert (entry.state, entry.error) == ("failed", "connection refused")
    remote.become_ready()  # the environment recovered, but the failed resolution stays
    await settle()
    assert manager.snapshot().entries[0].state == "failed"
    manager.update_selections([_sel("a")])
    await settle()
    assert manager.snapshot().entries[0].state == "ready"
    await manager.aclose()


async def test_listener_is_reused_for_the_same_instance() -> None:
    remote = FakeRemote("a")
    manager, recorder = manager_with(remote)
    manager.update_selections([_sel("a")])
    manager.update_selections([_sel("a", "/elsewhere")])  # new resolution, same instance
    await settle()
    assert remote.connection.subscriber_count == 1
    remote.become_ready()
    await settle()
    assert recorder.connection_events() == [("", "environment_connected", "a")]
    await manager.aclose()


async def test_listener_of_a_replaced_instance_is_aborted() -> None:
    old, new = FakeRemote("a"), FakeRemote("a")
    manager, recorder = manager_with(old)
    manager.update_selections([_sel("a")])
    await settle()
    manager.register(new)
    manager.update_selections([_sel("a")])
    await settle()
    assert old.connection.subscriber_count == 0
    old.become_ready()
    await settle()
    assert recorder.connection_events() == []
    new.become_ready()
    await settle()
    assert recorder.connection_events() == [("", "environment_connected", "a")]
    await manager.aclose()


async def test_listener_is_aborted_when_the_environment_leaves_the_selection() -> None:
    remote = FakeRemote("a")
    manager, recorder = manager_with(remote, FakeRemote("b"))
    manager.update_selections([_sel("a"), _sel("b")])
    await settle()
    manager.update_selections([_sel("b")])
    await settle()
    assert remote.connection.subscriber_count == 0
    remote.become_ready()
    await settle()
    assert recorder.connection_events() == []
    assert [m.environment_id for m in recorder.messages(EnvironmentRemoved)] == ["a"]
    await manager.aclose()


async def test_connection_events_are_transitions_after_subscribing_with_empty_id() -> None:
    remote = FakeRemote("a")
    remote.connection.set("connected")  # already connected before the listener
    manager, recorder = manager_with(remote)
    manager.update_selections([_sel("a")])
    await settle()
    assert recorder.connection_events() == []
    remote.fail()
    remote.become_ready()
    await settle()
    assert recorder.connection_events() == [
        ("", "environment_disconnected", "a"),
        ("", "environment_connected", "a"),
    ]
    await manager.aclose()


async def test_local_environments_never_emit_connection_events(tmp_path: object) -> None:
    local = FakeLocal("local")
    manager, recorder = manager_with(local)
    manager.update_selections([_sel("local")])
    await settle()
    local.become_ready()
    local.fail()
    await settle()
    assert recorder.connection_events() == []
    await manager.aclose()


async def test_snapshot_lists_ready_starting_and_failed_in_selection_order() -> None:
    a, b, c = FakeRemote("a"), FakeRemote("b"), FakeRemote("c")
    manager, _ = manager_with(a, b, c)
    manager.update_selections([_sel("c"), _sel("a"), _sel("b")])
    await settle()
    a.become_ready()
    b.fail("boom")
    await settle()
    snapshot = manager.snapshot()
    assert [(e.environment_id, e.state) for e in snapshot.entries] == [
        ("c", "starting"),
        ("a", "ready"),
        ("b", "failed"),
    ]
    await manager.aclose()


async def test_non_blocking_snapshot_peeks_and_blocking_waits() -> None:
    remote = FakeRemote("a")
    manager, _ = manager_with(remote)
    manager.update_selections([_sel("a")])
    assert manager.snapshot().entries[0].state == "starting"
    assert (await manager.snapshot_blocking(timeout=0.05)).entries[0].state == "starting"

    async def later() -> None:
        await settle()
        remote.become_ready()

    _, snapshot = await __import__("asyncio").gather(later(), manager.snapshot_blocking(timeout=5))
    assert snapshot.entries[0].state == "ready"
    await manager.aclose()


async def test_refresh_readiness_promotes_finished_entries_but_keeps_the_selection() -> None:
    a, b = FakeRemote("a"), FakeRemote("b")
    manager, _ = manager_with(a, b)
    manager.update_selections([_sel("a")])
    turn = manager.snapshot()
    manager.update_selections([_sel("b"), _sel("a")])  # a newer selection during the turn
    await settle()
    a.become_ready()
    await settle()
    refreshed = turn.refreshed()
    assert [(e.environment_id, e.state) for e in refreshed.entries] == [("a", "ready")]
    await manager.aclose()


async def test_primary_is_the_first_ready_not_the_first_selected() -> None:
    a, b, c = FakeRemote("a"), FakeRemote("b"), FakeRemote("c")
    manager, _ = manager_with(a, b, c)
    manager.update_selections([_sel("a"), _sel("b"), _sel("c")])
    await settle()
    c.become_ready()
    b.become_ready()
    await settle()
    snapshot = manager.snapshot()
    assert snapshot.primary() is not None
    assert snapshot.primary().environment_id == "b"  # type: ignore[union-attr]
    assert snapshot.primary_workspace_roots() == ()
    await manager.aclose()


async def test_local_accessor_is_the_first_ready_non_remote() -> None:
    remote, local = FakeRemote("r"), FakeLocal("local")
    manager, _ = manager_with(remote, local)
    manager.update_selections([_sel("r"), _sel("local")])
    await settle()
    remote.become_ready()
    local.become_ready()
    await settle()
    snapshot = manager.snapshot()
    assert snapshot.local() is not None
    assert snapshot.local().environment_id == "local"  # type: ignore[union-attr]
    assert snapshot.primary().environment_id == "r"  # type: ignore[union-attr]
    await manager.aclose()


async def test_single_local_environment_is_none_while_anything_starts() -> None:
    remote, local = FakeRemote("r"), FakeLocal("local")
    manager, _ = manager_with(remote, local)
    manager.update_selections([_sel("local"), _sel("r")])
    await settle()
    local.become_ready()
    await settle()
    assert manager.snapshot().single_local_environment() is None  # r still starts
    remote.fail()
    await settle()
    single = manager.snapshot().single_local_environment()
    assert single is not None
    assert single.environment_id == "local"
    await manager.aclose()


async def test_single_local_environment_is_none_for_a_single_remote() -> None:
    remote = FakeRemote("r")
    manager, _ = manager_with(remote)
    manager.update_selections([_sel("r")])
    await settle()
    remote.become_ready()
    await settle()
    assert manager.snapshot().single_local_environment() is None
    await manager.aclose()


async def test_primary_workspace_roots_are_selection_zeros_whatever_its_state() -> None:
    manager, _ = manager_with(FakeRemote("a"), FakeRemote("b"))
    manager.update_selections([_sel("a", "/a", ("/root-a",)), _sel("b", "/b", ("/root-b",))])
    assert manager.snapshot().primary_workspace_roots() == ("/root-a",)
    await manager.aclose()


async def test_status_events_follow_the_live_primary() -> None:
    a, b = FakeRemote("a"), FakeRemote("b")
    manager, recorder = manager_with(a, b)
    manager.update_selections([_sel("a"), _sel("b")])
    await settle()
    b.become_ready()
    await settle()
    a.become_ready()
    await settle()
    assert recorder.statuses() == [
        ("a", "starting", False),
        ("b", "starting", False),
        ("b", "ready", True),
        ("a", "ready", True),
        ("b", "ready", False),
    ]
    await manager.aclose()


async def test_local_environment_checks_its_cwd(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELL", "/usr/bin/fish")
    good = LocalEnvironment("local", str(tmp_path))
    bad = LocalEnvironment("other", f"{tmp_path}/missing")
    readiness = await good.wait_ready()
    assert (readiness.shell_name, readiness.shell_path) == ("fish", "/usr/bin/fish")
    with pytest.raises(Exception, match="cwd does not exist"):
        await bad.wait_ready()
    await good.aclose()
    await bad.aclose()


async def test_a_replaced_instance_starts_even_when_its_resolution_is_reused() -> None:
    old, new = FakeRemote("a"), FakeRemote("a")
    manager, _ = manager_with(old)
    manager.update_selections([_sel("a")])
    await settle()
    old.become_ready()
    await settle()
    reused = manager.snapshot().entries[0].resolution
    manager.register(new)
    manager.update_selections([_sel("a")])
    await settle()
    assert manager.snapshot().entries[0].resolution is reused  # Codex: same id, cwd and roots
    assert new.started == 1  # but the new instance has its own connection to bring up
    await manager.aclose()
