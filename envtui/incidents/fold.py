"""Findings folded into incidents: one per episode of a condition, and its state.

A rule raises its finding at every step its cause lasts; an operator asks what is wrong
now, since when, and whether it recovered. So findings with the same code about the same
environment (or, for a rule that names tools and no environment, the same tool) are one
incident while they keep being raised: first and last seen, how many steps raised it, and
its state:

- **active**: raised at the latest step that evaluated its rule;
- **acknowledged**: the operator said they know; it stays so until it resolves;
- **resolved**: a later step evaluated the rule and did not raise it (that step and its
  time are kept). Raised again later, it is a new incident.

A step says which rules it could not run (``StepRecorded.unchecked``); those neither raise
nor resolve. A finding that names several environments (``'flaky', 'ghost'``) counts for
each, so a second environment joining does not end and restart the first one's incident.

The findings of a step follow its record. The step settles (what it did not raise is
resolved) once the number of findings it announced have arrived, or, for a recording from
before steps announced it, at the next event that is not one of its findings. Every source
(live, demo, replay, rollout, codex) goes through this one fold, in the store, in
``envtui events`` and in ``envtui check``; ``envtui sessions`` and the metrics read it too.
Memory is bounded: resolved incidents beyond ``max_incidents`` are dropped oldest first,
and each incident keeps the last ``history`` steps that raised it. What the resolved
episodes of each code and subject add up to (how many, since when, the last) is kept per
key for the ``max_incidents`` keys resolved last, so a view folds a host's 300 episodes
into one line whose count stays true after the oldest episodes are dropped.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from envtui.incidents.coverage import evaluated
from envtui.vocabulary.terms import Severity

if TYPE_CHECKING:
    from envtui.vocabulary.events import Event, FindingReported, StepRecorded
    from envtui.vocabulary.incident_messages import (
        AnyIncident,
        IncidentAcknowledged,
        IncidentOpened,
        IncidentResolved,
    )

IncidentKey = tuple[str, str | None, str | None]
"""(code, environment, tool): what one incident is about."""
IncidentState = Literal["active", "acknowledged", "resolved"]
STATE_ORDER: dict[IncidentState, int] = {"active": 0, "acknowledged": 1, "resolved": 2}


class FindingFields(Protocol):
    """What the fold reads of a finding: a :class:`FindingReported` event, or a check's
    own finding as it is, with no event made of it first."""

    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> Severity: ...
    @property
    def step(self) -> int | None: ...
    @property
    def tool(self) -> str | None: ...
    @property
    def environment_id(self) -> str | None: ...
    @property
    def message(self) -> str: ...


DEFAULT_INCIDENTS = 1_000
DEFAULT_HISTORY = 100


def _names(text: str | None) -> list[str]:
    return [part.strip() for part in (text or "").split(",") if part.strip()]


@lru_cache(maxsize=1024)
def incident_keys(
    code: str, environment_id: str | None, tool: str | None
) -> tuple[IncidentKey, ...]:
    """The incidents one finding counts for: one per environment it names, else one per
    tool it names, else one for its code alone. (Kept for the names last seen: a long
    check raises the same few again and again.)"""
    environments = list(dict.fromkeys(_names(environment_id)))
    if environments:
        return tuple((code, env, None) for env in environments)
    tools = list(dict.fromkeys(_names(tool)))
    return tuple((code, None, t) for t in tools) if tools else ((code, None, None),)


@cache
def _event_kinds() -> tuple[
    type[FindingReported],
    type[StepRecorded],
    type[IncidentAcknowledged],
    type[IncidentOpened],
    type[IncidentResolved],
]:
    """The event classes :meth:`IncidentFold.apply` tells apart, imported with the first
    event: a fold given only a check's own findings (the sessions index) builds no event
    model, and so indexes a tree without importing pydantic."""
    from envtui.vocabulary.events import FindingReported, StepRecorded
    from envtui.vocabulary.incident_messages import (
        IncidentAcknowledged,
        IncidentOpened,
        IncidentResolved,
    )

    return FindingReported, StepRecorded, IncidentAcknowledged, IncidentOpened, IncidentResolved


class Raise(NamedTuple):
    """One step that raised an incident (None: a finding of the whole thread). A named
    tuple: one is made for every raise of every step, and a tuple is made fastest."""

    step: int | None
    at: datetime | None
    message: str


@dataclass(slots=True)
class Incident:
    number: int
    """Its place among the incidents of the run, from 1: a stable id for views."""
    key: IncidentKey
    severity: Severity
    message: str
    first_step: int | None
    first_at: datetime | None
    last_step: int | None
    last_at: datetime | None
    steps: int = 0
    state: IncidentState = "active"
    resolved_step: int | None = None
    resolved_at: datetime | None = None
    acknowledged_at: datetime | None = None
    raises: deque[Raise] = field(default_factory=lambda: deque(maxlen=DEFAULT_HISTORY))

    @property
    def code(self) -> str:
        return self.key[0]

    @property
    def environment_id(self) -> str | None:
        return self.key[1]

    @property
    def tool(self) -> str | None:
        return self.key[2]

    @property
    def is_open(self) -> bool:
        return self.state != "resolved"

    def as_json(self) -> dict[str, Any]:
        """The incident in ``envtui check --json``."""
        return {
            "code": self.code,
            "environments": [self.environment_id] if self.environment_id else [],
            "tool": self.tool,
            "first_step": self.first_step,
            "last_step": self.last_step,
            "steps": self.steps,
            "resolved_step": self.resolved_step,
        }


@dataclass(slots=True)
class Episodes:
    """The resolved episodes of one key: how many, when the first began, when the last
    resolved (kept after the episodes themselves are dropped)."""

    count: int
    first_at: datetime | None
    last_resolved_at: datetime | None


@dataclass(slots=True)
class _Window:
    """The step whose findings are still arriving."""

    step: int
    at: datetime | None
    unchecked: frozenset[str] | None
    expected: int | None
    seen: int = 0
    raised: set[IncidentKey] = field(default_factory=set)


_new_raise = tuple.__new__
"""What ``Raise(...)`` calls, called directly."""


class IncidentFold:
    """Steps and findings in, incident messages out; see the module."""

    def __init__(
        self,
        *,
        max_incidents: int = DEFAULT_INCIDENTS,
        history: int = DEFAULT_HISTORY,
        messages: bool = True,
    ) -> None:
        """``messages=False``: the incidents are kept, and no incident message is made
        (every method returns an empty list), for a reader that asks the fold, not its
        output."""
        self.open: dict[IncidentKey, Incident] = {}
        self.resolved: deque[Incident] = deque(maxlen=max_incidents)
        self.episodes: OrderedDict[IncidentKey, Episodes] = OrderedDict()
        """Per key, its resolved episodes added up; the key resolved last at the end."""
        self.resolved_total = 0
        """Every episode resolved in this run, also those no longer held."""
        self.version = 0
        """Counts changes, so a view redraws only when something changed."""
        self._max_incidents = max_incidents
        self._history = history
        self._messages = messages
        self._window: _Window | None = None
        self._last_step: int | None = None
        self._count = 0

    # --- events in ---------------------------------------------------------------------------

    def apply(self, event: Event) -> list[AnyIncident]:
        """Fold one event; the incident messages it caused, in order."""
        msg = event.msg
        finding, step, acknowledged, opened, resolved = _event_kinds()
        if isinstance(msg, finding):
            return self.finding(msg, event.at)
        if isinstance(msg, step):
            return self.step(msg.step, event.at, msg.unchecked, msg.findings)
        if isinstance(msg, acknowledged):
            return self.acknowledge(msg, event.at)
        if isinstance(msg, opened | resolved):
            return []  # derived: folding the same steps gives them again
        if self.settles_on_next_event:
            return self.settle()  # an old recording's step: its findings are over
        return []

    @property
    def settles_on_next_event(self) -> bool:
        """Whether the next event that is not a finding settles a step (one of an old
        recording, which did not say how many findings follow): until then, any other
        event is nothing to the fold, and a reader may pass it over."""
        return self._window is not None and self._window.expected is None

    def step(
        self,
        number: int,
        at: datetime | None,
        unchecked: Iterable[str] | None,
        expected: int | None = None,
    ) -> list[AnyIncident]:
        """A step was recorded; ``expected`` findings of its check follow (None: unknown)."""
        out = self.settle()
        if self._last_step is not None and number <= self._last_step:
            self._restart()
        self._last_step = number
        codes = frozenset(unchecked) if unchecked is not None else None
        self._window = _Window(number, at, codes, expected)
        if expected is not None and expected <= 0:
            out += self.settle()
        return out

    def finding(self, msg: FindingFields, at: datetime | None) -> list[AnyIncident]:
        """A finding: each incident it counts for is raised (opened if none is open)."""
        window, step = self._window, msg.step
        out: list[AnyIncident] = []
        for key in incident_keys(msg.code, msg.environment_id, msg.tool):
            opened = self._raise(key, msg, step, at)
            if opened is not None:
                out.append(opened)
            if window is not None:
                window.raised.add(key)
        if window is not None:
            window.seen += 1
            if window.expected is not None and window.seen >= window.expected:
                out += self.settle()
        self.version += 1
        return out

    def acknowledge(self, msg: IncidentAcknowledged, at: datetime | None) -> list[AnyIncident]:
        """The operator's acknowledgement of an active episode (another episode: ignored)."""
        incident = self.open.get((msg.code, msg.environment_id, msg.tool))
        if incident is None or incident.state != "active":
            return []
        if msg.first_step is not None and msg.first_step != incident.first_step:
            return []
        incident.state, incident.acknowledged_at = "acknowledged", at
        self.version += 1
        return [msg] if self._messages else []

    def settle(self) -> list[AnyIncident]:
        """End the pending step: every open incident its rules evaluated and it did not
        raise is resolved at that step. (Also at the end of a stream.)"""
        window, self._window = self._window, None
        if window is None or self.open.keys() <= window.raised:
            return []  # the usual step: it raised again every incident that is open
        out: list[AnyIncident] = []
        changed = False
        for key, incident in list(self.open.items()):
            if key in window.raised or not evaluated(incident.code, window.unchecked):
                continue
            incident.state = "resolved"
            incident.resolved_step, incident.resolved_at = window.step, window.at
            del self.open[key]
            self.resolved.append(incident)
            self._count_resolved(incident)
            changed = True
            if self._messages:
                out.append(resolved_message(incident))
        if changed:
            self.version += 1
        return out

    def _count_resolved(self, incident: Incident) -> None:
        self.resolved_total += 1
        tally = self.episodes.pop(incident.key, None)
        if tally is None:
            tally = Episodes(0, incident.first_at, None)
        tally.count += 1
        tally.last_resolved_at = incident.resolved_at or tally.last_resolved_at
        tally.first_at = tally.first_at or incident.first_at
        self.episodes[incident.key] = tally
        if len(self.episodes) > self._max_incidents:
            del self.episodes[next(iter(self.episodes))]

    # --- the incidents -----------------------------------------------------------------------

    def _raise(
        self, key: IncidentKey, msg: FindingFields, step: int | None, at: datetime | None
    ) -> IncidentOpened | None:
        incident = self.open.get(key)
        opened = None
        if incident is None:
            self._count += 1
            incident = Incident(
                self._count,
                key,
                msg.severity,
                msg.message,
                first_step=step,
                first_at=at,
                last_step=step,
                last_at=at,
                raises=deque(maxlen=self._history),
            )
            self._make_room()
            self.open[key] = incident
            if self._messages:
                opened = _event_kinds()[3](
                    code=key[0],
                    environment_id=key[1],
                    tool=key[2],
                    first_step=step,
                    severity=msg.severity,
                    message=msg.message,
                )
        elif step is not None and step == incident.last_step and incident.raises:
            return None  # the same step again (several findings name it): counted once
        incident.steps += 1
        # A rule raises the same words at every step: kept once, not once per raise.
        message = incident.message if msg.message == incident.message else msg.message
        incident.message, incident.last_step = message, step
        incident.last_at = at if at is not None else incident.last_at
        incident.raises.append(_new_raise(Raise, (step, at, message)))
        return opened

    def _make_room(self) -> None:
        """Keep at most ``max_incidents`` open: the oldest open one is let go first."""
        while len(self.open) >= self._max_incidents:
            del self.open[next(iter(self.open))]

    def _restart(self) -> None:
        """Step numbers went back: a new run (a replaced rollout); its incidents start over."""
        self.open.clear()
        self.resolved.clear()
        self.episodes.clear()
        self.resolved_total = 0
        self.version += 1

    def incidents(self) -> list[Incident]:
        """Every incident held: active, then acknowledged, then resolved; newest first."""
        opened = sorted(self.open.values(), key=lambda i: (STATE_ORDER[i.state], -i.number))
        return opened + list(reversed(self.resolved))

    def active(self) -> list[Incident]:
        """The open incidents nobody acknowledged: what the banner and header count."""
        return [i for i in self.open.values() if i.state == "active"]

    def open_codes(self) -> list[str]:
        """The codes of every open incident: a thread's "active incidents" for the sessions
        view and the metrics, which know no acknowledgement."""
        return sorted({i.code for i in self.open.values()})

    def find(self, number: int) -> Incident | None:
        return next((i for i in self.incidents() if i.number == number), None)


def _naming(incident: Incident) -> dict[str, Any]:
    """The fields that name an episode in every incident message."""
    code, environment_id, tool = incident.key
    return {
        "code": code,
        "environment_id": environment_id,
        "tool": tool,
        "first_step": incident.first_step,
    }


def resolved_message(incident: Incident) -> IncidentResolved:
    return _event_kinds()[4](
        **_naming(incident),
        step=incident.resolved_step,
        last_step=incident.last_step,
        steps=incident.steps,
    )


def acknowledgement(incident: Incident) -> IncidentAcknowledged:
    """The message an operator's acknowledgement of ``incident`` is recorded as."""
    return _event_kinds()[2](**_naming(incident))
