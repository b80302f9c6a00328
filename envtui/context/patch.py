"""RFC 7386 JSON merge patches of world-state snapshots, with serde's type-strict equality.

Codex persists the change between two world-state snapshots as a merge patch. Its JSON
equality is type-strict (``true != 1``, ``1 != 1.0``), which Python's ``==`` is not, so a
naive comparison would miss a change from ``true`` to ``1`` and persist nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

JSON = Any
"""A value as the standard ``json`` module parses it (int and float kept apart)."""


def json_equal(a: JSON, b: JSON) -> bool:
    """``serde_json::Value`` equality: the same type and the same value, recursively."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def remove_null_object_fields(value: JSON) -> JSON:
    """Drop object-valued nulls recursively; arrays (and objects inside them) are kept as is."""
    if isinstance(value, dict):
        return {k: remove_null_object_fields(v) for k, v in value.items() if v is not None}
    return value


def create_merge_patch(previous: JSON, current: JSON) -> JSON | None:
    """The merge patch turning ``previous`` into ``current``, or None when they are equal.

    Scalars and arrays are replaced whole; removed keys come first, as ``null``. Equal
    members are skipped with the cheap equality test; only differing ones are descended into.
    """
    if previous is current:
        return None
    if isinstance(current, dict) and isinstance(previous, dict):
        patch: dict[str, JSON] = {key: None for key in previous if key not in current}
        for key, value in current.items():
            if key not in previous:
                patch[key] = value
            elif not json_equal(previous[key], value):
                sub = create_merge_patch(previous[key], value)
                if sub is not None:
                    patch[key] = sub
        return patch or None
    if json_equal(previous, current):
        return None
    return current


def apply_merge_patch(target: JSON, patch: JSON) -> JSON:
    """RFC 7386 apply: objects merge, ``null`` removes, anything else replaces.

    A non-object target becomes ``{}`` before an object patch merges into it, so nested
    nulls of the patch are dropped.
    """
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            out[key] = apply_merge_patch(out.get(key), value)
        else:
            out[key] = value  # what the call would return, without the call
    return out


def world_merge_patch(
    previous: Mapping[str, JSON], current: Mapping[str, JSON]
) -> dict[str, JSON] | None:
    """The patch between two world-state snapshots (section id → section snapshot).

    None means nothing changed and nothing is persisted.
    """
    patch: dict[str, JSON] = {}
    for key in sorted(previous):
        if key not in current:
            patch[key] = None
    for key in sorted(current):
        if key in previous:
            sub = create_merge_patch(previous[key], current[key])
            if sub is not None:
                patch[key] = sub
        else:
            patch[key] = current[key]
    return patch or None


def apply_world_patch(sections: Mapping[str, JSON], patch: Mapping[str, JSON]) -> dict[str, JSON]:
    """Apply a world-state patch: ``null`` removes a section, anything else merges into it."""
    target = sections if isinstance(sections, dict) else dict(sections)
    result: dict[str, JSON] = apply_merge_patch(
        target, patch if isinstance(patch, dict) else dict(patch)
    )
    return result  # a new dict: the merge copies each object it changes, ``sections`` too
