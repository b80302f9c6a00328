"""The persisted snapshot and restoring it (environment-context.md §4)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envtui.context.model import (
    DisabledProfile,
    EnvironmentsState,
    EnvironmentState,
    FileSystemContext,
    NetworkContext,
)
from envtui.context.snapshot import restore_snapshot, snapshot


def test_keys_come_in_codex_declaration_order() -> None:
    state = EnvironmentsState(
        environments={
            "b": EnvironmentState(cwd="/b", shell="zsh"),
            "a": EnvironmentState(cwd="/a", shell="bash", is_primary=True),
        },
        subagents="- x",
        filesystem=FileSystemContext(permission_profile=DisabledProfile()),
        network=NetworkContext(allowed_domains=("x",)),
        timezone="Etc/UTC",
        current_date="2026-01-01",
    )
    text = json.dumps(snapshot(state), separators=(",", ":"))
    assert text.startswith(
        '{"environments":{"a":{"cwd":"/a","status":"available","shell":"bash","is_primary":true},'
        '"b":{"cwd":"/b","status":"available","shell":"zsh"}},"current_date":"2026-01-01",'
        '"timezone":"Etc/UTC","network":"<network enabled=\\"true\\"><allowed>x</allowed></network>",'
        '"filesystem":"<filesystem>'
    )
    assert text.endswith('"subagents":"- x"}')


def test_single_environment_never_stores_is_primary() -> None:
    state = EnvironmentsState(environments={"a": EnvironmentState(cwd="/a", is_primary=True)})
    assert snapshot(state) == {"environments": {"a": {"cwd": "/a", "status": "available"}}}


def test_failed_entry_is_cwd_status_error() -> None:
    state = EnvironmentsState(
        environments={
            "a": EnvironmentState(cwd="/a", is_primary=True),
            "p": EnvironmentState(cwd="/p", status="failed", error="gone"),
        }
    )
    assert snapshot(state)["environments"]["p"] == {
        "cwd": "/p",
        "status": "failed",
        "error": "gone",
    }


def test_restore_round_trips_a_snapshot() -> None:
    state = EnvironmentsState(
        environments={
            "a": EnvironmentState(cwd="/a", shell="bash", is_primary=True),
            "b": EnvironmentState(cwd="/b", status="starting"),
            "p": EnvironmentState(cwd="/p", status="failed", error="gone"),
        },
        network=NetworkContext(denied_domains=("d",)),
        subagents="- s",
    )
    restored = restore_snapshot(json.loads(json.dumps(snapshot(state))))
    assert restored is not None
    assert snapshot(restored) == snapshot(state)
    assert restored.environments == state.environments


def test_restored_single_environment_is_primary_exactly_when_available() -> None:
    ready = restore_snapshot({"environments": {"a": {"cwd": "/a", "status": "available"}}})
    starting = restore_snapshot({"environments": {"a": {"cwd": "/a", "status": "starting"}}})
    assert ready is not None
    assert ready.environments["a"].is_primary
    assert starting is not None
    assert not starting.environments["a"].is_primary


def test_restore_ignores_unknown_keys() -> None:
    raw = {
        "environments": {"a": {"cwd": "/a", "status": "available", "new": 1}},
        "later_field": [1],
    }
    assert restore_snapshot(raw) is not None


@pytest.mark.parametrize(
    "raw",
    [
        None,
        [],
        {},
        {"environments": []},
        {"environments": {"a": "x"}},
        {"environments": {"a": {"cwd": "file:///a"}}},
        {"environments": {"a": {"cwd": "/a", "status": "unavailable"}}},
        {"environments": {"a": {"cwd": 1, "status": "available"}}},
        {"environments": {"a": {"cwd": "/a", "status": "available", "shell": 3}}},
        {"environments": {"a": {"cwd": "/a", "status": "available", "is_primary": None}}},
        {"environments": {"a": {"cwd": "/a", "status": "available", "is_primary": 1}}},
        {"environments": {}, "network": {"domains": {}}},
        {"environments": {}, "current_date": 20260101},
        {"environments": {"p": {"cwd": "/p", "status": "failed", "shell": "bash"}}},
    ],
    ids=lambda raw: json.dumps(raw)[:60],
)
def test_shapes_codex_cannot_restore_are_unknown(raw: Any) -> None:
    assert restore_snapshot(raw) is None


def test_failed_status_is_unknown_under_codex_0150_rules() -> None:
    raw = {"environments": {"p": {"cwd": "/p", "status": "failed", "error": "x"}}}
    assert restore_snapshot(raw) is not None
    assert restore_snapshot(raw, allow_failed=False) is None
