"""The daemon's threads as envtui keeps them: what ``thread/list``, ``thread/read`` and the
broadcast notifications say of each.

A loaded thread with no rollout (``path`` null) and not in ``thread/list`` is the Codex
TUI's short-lived title thread, not a thread of work (:attr:`DaemonThread.work`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from envtui.environments.thread_requests import thread_state
from envtui.vocabulary.thread_choices import WAITING_STATES as WAITING
from envtui.vocabulary.thread_messages import ThreadState

_STRINGS = (
    ("name", "name"),
    ("cwd", "cwd"),
    ("path", "path"),
    ("preview", "preview"),
    ("cli_version", "cliVersion"),
    ("parent", "parentThreadId"),
)
"""The string fields of a protocol ``Thread`` kept, as attribute and key; the name first."""


@dataclass
class DaemonThread:
    """One thread of the daemon."""

    id: str
    status: ThreadState | None = None
    flags: list[str] = field(default_factory=list)
    name: str | None = None
    cwd: str | None = None
    source: str | None = None
    path: str | None = None
    """The thread's rollout; None until Codex writes it (and for the TUI's title thread)."""
    preview: str | None = None
    """The thread's first words (Codex's ``preview``), for a list of threads."""
    loaded: bool = False
    updated: datetime | None = None
    """When Codex last updated it (``updatedAt``), or its status last changed, if later."""
    cli_version: str | None = None
    """The Codex that made it (``cliVersion``)."""
    parent: str | None = None
    """A sub-agent's parent thread (``parentThreadId``)."""
    created: datetime | None = None
    """When it was made (``createdAt``)."""
    status_heard: int = 0
    """The client's count of notifications when this thread's status last came in one (0:
    never): a listing or read asked before then is older news of its status."""
    name_heard: int = 0
    """The same for its name (``thread/name/updated``)."""

    @property
    def work(self) -> bool:
        """Whether this is a thread of work: one with a rollout (the title thread has none)."""
        return self.path is not None

    @property
    def waiting(self) -> bool:
        return self.status in WAITING

    def take(self, thread: Mapping[str, Any], *, status: bool = True, name: bool = True) -> None:
        """What a ``Thread`` object of the protocol says (fields it lacks are kept); its
        status and its name too unless ``status`` or ``name`` is False (the object is older
        than what was heard of them)."""
        for attribute, key in _STRINGS if name else _STRINGS[1:]:
            value = thread.get(key)
            if isinstance(value, str):
                setattr(self, attribute, value)
        updated = _moment(thread.get("updatedAt"))
        if updated is not None:
            self.touched(updated)
        self.created = _moment(thread.get("createdAt")) or self.created
        source = thread.get("source")
        if isinstance(source, str):
            self.source = source
        elif isinstance(source, dict) and source:
            self.source = next(iter(source))  # {"custom": …} or {"subAgent": …}
        if status:
            self.set_status(thread.get("status"))

    def touched(self, at: datetime) -> None:
        """The thread was updated at ``at`` (kept when it is later than what was known)."""
        if self.updated is None or at > self.updated:
            self.updated = at

    def set_status(self, status: object) -> bool:
        """Take Codex's ``ThreadStatus``; True when it changed what envtui says."""
        state = thread_state(status)
        if state is None or (state[0], state[1]) == (self.status, self.flags):
            return False
        self.status, self.flags = state
        self.loaded = state[0] != "not_loaded"
        return True


def _moment(seconds: object) -> datetime | None:
    """A protocol time (Unix seconds) as a moment; None when it is not one."""
    if isinstance(seconds, int) and not isinstance(seconds, bool) and 0 <= seconds < 2**33:
        return datetime.fromtimestamp(seconds, UTC)
    return None


def thread_entries(result: object) -> list[Mapping[str, Any]]:
    """The ``Thread`` objects of a ``thread/list`` answer (entries of another shape left out)."""
    data = result.get("data") if isinstance(result, dict) else None
    return (
        [t for t in data if isinstance(t, dict) and isinstance(t.get("id"), str)]
        if isinstance(data, list)
        else []
    )


def loaded_ids(result: object) -> list[str]:
    """The thread ids of a ``thread/loaded/list`` answer."""
    data = result.get("data") if isinstance(result, dict) else None
    return [t for t in data if isinstance(t, str)] if isinstance(data, list) else []


def next_cursor(result: object) -> str | None:
    cursor = result.get("nextCursor") if isinstance(result, dict) else None
    return cursor if isinstance(cursor, str) and cursor else None
