"""The check's memory between steps: reused only for snapshots the same in every way."""

from __future__ import annotations

import dataclasses
from typing import Any

from envtui.context.model import SECTION_ID
from envtui.rollout.check_memo import KEPT, Recent, Restorer, same_json
from envtui.rollout.state import WorldReplay
from envtui.steps.values import Finding, finding

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


def _world_state(state: dict[str, Any], *, full: bool = False) -> dict[str, Any]:
    return {"full": full, "state": state}


def _primary(env: str) -> dict[str, Any]:
    moved = {e: {"is_primary": e == env} for e in ("local", "build")}
    return {SECTION_ID: {"environments": moved}}


def test_a_world_patched_back_and_forth_is_the_same_object_each_time() -> None:
    replay = WorldReplay()
    both = {
        "local": {"cwd": "/w", "status": "available", "is_primary": True},
        "build": {"cwd": "/b", "status": "available", "is_primary": False},
    }
    replay.read_item(_world_state({SECTION_ID: {"environments": both}}, full=True), 1, None)
    first = replay.section()
    replay.read_item(_world_state(_primary("build")), 2, None)
    moved = replay.section()
    assert moved["environments"]["build"]["is_primary"] is True
    replay.read_item(_world_state(_primary("local")), 3, None)
    assert replay.section() is first  # patched back: the world it was
    replay.read_item(_world_state(_primary("build")), 4, None)
    assert replay.section() is moved
    assert first["environments"]["local"]["is_primary"] is True  # never changed in place


def test_a_patch_that_differs_only_in_type_or_key_order_is_applied_anew() -> None:
    replay = WorldReplay()
    base = {"local": {"cwd": "/w", "status": "available", "is_primary": True}}
    replay.read_item(_world_state({SECTION_ID: {"environments": base}}, full=True), 1, None)
    start = replay.world
    replay.read_item(_world_state({SECTION_ID: {"environments": {"local": {"n": 1}}}}), 2, None)
    replay.adopt(start)
    replay.read_item(_world_state({SECTION_ID: {"environments": {"local": {"n": True}}}}), 3, None)
    assert replay.section()["environments"]["local"]["n"] is True  # not the 1 of the same patch


def test_a_finding_of_the_steps_before_moved_to_a_new_step_is_the_same_but_for_its_step() -> None:
    found = finding("missing-environment-id", 3, "the words", tools=["a", "b"], rule="r")
    moved = found.at_step(9)
    assert moved == dataclasses.replace(found, step=9)
    assert (moved.step, found.step, moved.extra) == (9, 3, {"rule": "r"})


def test_a_finding_moved_with_other_extras_keeps_its_words_and_writes_its_fields_first() -> None:
    found = finding("context-mismatch", None, "the words")
    moved = found.at_step(4, {"line": 7, "diff": "-a\n+b"})
    assert moved == dataclasses.replace(found, step=4, extra={"line": 7, "diff": "-a\n+b"})
    assert found.extra == {}
    assert list(moved.as_json().items()) == [
        ("code", "context-mismatch"),
        ("severity", "error"),
        ("step", 4),
        ("tool", None),
        ("environment_id", None),
        ("message", "the words"),
        ("line", 7),
        ("diff", "-a\n+b"),
    ]


def test_an_extra_that_names_a_field_replaces_it_in_place_in_the_json() -> None:
    """As ``{**fields, **extra}`` does: the field keeps its place and takes the extra's value."""
    found = Finding(
        "stale-available", "warning", 2, None, None, "the words", {"message": "other", "rule": "r"}
    )
    assert list(found.as_json().items()) == [
        ("code", "stale-available"),
        ("severity", "warning"),
        ("step", 2),
        ("tool", None),
        ("environment_id", None),
        ("message", "other"),
        ("rule", "r"),
    ]
