"""Reading the app-server's messages: their times, the thread a result holds, a short quote."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def emitted_at(notification: dict[str, Any]) -> datetime | None:
    """A notification's ``emittedAtMs`` as an aware time; None without one or out of range."""
    ms = notification.get("emittedAtMs")
    if not isinstance(ms, int | float) or isinstance(ms, bool):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):  # 1e300, NaN: no time at all
        return None


def thread_of(result: object) -> dict[str, Any]:
    """The ``thread`` of a ``thread/start`` or ``thread/resume`` result; ValueError if absent."""
    thread = result.get("thread") if isinstance(result, dict) else None
    if not isinstance(thread, dict) or not isinstance(thread.get("id"), str):
        raise ValueError(f"expected a thread with an id, got {preview(result)}")
    return thread


def preview(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:119] + "…"
