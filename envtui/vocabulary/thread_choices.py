"""The threads a live source can show one by one, in the dashboard's words.

A source attached to Codex's app-server daemon knows every thread of it; the dashboard lists
them (:class:`ThreadChoice`, plain values it can draw) and opens the one chosen as a source
of its own (:meth:`ThreadChoices.open_thread`). While the source cannot list them (the daemon
stopped, restarting, unreachable) it says why and when it tries again
(:class:`ThreadsUnavailable`), so an empty list is never mistaken for "no threads". The
dashboard imports only this: what runs the chosen thread is the source's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from envtui.vocabulary.events import Source
from envtui.vocabulary.thread_messages import ThreadState

WAITING_STATES: frozenset[ThreadState] = frozenset({"waiting_on_approval", "waiting_on_input"})


@dataclass(frozen=True)
class ThreadChoice:
    """One thread of work as the list shows it (name and cwd are the user's text)."""

    id: str
    status: ThreadState | None = None
    name: str | None = None
    cwd: str | None = None
    source: str | None = None
    loaded: bool = False
    followed: bool = False
    """The thread the main dashboard follows."""

    @property
    def waiting(self) -> bool:
        return self.status in WAITING_STATES


@dataclass(frozen=True)
class ThreadsUnavailable:
    """Why the threads cannot be listed now, and that the source is reaching them again."""

    reason: str
    """The source's words (one line): why it is not attached."""
    retry_in: float | None = None
    """Seconds until the next try; 0 while trying now; None before the first attach."""
    restarts: int = 0
    """How many times the source tried again so far."""


@runtime_checkable
class ThreadChoices(Protocol):
    """A source whose threads the dashboard may list and open."""

    def thread_choices(self) -> list[ThreadChoice]:
        """Every thread of work now, those that wait on the operator first."""
        ...

    def open_thread(self, thread_id: str) -> Source:
        """The chosen thread as a source of its own (its dashboard's)."""
        ...

    def unavailable(self) -> ThreadsUnavailable | None:
        """Why the threads cannot be listed now (None while they can)."""
        ...


def thread_choices_of(source: object) -> ThreadChoices | None:
    """``source`` as a list of threads, if it is one (else None)."""
    return source if isinstance(source, ThreadChoices) else None
