"""The status board both live producers share: changes, primary moves, each reported once."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.support.connection_fold import connection_states

from envtui.steps.board import StatusBoard
from envtui.vocabulary.events import (
    EnvironmentConnected,
    EnvironmentDisconnected,
    EnvironmentStatus,
    Event,
    WarningMessage,
    thread_event,
)
from envtui.vocabulary.terms import LiveState


class Statuses:
    """The environments' present states, as a producer would hold them."""

    def __init__(self, **states: LiveState) -> None:
        self.states = dict(states)

    def state(self, env_id: str) -> LiveState:
        return self.states.get(env_id, "starting")

    def describe(self, env_id: str) -> EnvironmentStatus:
        return EnvironmentStatus(
            environment_id=env_id, kind="ssh", status=self.state(env_id), primary=True
        )


def _board(order: list[str], **states: LiveState) -> tuple[StatusBoard, Statuses]:
    statuses = Statuses(**states)
    board = StatusBoard(statuses.state, statuses.describe)
    board.set_order(order)
    return board, statuses


def _summary(messages: list[EnvironmentStatus]) -> list[tuple[str, str, bool]]:
    return [(m.environment_id, m.status, m.primary) for m in messages]


def test_the_primary_is_the_first_ready_environment_in_selection_order() -> None:
    board, _ = _board(["a", "b", "c"], a="unavailable", b="ready", c="ready")
    assert board.primary() == "b"
    assert _summary(board.report("a", "b", "c")) == [
        ("a", "unavailable", False),
        ("b", "ready", True),
        ("c", "ready", False),
    ]


def test_a_primary_move_reports_the_old_and_the_new_primary_once() -> None:
    board, statuses = _board(["a", "b", "c"], a="starting", b="ready", c="ready")
    board.report("a", "b", "c")
    statuses.states["a"] = "ready"
    assert _summary(board.report("a")) == [("a", "ready", True), ("b", "ready", False)]
    assert board.report("a") == []  # nothing changed since: nothing is said again


def test_a_change_noticed_by_another_observer_first_is_still_said_once() -> None:
    board, statuses = _board(["a", "b"], a="starting", b="ready")
    board.report("a", "b")
    statuses.states["a"] = "ready"
    # b's observer runs first: the primary is computed from present values, so a moves now
    assert _summary(board.report("b")) == [("b", "ready", False), ("a", "ready", True)]
    assert board.report("a") == []


def test_forgetting_an_environment_reports_it_again() -> None:
    board, _ = _board(["a"], a="ready")
    assert len(board.report("a")) == 1
    board.forget("a")
    assert _summary(board.report("a")) == [("a", "ready", True)]


def test_environments_outside_the_order_are_not_reported() -> None:
    board, _ = _board(["a"], a="ready", z="ready")
    assert _summary(board.report("z", "a")) == [("a", "ready", True)]


def test_a_new_order_forgets_the_deselected() -> None:
    board, _ = _board(["a", "b"], a="ready", b="ready")
    board.report("a", "b")
    board.set_order(["b"])
    assert _summary(board.report()) == [("b", "ready", True)]
    board.set_order(["a", "b"])
    assert _summary(board.report("a")) == [("a", "ready", True), ("b", "ready", False)]


AT = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _event(msg: EnvironmentConnected | EnvironmentDisconnected, seconds: int | None) -> Event:
    at = None if seconds is None else AT.replace(second=seconds)
    return thread_event(msg, at=at)


def test_connection_states_take_the_latest_event_up_to_a_time() -> None:
    events = [
        _event(EnvironmentConnected(environment_id="a"), 1),
        _event(EnvironmentConnected(environment_id="b"), None),
        thread_event(WarningMessage(message="ignored"), at=AT.replace(second=2)),
        _event(EnvironmentDisconnected(environment_id="a"), 3),
    ]
    assert connection_states(events) == {"a": "disconnected", "b": "connected"}
    assert connection_states(events, until=AT.replace(second=2)) == {
        "a": "connected",
        "b": "connected",
    }


def test_nothing_after_an_environment_of_unknown_status_is_primary() -> None:
    """An attach hears a remote's connection before local's first status: no false primary."""
    known: dict[str, LiveState] = {}

    def describe(env_id: str) -> EnvironmentStatus:
        return EnvironmentStatus(
            environment_id=env_id, kind="exec-server", status=known.get(env_id, "starting")
        )

    board = StatusBoard(known.get, describe)
    board.set_order(["local", "remote"])
    known["remote"] = "ready"  # connected, while local has not answered yet
    assert board.primary() is None
    assert _summary(board.report("remote")) == [("remote", "ready", False)]
    known["local"] = "ready"
    assert _summary(board.report("local")) == [("local", "ready", True)]
    # had local answered "starting" instead, the remote would have been primary
    known["local"] = "starting"
    assert _summary(board.report("local")) == [
        ("local", "starting", False),
        ("remote", "ready", True),
    ]


def test_connection_states_take_a_time_without_an_offset_as_utc() -> None:
    event = thread_event(
        EnvironmentConnected(environment_id="a"), at=datetime(2026, 1, 1, 12, tzinfo=UTC)
    )
    assert connection_states([event], until=datetime(2026, 1, 1, 13)) == {"a": "connected"}
    assert connection_states([event], until=datetime(2026, 1, 1, 11)) == {}
