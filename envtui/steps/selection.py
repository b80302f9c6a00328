"""A turn's selected environments as values: Codex's ``TurnEnvironmentSnapshot``.

These are the values the runtime produces and the turn logic reads: what one selected
environment is (:class:`Selection`), what its resolution came to (:class:`SnapshotEntry`:
Ready with its :class:`Readiness`, Starting, or Failed with a reason), and every selected
environment in selection order (:class:`SelectionSnapshot`), with the queries the tools
need (``primary``, ``local``, ``single_local_environment``). They live below both the
runtime, which builds them, and the step logic, which reads them, so neither depends on
the other.

"Snapshot" here is the selection state of a turn. The JSON that Codex persists for the
environments section is the *section snapshot* (``envtui.context.snapshot``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from envtui.vocabulary.terms import LiveState

if TYPE_CHECKING:  # only named in annotations: the command line need not load asyncio
    import asyncio

EntryState = Literal["ready", "starting", "failed"]
"""A resolution's outcome, as Codex's snapshot names it."""

LIVE_STATE: dict[EntryState, LiveState] = {
    "ready": "ready",
    "starting": "starting",
    "failed": "unavailable",
}
"""A snapshot entry's state in the dashboard's live vocabulary."""


@dataclass(frozen=True)
class Readiness:
    """What a ready environment reports: its shell (name and path) and working directory."""

    shell_name: str | None
    shell_path: str | None
    cwd: str


class ResolutionError(Exception):
    """Resolution failed: ``reason`` is what the dashboard and a failed entry show."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Selection:
    """One selected environment: its id, the cwd the context reports, and its roots."""

    environment_id: str
    cwd: str
    workspace_roots: tuple[str, ...] = ()


@dataclass(frozen=True)
class SnapshotEntry:
    """One selected environment in a snapshot: Ready, Starting or Failed.

    ``resolution`` is the running resolution of a Starting entry (and the finished one of
    the others), so a later step of the same turn can promote it without a new selection.
    """

    selection: Selection
    kind: str
    is_remote: bool
    state: EntryState
    readiness: Readiness | None = None
    error: str | None = None
    resolution: asyncio.Future[Readiness] | None = field(default=None, compare=False, repr=False)

    @property
    def environment_id(self) -> str:
        return self.selection.environment_id


def entry_from_resolution(
    selection: Selection, kind: str, is_remote: bool, resolution: asyncio.Future[Readiness]
) -> SnapshotEntry:
    """The entry as the resolution stands now: Starting, Ready or Failed."""
    state: EntryState
    readiness: Readiness | None = None
    error: str | None = None
    if not resolution.done():
        state = "starting"
    elif resolution.cancelled():
        state, error = "failed", "resolution cancelled"
    elif (problem := resolution.exception()) is not None:
        state = "failed"
        error = problem.reason if isinstance(problem, ResolutionError) else repr(problem)
    else:
        state, readiness = "ready", resolution.result()
    return SnapshotEntry(selection, kind, is_remote, state, readiness, error, resolution)


@dataclass(frozen=True)
class SelectionSnapshot:
    """Every selected environment in selection order, each in one state."""

    entries: tuple[SnapshotEntry, ...] = ()

    def ready(self) -> list[SnapshotEntry]:
        return [e for e in self.entries if e.state == "ready"]

    def starting(self) -> list[SnapshotEntry]:
        return [e for e in self.entries if e.state == "starting"]

    def failed(self) -> list[SnapshotEntry]:
        return [e for e in self.entries if e.state == "failed"]

    def primary(self) -> SnapshotEntry | None:
        """The first Ready entry: a later one when selection #0 is starting or failed."""
        return next((e for e in self.entries if e.state == "ready"), None)

    def local(self) -> SnapshotEntry | None:
        """The first Ready entry that is not remote."""
        return next((e for e in self.entries if e.state == "ready" and not e.is_remote), None)

    def single_local_environment(self) -> SnapshotEntry | None:
        """None while anything starts; else the only Ready entry, if it is local."""
        if self.starting():
            return None
        ready = self.ready()
        return ready[0] if len(ready) == 1 and not ready[0].is_remote else None

    def primary_workspace_roots(self) -> tuple[str, ...]:
        """The roots of selection #0, whatever its state."""
        return self.entries[0].selection.workspace_roots if self.entries else ()

    def refreshed(self) -> SelectionSnapshot:
        """Finished resolutions promoted; the selection itself stays (fixed for the turn)."""
        return SelectionSnapshot(
            tuple(
                entry_from_resolution(e.selection, e.kind, e.is_remote, e.resolution)
                if e.state == "starting" and e.resolution is not None
                else e
                for e in self.entries
            )
        )
