"""Reading an environments section from JSON: a state document or a persisted snapshot.

Two forms are accepted, told apart by the type of ``environments``:

* a **state document** (the form of the golden vectors): ``environments`` is a list of
  ``{id, cwd, shell, status, primary, error}``, ``cwd`` a ``file://`` URI or native path
  text. It is strict: unknown keys, duplicate ids, several primaries or a primary that is
  not available are errors, because they are typos or states Codex cannot produce;
* a **snapshot** as Codex writes it in rollout ``world_state`` items: ``environments`` is
  an object keyed by id. It is lenient, as Codex is: unknown keys are ignored.

Errors are :class:`DocumentError` values carrying the field path, so a command line can
say which field of which file is wrong in one line.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from envtui.context.model import (
    Access,
    DisabledProfile,
    EnvironmentsState,
    EnvironmentState,
    ExternalProfile,
    FileSystemContext,
    FileSystemEntry,
    ManagedProfile,
    NetworkContext,
    RestrictedFileSystem,
    Status,
    UnrestrictedFileSystem,
)
from envtui.context.paths import path_text
from envtui.context.snapshot import state_from_snapshot
from envtui.validation import FieldError, first_error

DocumentForm = Literal["state", "snapshot"]


DocumentError = FieldError
"""A document that is neither form, or a wrong field in one; ``field`` says where."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _EnvironmentDoc(_Strict):
    id: str
    cwd: str
    shell: str | None = None
    status: Status = "available"
    primary: bool = False
    error: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> _EnvironmentDoc:
        if self.primary and self.status != "available":
            raise ValueError(f"environment {self.id!r} is primary but not available")
        if self.status == "failed" and self.error is None:
            raise ValueError(f"failed environment {self.id!r} needs an error")
        return self


class _NetworkDoc(_Strict):
    allowed: list[str] = []
    denied: list[str] = []


class _EntryDoc(_Strict):
    access: Access
    path: str | None = None
    glob: str | None = None
    special: str | None = None
    missing_path_behavior: str | None = None


class _RestrictedDoc(_Strict):
    type: Literal["restricted"]
    glob_scan_max_depth: Annotated[int, Field(ge=0)] | None = None
    entries: list[_EntryDoc] = []


class _UnrestrictedDoc(_Strict):
    type: Literal["unrestricted"]


class _ManagedDoc(_Strict):
    type: Literal["managed"]
    file_system: Annotated[_UnrestrictedDoc | _RestrictedDoc, Field(discriminator="type")]


class _PlainProfileDoc(_Strict):
    type: Literal["disabled", "external"]


class _FileSystemDoc(_Strict):
    workspace_roots: list[str] = []
    permission_profile: Annotated[_PlainProfileDoc | _ManagedDoc, Field(discriminator="type")]


class _StateDoc(_Strict):
    environments: list[_EnvironmentDoc]
    current_date: str | None = None
    timezone: str | None = None
    network: _NetworkDoc | None = None
    filesystem: _FileSystemDoc | None = None
    subagents: str | None = None

    @field_validator("environments")
    @classmethod
    def _ids_and_primary(cls, environments: list[_EnvironmentDoc]) -> list[_EnvironmentDoc]:
        seen: set[str] = set()
        for env in environments:
            if env.id in seen:
                raise ValueError(f"duplicate environment id {env.id!r}")
            seen.add(env.id)
        primaries = [env.id for env in environments if env.primary]
        if len(primaries) > 1:
            raise ValueError(f"more than one primary: {', '.join(map(repr, primaries))}")
        return environments


def detect_form(document: object) -> DocumentForm:
    """``state`` when ``environments`` is a list, ``snapshot`` when it is an object."""
    if not isinstance(document, dict):
        raise DocumentError("(document)", "expected a JSON object or null")
    if "environments" not in document:
        raise DocumentError(
            "environments", "missing: a list (state document) or an object (snapshot)"
        )
    environments = document["environments"]
    if isinstance(environments, list):
        return "state"
    if isinstance(environments, dict):
        return "snapshot"
    raise DocumentError(
        "environments",
        f"expected a list (state document) or an object (snapshot), got {_json_type(environments)}",
    )


def parse_document(document: object) -> EnvironmentsState | None:
    """The section a document describes; JSON ``null`` means there is no section."""
    if document is None:
        return None
    if detect_form(document) == "snapshot":
        return state_from_snapshot(document)  # its SnapshotError is a DocumentError
    return parse_state_document(document)


def parse_state_document(document: object) -> EnvironmentsState:
    """Validate a state document and convert it: URIs become native path text."""
    try:
        doc = _StateDoc.model_validate(document, strict=True)
    except ValidationError as exc:
        raise _first_error(exc) from None
    return _convert(doc)


def _convert(doc: _StateDoc) -> EnvironmentsState:
    environments = {
        env.id: _model(
            f"environments[{index}]",
            EnvironmentState,
            cwd=_path(f"environments[{index}].cwd", env.cwd),
            status=env.status,
            shell=env.shell,
            is_primary=env.primary,
            error=env.error,
        )
        for index, env in enumerate(doc.environments)
    }
    network = None
    if doc.network is not None:
        network = NetworkContext(
            allowed_domains=tuple(doc.network.allowed), denied_domains=tuple(doc.network.denied)
        )
    filesystem = None
    if doc.filesystem is not None:
        filesystem = _convert_filesystem(doc.filesystem)
    return EnvironmentsState(
        environments=environments,
        current_date=doc.current_date,
        timezone=doc.timezone,
        network=network,
        filesystem=filesystem,
        subagents=doc.subagents,
    )


_ENTRIES = "filesystem.permission_profile.file_system.entries"


def _convert_filesystem(doc: _FileSystemDoc) -> FileSystemContext:
    profile_doc = doc.permission_profile
    profile: DisabledProfile | ExternalProfile | ManagedProfile
    if isinstance(profile_doc, _PlainProfileDoc):
        profile = DisabledProfile() if profile_doc.type == "disabled" else ExternalProfile()
    elif isinstance(profile_doc.file_system, _UnrestrictedDoc):
        profile = ManagedProfile(file_system=UnrestrictedFileSystem())
    else:
        restricted = profile_doc.file_system
        entries = tuple(
            _model(
                f"{_ENTRIES}[{index}]",
                FileSystemEntry,
                access=entry.access,
                path=None if entry.path is None else _path(f"{_ENTRIES}[{index}].path", entry.path),
                glob=entry.glob,
                special=entry.special,
                missing_path_behavior=entry.missing_path_behavior,
            )
            for index, entry in enumerate(restricted.entries)
        )
        profile = ManagedProfile(
            file_system=RestrictedFileSystem(
                glob_scan_max_depth=restricted.glob_scan_max_depth, entries=entries
            )
        )
    roots = tuple(
        _path(f"filesystem.workspace_roots[{index}]", root)
        for index, root in enumerate(doc.workspace_roots)
    )
    return FileSystemContext(workspace_roots=roots, permission_profile=profile)


ModelT = TypeVar("ModelT", bound=BaseModel)


def _model(where: str, cls: type[ModelT], **values: Any) -> ModelT:
    """``cls(**values)``; a combination the model refuses is a :class:`DocumentError` there.

    The document's own checks come first; this keeps a rule of the model that a document
    check does not repeat (an ``error`` on an environment that did not fail, an entry with
    two targets) an error of the input, never a crash.
    """
    try:
        return cls(**values)
    except ValidationError as exc:
        raise DocumentError(where, first_error(exc).message) from None


def _path(where: str, value: str) -> str:
    """Native path text for ``value``; a ``file://`` URI that cannot be parsed is an error."""
    try:
        return path_text(value)
    except ValueError as exc:
        raise DocumentError(where, str(exc)) from None


_UNION_TAGS = frozenset({"managed", "disabled", "external", "restricted", "unrestricted"})
_TAG_PARENTS = frozenset({"permission_profile", "file_system"})


def _first_error(exc: ValidationError) -> DocumentError:
    """The first validation error as one line, with the number of further errors.

    pydantic names the member of a discriminated union in the location; the user wrote no
    such key, so that step is left out.
    """
    error = first_error(
        exc, hidden=lambda _, part, previous: part in _UNION_TAGS and previous in _TAG_PARENTS
    )
    message = error.message
    if error.more:
        message += f" (and {error.more} more error{'s' if error.more > 1 else ''})"
    return DocumentError(error.key or "(document)", message)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"
