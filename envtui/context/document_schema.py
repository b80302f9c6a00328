"""The state document as a pydantic schema: the words of every error a document can have.

``documents`` accepts a well-formed state document with a few standard-library checks,
so ``envtui render`` never imports pydantic; a document those checks do not accept comes
here, and pydantic names its first error (with how many more there are) in the same words
as every other input envtui reads. The two must accept the same documents; a property
test holds them to it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from envtui.context.errors import FieldError
from envtui.context.model import Access, Status
from envtui.vocabulary.validation import first_error


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


def check_state_document(document: object) -> None:
    """Return when ``document`` is a valid state document, else raise its first error."""
    try:
        _StateDoc.model_validate(document, strict=True)
    except ValidationError as exc:
        raise _first_error(exc) from None


_UNION_TAGS = frozenset({"managed", "disabled", "external", "restricted", "unrestricted"})
_TAG_PARENTS = frozenset({"permission_profile", "file_system"})


def _first_error(exc: ValidationError) -> FieldError:
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
    return FieldError(error.key or "(document)", message)
