"""Each environment as a rollout's snapshot recorded it: plain values, no event models.

The rollout's events (:mod:`envtui.rollout.emit`) make these into ``environment_status``
messages; the sessions index reads only their status, kind and primary, and so indexes a
tree without building a single pydantic model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envtui.vocabulary.terms import LOCAL_ID, LiveState

RECORDED_STATUS: dict[str, LiveState] = {
    "available": "ready",
    "starting": "starting",
    "failed": "unavailable",
}
"""A snapshot's status in the dashboard's words: available is ready, failed unavailable."""


@dataclass(frozen=True, slots=True)
class RecordedEnvironment:
    """One environment of a snapshot, in the dashboard's words."""

    environment_id: str
    kind: str
    status: LiveState
    primary: bool
    shell: str | None
    cwd: str | None
    error: str | None

    def as_fields(self) -> dict[str, Any]:
        """Its fields by name: those of the ``environment_status`` message it becomes."""
        return {name: getattr(self, name) for name in self.__slots__}


def recorded_environments(section: Any) -> dict[str, RecordedEnvironment]:
    """Each environment a snapshot section records (not a live status), by id.

    The primary is the one the snapshot flags (or the only one, when it is available);
    an entry of a shape Codex does not write is left out.
    """
    entries = section.get("environments") if isinstance(section, dict) else None
    if not isinstance(entries, dict):
        return {}
    recorded: dict[str, RecordedEnvironment] = {}
    for env_id, entry in entries.items():
        raw = entry.get("status") if isinstance(entry, dict) else None
        status = RECORDED_STATUS.get(raw) if isinstance(raw, str) else None
        if status is None or not isinstance(entry, dict):
            continue
        shell, cwd, error = (entry.get(k) for k in ("shell", "cwd", "error"))
        recorded[env_id] = RecordedEnvironment(
            environment_id=env_id,
            kind="local" if env_id == LOCAL_ID else "remote",
            status=status,
            primary=entry.get("is_primary") is True or (len(entries) == 1 and status == "ready"),
            shell=shell if isinstance(shell, str) else None,
            cwd=cwd if isinstance(cwd, str) else None,
            error=error if isinstance(error, str) and status == "unavailable" else None,
        )
    return recorded
