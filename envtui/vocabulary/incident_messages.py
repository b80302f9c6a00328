"""The incident messages of the event vocabulary: opened, resolved, acknowledged.

A finding is raised at every step its cause lasts; an incident is one episode of it (see
:mod:`envtui.incidents.fold`, which folds findings into incidents). Opened and resolved are
derived: whoever folds a stream's steps and findings gets them again, so a replay treats
the recorded ones as a record, not as input. Acknowledged is an operator's act, which
nothing else can derive; a replay applies it to the same episode, named by its key and
the step it was first raised at.

Kept apart from :mod:`envtui.vocabulary.events`, which registers them, so each module stays one
readable size.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from envtui.vocabulary.terms import Severity as IncidentSeverity


class VocabularyMessage(BaseModel):
    """Any message of envtui's vocabulary: frozen, and no key it does not know."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class IncidentMessage(VocabularyMessage):
    """What names an incident: its finding code, environment and tool, and its first step.

    ``environment_id`` and ``tool`` are each a single name (or None): a finding that names
    several environments is one incident per environment.
    """

    code: str
    environment_id: str | None = None
    tool: str | None = None
    first_step: int | None = None
    """The step that opened the episode (None: a finding of the whole thread)."""


class IncidentOpened(IncidentMessage):
    """envtui: a finding's condition began (again): a new episode."""

    type: Literal["incident_opened"] = "incident_opened"
    severity: IncidentSeverity
    message: str


class IncidentResolved(IncidentMessage):
    """envtui: a later step evaluated the rule and did not raise it.

    ``step`` is that step; ``last_step`` the last step that raised it; ``steps`` how many
    steps raised it in all.
    """

    type: Literal["incident_resolved"] = "incident_resolved"
    step: int | None = None
    last_step: int | None = None
    steps: int = 0


class IncidentAcknowledged(IncidentMessage):
    """envtui: the operator acknowledged the episode; it stays so until it resolves."""

    type: Literal["incident_acknowledged"] = "incident_acknowledged"


INCIDENT_MESSAGES = (IncidentOpened, IncidentResolved, IncidentAcknowledged)
AnyIncident = IncidentOpened | IncidentResolved | IncidentAcknowledged
