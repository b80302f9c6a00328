"""RFC 7386 merge patches with serde's type-strict equality (environment-context.md §6)."""

from __future__ import annotations

from envtui.context.patch import (
    apply_merge_patch,
    apply_world_patch,
    create_merge_patch,
    json_equal,
    world_merge_patch,
)


def test_true_to_one_is_a_change() -> None:
    assert create_merge_patch({"a": True}, {"a": 1}) == {"a": 1}


def test_int_to_float_is_a_change() -> None:
    assert create_merge_patch({"a": 1}, {"a": 1.0}) == {"a": 1.0}
    assert not json_equal(1, 1.0)
    assert not json_equal(0, False)


def test_equal_values_give_no_patch() -> None:
    assert create_merge_patch({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}) is None


def test_arrays_are_replaced_whole() -> None:
    assert create_merge_patch({"a": [1, 2]}, {"a": [1]}) == {"a": [1]}


def test_removed_keys_come_first_as_null() -> None:
    patch = create_merge_patch({"z": 1, "a": 2}, {"a": 3, "b": 4})
    assert isinstance(patch, dict)
    assert list(patch) == ["z", "a", "b"]
    assert patch == {"z": None, "a": 3, "b": 4}


def test_object_replacing_a_scalar_is_sent_whole() -> None:
    assert create_merge_patch(1, {"a": {"b": 2}}) == {"a": {"b": 2}}


def test_apply_merges_removes_and_replaces() -> None:
    assert apply_merge_patch(
        {"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": None, "e": [None]}, "d": None}
    ) == {"a": {"c": 2, "e": [None]}}


def test_apply_into_a_scalar_drops_nested_nulls() -> None:
    assert apply_merge_patch("text", {"a": {"b": None, "c": 1}}) == {"a": {"c": 1}}


def test_world_patch_removes_and_adds_sections() -> None:
    before = {"environments": {"environments": {}}, "gone": {"x": 1}}
    after = {"environments": {"environments": {}}, "new": {"y": 2}}
    patch = world_merge_patch(before, after)
    assert patch == {"gone": None, "new": {"y": 2}}
    assert patch is not None
    assert apply_world_patch(before, patch) == after


def test_world_patch_of_equal_worlds_is_none() -> None:
    assert world_merge_patch({"a": {"b": 1}}, {"a": {"b": 1}}) is None
