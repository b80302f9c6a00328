"""The plain words of the vocabulary: reserved ids and the states an environment, a
connection, a finding and a source can be in.

Kept apart from :mod:`envtui.vocabulary.events` (pydantic models) so that the turn logic
that only names these (selection, the rules, the incident fold) is imported without
pydantic: ``envtui sessions`` indexes a tree without building a single event model.
"""

from __future__ import annotations

from typing import Literal

THREAD_EVENT_ID = ""
"""The ``id`` of thread-level events such as connection changes: no submission caused them."""

LOCAL_ID = "local"
"""The id Codex reserves for the built-in local environment."""

LiveState = Literal["starting", "ready", "unavailable"]
ConnectionState = Literal["connected", "disconnected"]
"""A remote environment's connection, as the latest connection event left it."""
Severity = Literal["info", "warning", "error"]
SourceState = Literal["up", "down", "restarting", "ended"]
"""A source's own state: producing events, stopped with a reason, being restarted, or done
(a replay or a rollout read to its end)."""
