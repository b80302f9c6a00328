"""Step capture: one snapshot in, one StepContext out, everything derived from that snapshot.

At each step the turn's snapshot is refreshed (finished startups are promoted, no new
selection is adopted), the environments section is built from it under the profile,
rendered in full and as the diff against the previous step, its merge patch computed, the
tool plan worked out, and the rules run. Because all of it comes from the one snapshot,
what the model is told, what it is offered and where its calls go cannot disagree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from envtui.context.diff import render_diff
from envtui.context.local_time import system_clock
from envtui.context.model import SECTION_ID, EnvironmentsState
from envtui.context.patch import world_merge_patch
from envtui.context.render import render_full
from envtui.context.snapshot import snapshot as section_snapshot
from envtui.steps.plan import ToolFeatures, plan_tools
from envtui.steps.rules import check_step
from envtui.steps.section import SectionSettings, section_for
from envtui.steps.selection import SelectionSnapshot
from envtui.steps.tools import ToolSpec
from envtui.steps.values import Finding, Note, StepView, ToolCall
from envtui.vocabulary.profiles import Profile
from envtui.vocabulary.terms import ConnectionState


@dataclass(frozen=True)
class StepContext:
    """One captured step: the snapshot and everything derived from it."""

    number: int
    at: datetime
    snapshot: SelectionSnapshot
    state: EnvironmentsState | None
    section: dict[str, Any] | None
    full_text: str | None
    diff_text: str | None
    patch: dict[str, Any] | None
    tools: tuple[ToolSpec, ...]
    findings: tuple[Finding, ...]
    notes: tuple[Note, ...]
    view: StepView


class StepCapture:
    """Numbers steps from 1 and remembers the previous step's section for the next diff.

    It keeps only what the next step needs (the previous section and world state) and a
    count, never the steps themselves: whoever wants a history bounds its own.
    """

    def __init__(
        self,
        settings: SectionSettings,
        *,
        features: ToolFeatures | None = None,
        clock: Callable[[], datetime] = system_clock,
    ) -> None:
        self.settings = settings
        self.features = features or ToolFeatures()
        self._clock = clock
        self._previous: EnvironmentsState | None = None
        self._world: dict[str, Any] = {}
        self.count = 0

    @property
    def profile(self) -> Profile:
        return self.settings.profile

    def capture(
        self,
        snapshot: SelectionSnapshot,
        *,
        calls: Sequence[ToolCall] = (),
        connection: Mapping[str, ConnectionState] | None = None,
        tools: Sequence[ToolSpec] | None = None,
    ) -> StepContext:
        """Record one step. ``tools`` defaults to the profile's plan for this snapshot."""
        now = self._clock()
        number = self.count + 1
        state = section_for(snapshot, self.settings, now)
        section = section_snapshot(state) if state is not None else None
        world = {SECTION_ID: section} if section is not None else {}
        view = StepView.from_snapshot(number, snapshot)
        if state is not None:  # the context's own primary flag, which the rules compare
            marked = tuple(i for i in state.sorted_ids if state.environments[i].is_primary)
            view = dataclasses.replace(view, marked_primary=marked)
        offered = (
            tuple(tools)
            if tools is not None
            else tuple(plan_tools(view, self.profile, self.features))
        )
        result = check_step(
            view, offered, self.profile, calls=calls, connection=connection, features=self.features
        )
        step = StepContext(
            number=number,
            at=now,
            snapshot=snapshot,
            state=state,
            section=section,
            full_text=render_full(state) if state is not None else None,
            diff_text=render_diff(state, self._previous),
            patch=world_merge_patch(self._world, world),
            tools=offered,
            findings=tuple(result.findings),
            notes=tuple(result.notes),
            view=view,
        )
        self._previous, self._world = state, world
        self.count = number
        return step


def route(call: ToolCall, snapshot: SelectionSnapshot) -> str | None:
    """Where a call runs: the environment it names, else the primary of ``snapshot``.

    Routing by the *step's* snapshot, not by whatever is primary when the call executes, is
    what keeps a call in the environment the model was told about.
    """
    if call.environment_id is not None:
        return call.environment_id
    primary = snapshot.primary()
    return primary.environment_id if primary is not None else None
