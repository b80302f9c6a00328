"""The environments section of the world state: the typed model every renderer reads.

It mirrors Codex's ``EnvironmentsState`` (``codex-rs/core/src/context/world_state/``).
Paths are stored as native path text (already converted from file URIs), because that
is what Codex renders, snapshots and compares. ``network`` and ``filesystem`` may also be
held as their already rendered one-line element, which is how a persisted snapshot
stores them; a state restored from a rollout therefore renders byte for byte as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Status = Literal["available", "starting", "failed"]
Access = Literal["read", "write", "deny"]


class _Frozen(BaseModel):
    """Immutable, hashable values: a state is built once per step and then only read."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class EnvironmentState(_Frozen):
    """One environment as the model sees it at one sampling step.

    ``failed`` (with its ``error``) is what codex 0.171 renders for an environment whose
    connection failed; codex 0.150 leaves such environments out of the section instead.
    """

    cwd: str
    status: Status = "available"
    shell: str | None = None
    is_primary: bool = False
    error: str | None = None

    @model_validator(mode="after")
    def _fields_fit_the_status(self) -> EnvironmentState:
        # Codex can neither render nor persist these combinations: reject them rather than
        # carry a value that would silently disappear.
        if self.error is not None and self.status != "failed":
            raise ValueError("error is only allowed on a failed environment")
        if self.shell is not None and self.status == "failed":
            raise ValueError("a failed environment has no shell")
        return self


class NetworkContext(_Frozen):
    """The managed network rules; each list keeps the order it was given in."""

    allowed_domains: tuple[str, ...] = ()
    denied_domains: tuple[str, ...] = ()


class FileSystemEntry(_Frozen):
    """One permission entry: an access and exactly one target (path, glob or special token).

    ``missing_path_behavior`` is never rendered, but two entries that differ only in it are
    distinct, as in Codex.
    """

    access: Access
    path: str | None = None
    glob: str | None = None
    special: str | None = None
    missing_path_behavior: str | None = None

    @model_validator(mode="after")
    def _exactly_one_target(self) -> FileSystemEntry:
        targets = [t for t in (self.path, self.glob, self.special) if t is not None]
        if len(targets) != 1:
            raise ValueError("an entry needs exactly one of path, glob and special")
        return self


class UnrestrictedFileSystem(_Frozen):
    type: Literal["unrestricted"] = "unrestricted"


class RestrictedFileSystem(_Frozen):
    type: Literal["restricted"] = "restricted"
    glob_scan_max_depth: Annotated[int, Field(ge=0)] | None = None
    entries: tuple[FileSystemEntry, ...] = ()

    @field_validator("entries")
    @classmethod
    def _drop_duplicate_entries(
        cls, entries: tuple[FileSystemEntry, ...]
    ) -> tuple[FileSystemEntry, ...]:
        # Codex de-duplicates by equality of all fields, keeping the first, in order.
        return tuple(dict.fromkeys(entries))


ManagedFileSystem = Annotated[
    UnrestrictedFileSystem | RestrictedFileSystem, Field(discriminator="type")
]


class DisabledProfile(_Frozen):
    type: Literal["disabled"] = "disabled"


class ExternalProfile(_Frozen):
    type: Literal["external"] = "external"


class ManagedProfile(_Frozen):
    type: Literal["managed"] = "managed"
    file_system: ManagedFileSystem


PermissionProfile = Annotated[
    DisabledProfile | ExternalProfile | ManagedProfile, Field(discriminator="type")
]


class FileSystemContext(_Frozen):
    """The primary environment's workspace roots and permission profile."""

    workspace_roots: tuple[str, ...] = ()
    permission_profile: PermissionProfile


class EnvironmentsState(_Frozen):
    """The ``environments`` world-state section at one sampling step.

    ``environments`` is keyed by id and always rendered sorted by id; selection order only
    decided which environment is primary. ``network`` and ``filesystem`` are either the
    structured value or its rendered element (as restored from a persisted snapshot).
    """

    environments: Mapping[str, EnvironmentState] = Field(default_factory=dict)
    current_date: str | None = None
    timezone: str | None = None
    network: NetworkContext | str | None = None
    filesystem: FileSystemContext | str | None = None
    subagents: str | None = None

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
