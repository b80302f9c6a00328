"""The event vocabulary every source speaks, and its JSONL codec.

An event is ``{"id": str, "msg": {"type": ..., ...}}``, Codex's own core event shape. The
two connection events are byte-compatible with Codex: they come from a thread-level
listener, so their ``id`` is always ``""``. envtui's own message types (status changes,
warnings, steps, findings) use their own names, documented in the README. A top-level
``"at"`` (ISO time) may follow ``id`` and ``msg``; without it a line is exactly Codex's.

Reading is forgiving in the way a long-running tool needs: a bad line becomes a
:class:`DecodeError` carrying its line number and the stream goes on; a message whose type
envtui does not know is kept whole as :class:`UnknownMessage`, and written back unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
)

from envtui.vocabulary.incident_messages import (
    IncidentAcknowledged,
    IncidentOpened,
    IncidentResolved,
    VocabularyMessage,
)
from envtui.vocabulary.limits import JsonInputError, LineTooLong, load_json
from envtui.vocabulary.safe_text import dumps_json_line
from envtui.vocabulary.terms import (
    THREAD_EVENT_ID,
    ConnectionState,
    LiveState,
    Severity,
    SourceState,
)
from envtui.vocabulary.thread_messages import THREAD_MESSAGES, AnyThreadMessage
from envtui.vocabulary.validation import first_error

if TYPE_CHECKING:
    import asyncio


def aware_time(value: datetime) -> datetime:
    """``value`` with a UTC offset: a time written without one is taken as UTC.

    Every time envtui compares or subtracts must be aware, or a single naive one from a file
    would make the comparison raise. A time that cannot be placed in UTC at all (year 1 at
    +14:00) is refused with a ValueError.
    """
    if value.utcoffset() is None:
        value = value.replace(tzinfo=UTC)
    if value.year in (1, 9999):  # an offset is under a day: only these can leave the range
        try:
            value.astimezone(UTC)
        except OverflowError:
            raise ValueError(f"time out of range: {value.isoformat()}") from None
    return value


AwareTime = Annotated[datetime, AfterValidator(aware_time)]
"""A time that is always aware (see :func:`aware_time`), whoever built the message."""


class _Message(VocabularyMessage):
    """A message of envtui's vocabulary; its ``type`` field's default is its name."""


class EnvironmentConnected(_Message):
    """A remote environment's connection came up (Codex's own event)."""

    type: Literal["environment_connected"] = "environment_connected"
    environment_id: str


class EnvironmentDisconnected(_Message):
    """A remote environment's connection went away (Codex's own event)."""

    type: Literal["environment_disconnected"] = "environment_disconnected"
    environment_id: str


class EnvironmentStatus(_Message):
    """envtui: an environment's live status, as the dashboard shows it.

    ``primary`` is the first ready environment in selection order. ``next_retry_at`` says
    when a failed remote is tried again (None: not retried, or not failed).
    ``recorded_step`` is set when the status is not live but what a rollout recorded at
    that step (its world_state snapshot).
    """

    type: Literal["environment_status"] = "environment_status"
    environment_id: str
    kind: str
    status: LiveState
    primary: bool = False
    shell: str | None = None
    shell_path: str | None = None
    cwd: str | None = None
    error: str | None = None
    next_retry_at: AwareTime | None = None
    recorded_step: int | None = None


class EnvironmentRemoved(_Message):
    """envtui: an environment left the selection; its listener was aborted."""

    type: Literal["environment_removed"] = "environment_removed"
    environment_id: str


class WarningMessage(_Message):
    """envtui: a notice about the run itself: something skipped, degraded or stopped.

    ``severity`` None is a plain warning (and is not written, so streams stay as they
    were); ``info`` is news ("attached to codex thread …"), ``error`` a failure an operator
    must see, such as the source itself stopping. Front ends decide by the severity, never
    by the wording.
    """

    type: Literal["warning"] = "warning"
    message: str
    environment_id: str | None = None
    severity: Severity | None = None


class SourceStatus(_Message):
    """envtui: the state of a source itself, not of an environment.

    A source that stops (an app-server that exits, an SSH link to its host that is lost, a
    rollout that is deleted) says so with ``down`` and the ``reason``; ``restarting`` while
    it is tried again, ``up`` once it produces events again. ``restarts`` counts the
    restarts so far; ``thread`` names the thread the source is attached to, when it has
    one. Front ends and metrics decide by these fields, never by a warning's wording.
    """

    type: Literal["source_status"] = "source_status"
    source: str
    state: SourceState
    reason: str | None = None
    thread: str | None = None
    restarts: int = 0
    next_retry_at: AwareTime | None = None


class StepTool(BaseModel):
    """A tool the step offered, and its environment parameter."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    environment_id: Literal["absent", "optional", "required", "unknown"] = "absent"


class StepRecorded(_Message):
    """envtui: one sampling step: its full context, the diff sent, snapshot, patch and tools.

    ``text`` is the full render; ``diff`` what was sent (None: nothing); ``patch`` the
    world-state merge patch against the previous step. ``unchecked`` are the finding codes
    whose rules could not run at this step (they neither raise nor resolve an incident);
    ``findings`` how many finding events follow for this step's check. Both None: a
    recording from before they existed (see :mod:`envtui.incidents.fold`).
    """

    type: Literal["step"] = "step"
    step: int
    thread: str | None = None
    text: str | None = None
    diff: str | None = None
    snapshot: dict[str, Any] | None = None
    patch: dict[str, Any] | None = None
    tools: list[StepTool] | None = None
    notes: list[str] = Field(default_factory=list)
    unchecked: list[str] | None = None
    findings: int | None = None


class FindingReported(_Message):
    """envtui: a divergence between the tools offered and the step's snapshot."""

    type: Literal["finding"] = "finding"
    code: str
    severity: Severity
    step: int | None = None
    tool: str | None = None
    environment_id: str | None = None
    message: str


class UnknownMessage(BaseModel):
    """A message of a type envtui does not know: kept whole so it can be written back."""

    model_config = ConfigDict(frozen=True)
    type: str
    raw: dict[str, Any]


KNOWN_MESSAGES: dict[str, type[VocabularyMessage]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        EnvironmentConnected,
        EnvironmentDisconnected,
        EnvironmentStatus,
        EnvironmentRemoved,
        WarningMessage,
        SourceStatus,
        StepRecorded,
        FindingReported,
        IncidentOpened,
        IncidentResolved,
        IncidentAcknowledged,
        *THREAD_MESSAGES,
    )
}

UNKNOWN_TAG = "unknown"
"""The tag of :class:`UnknownMessage` among the messages (no known type is named so)."""


def message_tag(value: object) -> str:
    """Which member of :data:`AnyMessage` validates ``value``: the class its ``type`` names.

    Tagged by ``type``, a message is validated against its own class alone (sources build
    an event for every message; trying the classes in turn cost a third of that). Anything
    that names no known type, and every :class:`UnknownMessage`, is an unknown message.
    """
    if isinstance(value, dict):
        kind = value.get("type")
    elif isinstance(value, UnknownMessage):
        return UNKNOWN_TAG
    else:
        kind = getattr(value, "type", None)
    return kind if isinstance(kind, str) and kind in KNOWN_MESSAGES else UNKNOWN_TAG


if TYPE_CHECKING:  # as the type checker reads it: one of the classes of the table
    AnyMessage: TypeAlias = (
        EnvironmentConnected
        | EnvironmentDisconnected
        | EnvironmentStatus
        | EnvironmentRemoved
        | WarningMessage
        | SourceStatus
        | StepRecorded
        | FindingReported
        | IncidentOpened
        | IncidentResolved
        | IncidentAcknowledged
        | AnyThreadMessage
        | UnknownMessage
    )
else:  # at run time, each class of the table tagged by its type
    AnyMessage = Annotated[
        Union[  # built from the table, so the union is too
            (
                *(Annotated[cls, Tag(tag)] for tag, cls in KNOWN_MESSAGES.items()),
                Annotated[UnknownMessage, Tag(UNKNOWN_TAG)],
            )
        ],
        Discriminator(message_tag),
    ]
"""Every message an event may carry, each validated against the class its ``type`` names."""


class Event(BaseModel):
    """``{"id", "msg"}``, plus an optional ``at`` time."""

    model_config = ConfigDict(frozen=True)
    id: str
    msg: AnyMessage
    at: AwareTime | None = None


def thread_event(msg: VocabularyMessage | UnknownMessage, *, at: datetime | None = None) -> Event:
    """An event that belongs to the thread, not to a submission: ``id`` is ``""``."""
    return Event(id=THREAD_EVENT_ID, msg=msg, at=at)


EventSink: TypeAlias = Callable[[Event], None]
"""Where a source puts each event as it happens: the store, a file writer, a test's list."""

Source: TypeAlias = Callable[[EventSink, "asyncio.Event"], Awaitable[None]]
"""A stream of events: called with a sink and a stop flag, it returns once it is done or
``stop`` is set. Every source (live, demo, replay, rollout, codex) has this shape, so a
front end and a wrapper such as a recording need to know nothing else about it."""


def connection_change(msg: object) -> tuple[str, ConnectionState] | None:
    """The environment and its new connection state, if ``msg`` is a connection event."""
    if isinstance(msg, EnvironmentConnected):
        return msg.environment_id, "connected"
    if isinstance(msg, EnvironmentDisconnected):
        return msg.environment_id, "disconnected"
    return None


# --- JSONL -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecodeError:
    """A line that is not an event; ``line`` is 1-based. The rest of the stream is read."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def message_to_json(msg: VocabularyMessage | UnknownMessage) -> dict[str, Any]:
    if isinstance(msg, UnknownMessage):
        return msg.raw
    data: dict[str, Any] = msg.model_dump(mode="json", exclude_defaults=False)
    # ``type`` first, as Codex writes it; optional fields only when they carry a value.
    ordered = {"type": data.pop("type")}
    ordered.update({k: v for k, v in data.items() if v is not None})
    return ordered


def encode_event(event: Event) -> str:
    """One compact JSON line (no newline): ``{"id":…,"msg":{…}}`` then ``"at"`` if set.

    Characters a terminal would act on (C1 controls, bidi overrides, zero-width ones) and
    lone surrogates are written as ``\\u`` escapes: the value is the same, and the line is
    safe to print and always valid UTF-8.
    """
    data: dict[str, Any] = {"id": event.id, "msg": message_to_json(event.msg)}
    if event.at is not None:
        data["at"] = event.at.isoformat()
    return dumps_json_line(data)


def decode_message(raw: object) -> VocabularyMessage | UnknownMessage:
    """A ``msg`` object as its typed message; raises ValueError when it is not one."""
    if not isinstance(raw, dict):
        raise ValueError("msg: expected an object")
    kind = raw.get("type")
    if not isinstance(kind, str):
        raise ValueError("msg.type: expected a string")
    cls = KNOWN_MESSAGES.get(kind)
    if cls is None:
        return UnknownMessage(type=kind, raw=raw)
    try:
        return cls.model_validate(raw)
    except ValidationError as exc:
        error = first_error(exc)
        raise ValueError(
            f"msg.{error.key}: {error.message}" if error.key else f"msg: {error.message}"
        ) from None


def decode_event(line: str) -> Event:
    """Parse one JSONL line; raises ValueError with a message that names the field."""
    try:
        data = load_json(line)
    except JsonInputError as exc:
        where = f" at column {exc.column}" if exc.column is not None else ""
        raise ValueError(f"invalid JSON{where}: {exc.reason}") from None
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    event_id = data.get("id")
    if not isinstance(event_id, str):
        raise ValueError("id: expected a string")
    raw, at = data.get("msg"), data.get("at")
    event = _known_event(event_id, raw, at)
    return event if event is not None else _checked_event(event_id, raw, at)


def _known_event(event_id: str, raw: object, at: object) -> Event | None:
    """The event of a message of a known type, validated in one pass (the event and its
    message together, the message against the class its ``type`` names); None when
    anything is wrong, for :func:`_checked_event` to name it as it always has.

    Nearly every line of a stream is such an event: one validation instead of two saves
    about an eighth of reading it.
    """
    kind = raw.get("type") if isinstance(raw, dict) else None
    if not (isinstance(kind, str) and kind in KNOWN_MESSAGES):
        return None
    fields = {"id": event_id, "msg": raw}
    if at is not None:
        if not isinstance(at, str):
            return None
        try:
            fields["at"] = datetime.fromisoformat(at)
        except ValueError:
            return None
    try:
        event: Event = _validate_event(fields)
    except ValidationError:
        return None
    return event


_validate_event = Event.__pydantic_validator__.validate_python
"""``Event.model_validate`` without its wrapper, which costs a tenth of reading an event."""


def _checked_event(event_id: str, raw: object, at: object) -> Event:
    """The event, checked step by step: the message, then its time; raises ValueError
    naming the first thing that is wrong (or returns it, an unknown message kept whole)."""
    msg = decode_message(raw)
    if at is None:
        return Event(id=event_id, msg=msg)
    if not isinstance(at, str):
        raise ValueError("at: expected an ISO time string")
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        raise ValueError(f"at: not an ISO time: {shorten(at)!r}") from None
    try:  # the event makes the time aware (or refuses it): once, not twice
        return Event(id=event_id, msg=msg, at=when)
    except ValidationError as exc:
        raise ValueError(f"at: {first_error(exc).message}") from None


def shorten(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (with ``…``), for quoting input in a message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def decode_lines(lines: Iterable[str | LineTooLong]) -> Iterator[Event | DecodeError]:
    """Events from JSONL lines; blank lines are skipped, bad ones yield :class:`DecodeError`.

    A :class:`~envtui.vocabulary.limits.LineTooLong` (from
    :func:`~envtui.vocabulary.limits.bounded_lines`) is a bad line too.
    """
    for number, line in enumerate(lines, start=1):
        if isinstance(line, LineTooLong):
            yield DecodeError(line=number, message=str(line))
            continue
        if not line or line.isspace():
            continue
        try:
            yield decode_event(line)
        except ValueError as exc:
            yield DecodeError(line=number, message=str(exc))
