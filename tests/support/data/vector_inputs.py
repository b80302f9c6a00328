"""The golden vectors, and turning them into API calls and ``envtui render`` inputs."""

from __future__ import annotations

import json
from typing import Any

from tests.support.files import VECTORS_FILE

from envtui.context.documents import parse_document
from envtui.context.model import EnvironmentsState
from envtui.context.snapshot import restore_snapshot, snapshot


def load_vectors() -> list[dict[str, Any]]:
    vectors: list[dict[str, Any]] = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
    return vectors


UNREADABLE_SNAPSHOT = {"environments": {"old": {"cwd": "file:///old"}}}
"""A snapshot an older Codex wrote (no ``status``): it fails to restore, so it is Unknown."""


def sorted_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def state(document: Any) -> EnvironmentsState | None:
    return parse_document(document)


def previous_state(previous: dict[str, Any]) -> EnvironmentsState | None:
    """The vector's PREVIOUS as the diff sees it (None: Absent or Unknown)."""
    kind = previous["kind"]
    if kind in ("absent", "unknown"):
        return None
    if kind == "known":
        return parse_document(previous["state"])
    restored = restore_snapshot(previous["snapshot"])
    if kind == "unreadable_snapshot":
        assert restored is None
    return restored


def previous_document(previous: dict[str, Any]) -> Any:
    """The vector's PREVIOUS as a PREV file for ``envtui render`` (``...`` = not given)."""
    kind = previous["kind"]
    if kind == "absent":
        return ...
    if kind == "unknown":
        return UNREADABLE_SNAPSHOT
    if kind == "known":
        return previous["state"]
    return previous["snapshot"]


def previous_snapshot(previous: dict[str, Any]) -> Any:
    kind = previous["kind"]
    if kind == "known":
        prev = parse_document(previous["state"])
        assert prev is not None
        return snapshot(prev)
    return previous.get("snapshot")
