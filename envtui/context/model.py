"""The environments section of the world state: the typed model every renderer reads.

It mirrors Codex's ``EnvironmentsState`` (``codex-rs/core/src/context/world_state/``).
Paths are stored as native path text (already converted from file URIs), because that
is what Codex renders, snapshots and compares. ``network`` and ``filesystem`` may also be
held as their already rendered one-line element, which is how a persisted snapshot
stores them; a state restored from a rollout therefore renders byte for byte as written.

The values are frozen standard-library dataclasses, not pydantic models: ``envtui render``
reads them on every start, and building pydantic schemas at import cost more than the
whole budget of that start. Input is validated where it is read (``documents``,
``snapshot``, the step's section); what the types cannot say, ``__post_init__`` checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

SECTION_ID = "environments"
"""The world-state section id of the environments section."""

Status = Literal["available", "starting", "failed"]
Access = Literal["read", "write", "deny"]


def _freeze(value: object, name: str, content: object) -> None:
    """Set a field of a frozen instance while it is being built (lists become tuples)."""
    object.__setattr__(value, name, content)


@dataclass(frozen=True, kw_only=True)
class EnvironmentState:
    """One environment as the model sees it at one sampling step.

    ``failed`` (with its ``error``) is what codex 0.171 renders for an environment whose
    connection failed; codex 0.150 leaves such environments out of the section instead.
    """

    cwd: str
    status: Status = "available"
    shell: str | None = None
    is_primary: bool = False
    error: str | None = None

    def __post_init__(self) -> None:
        # Codex can neither render nor persist these combinations: reject them rather than
        # carry a value that would silently disappear.
        if self.error is not None and self.status != "failed":
            raise ValueError("error is only allowed on a failed environment")
        if self.shell is not None and self.status == "failed":
            raise ValueError("a failed environment has no shell")


@dataclass(frozen=True, kw_only=True)
class NetworkContext:
    """The managed network rules; each list keeps the order it was given in."""

    allowed_domains: tuple[str, ...] = ()
    denied_domains: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _freeze(self, "allowed_domains", tuple(self.allowed_domains))
        _freeze(self, "denied_domains", tuple(self.denied_domains))


@dataclass(frozen=True, kw_only=True)
class FileSystemEntry:
    """One permission entry: an access and exactly one target (path, glob or special token).

    ``missing_path_behavior`` is never rendered, but two entries that differ only in it are
    distinct, as in Codex.
    """

    access: Access
    path: str | None = None
    glob: str | None = None
    special: str | None = None
    missing_path_behavior: str | None = None

    def __post_init__(self) -> None:
        targets = [t for t in (self.path, self.glob, self.special) if t is not None]
        if len(targets) != 1:
            raise ValueError("an entry needs exactly one of path, glob and special")


@dataclass(frozen=True, kw_only=True)
class UnrestrictedFileSystem:
    type: Literal["unrestricted"] = field(default="unrestricted", init=False)


@dataclass(frozen=True, kw_only=True)
class RestrictedFileSystem:
    type: Literal["restricted"] = field(default="restricted", init=False)
    glob_scan_max_depth: int | None = None
    entries: tuple[FileSystemEntry, ...] = ()

    def __post_init__(self) -> None:
        if self.glob_scan_max_depth is not None and self.glob_scan_max_depth < 0:
            raise ValueError("glob_scan_max_depth cannot be negative")
        # Codex de-duplicates by equality of all fields, keeping the first, in order.
        _freeze(self, "entries", tuple(dict.fromkeys(self.entries)))


ManagedFileSystem = UnrestrictedFileSystem | RestrictedFileSystem


@dataclass(frozen=True, kw_only=True)
class DisabledProfile:
    type: Literal["disabled"] = field(default="disabled", init=False)


@dataclass(frozen=True, kw_only=True)
class ExternalProfile:
    type: Literal["external"] = field(default="external", init=False)


@dataclass(frozen=True, kw_only=True)
class ManagedProfile:
    type: Literal["managed"] = field(default="managed", init=False)
    file_system: ManagedFileSystem


PermissionProfile = DisabledProfile | ExternalProfile | ManagedProfile


@dataclass(frozen=True, kw_only=True)
class FileSystemContext:
    """The primary environment's workspace roots and permission profile."""

    workspace_roots: tuple[str, ...] = ()
    permission_profile: PermissionProfile

    def __post_init__(self) -> None:
        _freeze(self, "workspace_roots", tuple(self.workspace_roots))


@dataclass(frozen=True, kw_only=True)
class EnvironmentsState:
    """The ``environments`` world-state section at one sampling step.

    ``environments`` is keyed by id and always rendered sorted by id; selection order only
    decided which environment is primary. ``network`` and ``filesystem`` are either the
    structured value or its rendered element (as restored from a persisted snapshot).
    """

    environments: Mapping[str, EnvironmentState] = field(default_factory=dict)
    current_date: str | None = None
    timezone: str | None = None
    network: NetworkContext | str | None = None
    filesystem: FileSystemContext | str | None = None
    subagents: str | None = None

    def __post_init__(self) -> None:
        # A copy, as the pydantic model made: the caller's dict may change afterwards.
        _freeze(self, "environments", dict(self.environments))

    @cached_property
    def sorted_ids(self) -> tuple[str, ...]:
        """Environment ids in Codex's byte-wise order (Python's ``str`` order is the same)."""
        return tuple(sorted(self.environments))

    @property
    def is_multi(self) -> bool:
        """More than one environment, whatever their status: the layout with ids and primary."""
        return len(self.environments) > 1

    @property
    def is_legacy_single(self) -> bool:
        """Exactly one environment and it is available: the flat layout without an id."""
        if len(self.environments) != 1:
            return False
        (only,) = self.environments.values()
        return only.status == "available"

    @property
    def primary_id(self) -> str | None:
        """The id flagged primary, if any."""
        return next((i for i, e in self.environments.items() if e.is_primary), None)
