"""The check's memory between steps: reused only for snapshots the same in every way."""

from __future__ import annotations

from envtui.rollout.check_memo import KEPT, Recent, Restorer, same_json

SNAPSHOT = {"environments": {"local": {"cwd": "/w", "status": "available", "is_primary": True}}}


def test_same_json_tells_types_and_key_order_apart() -> None:
    assert same_json({"a": 1, "b": [True]}, {"a": 1, "b": [True]})
    assert not same_json({"a": 1}, {"a": True})  # equal in Python, not in JSON
    assert not same_json({"a": 1}, {"a": 1.0})
    assert not same_json({"a": 1, "b": 2}, {"b": 2, "a": 1})


def test_an_equal_snapshot_is_restored_once_and_a_different_one_anew() -> None:
    restore = Restorer()
    first = restore(SNAPSHOT)
    assert first is not None
    again = {"environments": {"local": dict(SNAPSHOT["environments"]["local"])}}
    assert restore(again) is first
    moved = {"environments": {"local": {"cwd": "/w", "status": "available", "is_primary": 1}}}
    assert restore(moved) is None  # 1 is not a boolean: Codex cannot restore it


def test_recent_keeps_its_last_answers_only() -> None:
    recent: Recent[int] = Recent()
    keys = [(object(), f"text {i}") for i in range(KEPT + 1)]
    for number, key in enumerate(keys):
        recent.put(key, number)
    assert recent.get(keys[0]) is None
    assert recent.get((keys[-1][0], "text " + str(KEPT))) == (KEPT,)  # strings by value
    assert recent.get((object(), keys[-1][1])) is None  # objects by identity
