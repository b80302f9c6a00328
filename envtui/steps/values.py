"""What the divergence rules look at: a step's environments, its tools, its calls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from envtui.steps.selection import SelectionSnapshot
from envtui.vocabulary.terms import LOCAL_ID

Severity = Literal["warning", "error"]
NoteCode = Literal[
    "tool-rules-skipped",
    "stale-available-unchecked",
    "tool-parameter-unknown",
    "context-unchecked",
    "escaping-deviation",
    "rules-not-run",
]

ERROR_CODES = frozenset(
    {
        "call-to-unknown-environment",
        "stale-available",
        "primary-mismatch",
        "execution-routed-elsewhere",
        "context-mismatch",
    }
)


@dataclass(frozen=True)
class StepView:
    """One step's environments as the rules see them, from a live snapshot or a rollout.

    ``selection`` is None when it is not known (a rollout records no selection order);
    ``ready`` is then in id order. ``marked_primary`` are the environments the context
    flagged primary; ``local_ids`` the environments that are not remote.
    """

    number: int | None
    ready: tuple[str, ...]
    starting: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    selection: tuple[str, ...] | None = None
    marked_primary: tuple[str, ...] = ()
    local_ids: frozenset[str] = frozenset({LOCAL_ID})

    @property
    def selected_count(self) -> int:
        return len(self.ready) + len(self.starting) + len(self.failed)

    @property
    def primary(self) -> str | None:
        """The first ready environment (in selection order when it is known)."""
        return self.ready[0] if self.ready else None

    def single_local_environment(self) -> str | None:
        if self.starting or len(self.ready) != 1:
            return None
        return self.ready[0] if self.ready[0] in self.local_ids else None

    def at_step(self, number: int | None) -> StepView:
        """The same view at step ``number``: what ``dataclasses.replace`` gives, its fields
        copied without a frozen dataclass's field-by-field ``__init__`` (a rollout's steps
        share one view, numbered for each step with calls)."""
        view: StepView = object.__new__(StepView)
        fields = view.__dict__
        fields.update(self.__dict__)
        fields["number"] = number
        return view

    @classmethod
    def from_snapshot(cls, number: int | None, snapshot: SelectionSnapshot) -> StepView:
        primary = snapshot.primary()
        return cls(
            number=number,
            ready=tuple(e.environment_id for e in snapshot.ready()),
            starting=tuple(e.environment_id for e in snapshot.starting()),
            failed=tuple(e.environment_id for e in snapshot.failed()),
            selection=tuple(e.environment_id for e in snapshot.entries),
            marked_primary=(primary.environment_id,) if primary is not None else (),
            local_ids=frozenset(e.environment_id for e in snapshot.entries if not e.is_remote),
        )


@dataclass(frozen=True)
class Note:
    """Why a check could not run, or what it could not tell: a code, and words for people.

    Code decides (``envtui check`` leaves out the notes its report already says once for
    the whole rollout); the text is only ever shown.
    """

    code: NoteCode
    text: str

    def __str__(self) -> str:
        return self.text


class ToolCall(NamedTuple):
    """A call the model made: the tool, the environment it named, and where it ran (if known).
    (A named tuple: a rollout's reader makes one for every call, and a tuple is made fastest.)"""

    tool: str
    environment_id: str | None = None
    executed_in: str | None = None
    call_id: str | None = None


FINDING_FIELDS = ("code", "severity", "step", "tool", "environment_id", "message")
"""A finding's own fields, in the order its JSON and its event have them."""


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    step: int | None
    tool: str | None
    environment_id: str | None
    message: str
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def at_step(self, number: int | None, extra: Mapping[str, Any] | None = None) -> Finding:
        """The same finding at step ``number`` (with ``extra`` instead of its own, if
        given): its fields copied as they are but for those (what ``dataclasses.replace``
        gives, without a frozen dataclass's field-by-field ``__init__``: a long rollout's
        steps repeat the same findings)."""
        found: Finding = object.__new__(Finding)
        fields = found.__dict__
        fields.update(self.__dict__)
        fields["step"] = number
        if extra is not None:
            fields["extra"] = extra
        return found

    def as_fields(self) -> dict[str, Any]:
        """The finding's own fields, without ``extra``: what a finding event carries."""
        fields = self.__dict__  # its fields as set in order, FINDING_FIELDS then extra
        return {name: fields[name] for name in FINDING_FIELDS}

    def as_json(self) -> dict[str, Any]:
        """Its fields, then ``extra``'s: ``{**self.as_fields(), **self.extra}``, made from a
        copy of its ``__dict__`` (which holds exactly those fields, in that order, then
        ``extra``): a long check writes one for each of its findings."""
        fields = self.__dict__.copy()
        extra = fields.pop("extra")
        if extra:
            fields.update(extra)
        return fields


def finding(
    code: str,
    step: int | None,
    message: str,
    *,
    tools: list[str] | tuple[str, ...] = (),
    environment_id: str | None = None,
    **extra: Any,
) -> Finding:
    """A finding with the severity its code has: errors for hazards, warnings otherwise."""
    severity: Severity = "error" if code in ERROR_CODES else "warning"
    tool = ", ".join(dict.fromkeys(tools)) or None
    return Finding(code, severity, step, tool, environment_id, message, extra)
