"""The engine as a live source: environments, and a step every few seconds.

Each turn takes the manager's snapshot once; every step refreshes it (finished startups
are promoted, no new selection is adopted), captures a StepContext and emits it with its
findings. A source that simulates the model's calls (the demo) gets each step back and
names calls; they execute one step interval later, and where they ran is checked against
the step that offered the tool.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence

from envtui.rollout.check import CheckReport, StepReport
from envtui.settings.config import AnyEnvironmentConfig, Config
from envtui.sources.engine import Engine
from envtui.steps.capture import StepCapture, StepContext
from envtui.steps.emit import step_events
from envtui.steps.rules import check_step, selected_never_resolved
from envtui.steps.tools import ToolSpec
from envtui.steps.unchecked import CONTEXT_CODES, EXECUTION_CODE, unchecked_codes
from envtui.steps.values import Finding, ToolCall
from envtui.vocabulary.events import EventSink
from envtui.vocabulary.profiles import Profile
from envtui.vocabulary.stopping import CLEANUP_GRACE, wait_for_stop, within

CallPlanner = Callable[[StepContext], Sequence[ToolCall]]
TurnHook = Callable[[int], Awaitable[None]]


class LiveRun:
    def __init__(
        self,
        engine: Engine,
        sink: EventSink,
        *,
        step_interval: float = 2.0,
        turn_steps: int = 20,
        thread: str | None = None,
        plan_calls: CallPlanner | None = None,
        route_live: Callable[[ToolCall], str | None] | None = None,
        on_turn: TurnHook | None = None,
    ) -> None:
        self.engine = engine
        self._sink = sink
        self.step_interval = step_interval
        self.turn_steps = turn_steps
        self.thread = thread
        self._plan_calls = plan_calls
        self._route_live = route_live
        self._on_turn = on_turn
        self.capture = StepCapture(engine.section_settings)

    async def run(self, stop: asyncio.Event) -> None:
        self.engine.start()
        try:
            turn_number = 0
            pending: tuple[StepContext, Sequence[ToolCall]] | None = None
            while not stop.is_set():
                turn_number += 1
                if self._on_turn is not None:
                    await self._on_turn(turn_number)
                turn = self.engine.manager.snapshot()
                for _ in range(self.turn_steps):
                    if await wait_for_stop(stop, self.step_interval):
                        return
                    executed = self._execute(*pending) if pending is not None else None
                    step = self.capture.capture(
                        turn.refreshed(), connection=dict(self.engine.connection)
                    )
                    for event in step_events(step, thread=self.thread, executed=executed):
                        self._sink(event)
                    calls = self._plan_calls(step) if self._plan_calls is not None else ()
                    pending = (step, calls) if calls else None
        finally:
            await self.engine.aclose()

    def _execute(self, step: StepContext, calls: Sequence[ToolCall]) -> list[Finding] | None:
        """Run the calls a step's model made, routed as the source says, and check where.

        The findings (about ``step``) go out with the next step's, whose record says the
        rule ran; None when nothing routes calls here, so the rule did not run.
        """
        if self._route_live is None:
            return None
        executed = [
            ToolCall(c.tool, c.environment_id, self._route_live(c), c.call_id) for c in calls
        ]
        result = check_step(
            step.view, step.tools, self.capture.profile, calls=executed, connection=None
        )
        return [f for f in result.findings if f.code == EXECUTION_CODE]


async def watch(
    config: Config,
    sink: EventSink,
    stop: asyncio.Event,
    *,
    environments: Sequence[AnyEnvironmentConfig] | None = None,
) -> None:
    """``envtui watch``: the configured environments, a step every ``step_interval``."""
    engine = Engine(config, sink, environments=environments)
    await LiveRun(engine, sink, step_interval=config.step_interval).run(stop)


def _engine_report(step: StepContext) -> StepReport:
    """An engine step as the check reports it; with no calls and no Codex context to
    compare, those rules did not run."""
    not_run = (*CONTEXT_CODES, EXECUTION_CODE)
    notes = [n.text for n in step.notes]
    unchecked = set(unchecked_codes(step.notes, not_run))
    return StepReport(step.number, 1, None, step.diff_text, list(step.findings), notes, unchecked)


async def check_engine_steps(
    engine: Engine,
    *,
    steps: int,
    interval: float,
    profile: Profile | None = None,
    tools: list[ToolSpec] | None = None,
    stop: asyncio.Event | None = None,
) -> CheckReport:
    """``envtui check`` without a rollout: start the environments, then take ``steps`` steps.

    As in Codex, the turn keeps its selection; each step, ``interval`` apart, only promotes
    environments whose startup finished. Connection events seen so far feed the
    stale-available rule. ``profile`` replaces the config's. ``stop`` ends it early, with
    the steps taken so far.
    """
    stop = stop or asyncio.Event()
    settings = engine.section_settings
    if profile is not None:
        settings = dataclasses.replace(settings, profile=profile)
    engine.start()
    captured: list[StepContext] = []
    try:
        turn = engine.manager.snapshot()
        capture = StepCapture(settings)
        for _ in range(steps):
            if await wait_for_stop(stop, interval):
                break
            captured.append(
                capture.capture(turn.refreshed(), connection=dict(engine.connection), tools=tools)
            )
    finally:
        await within(CLEANUP_GRACE, engine.aclose())
    reports = [_engine_report(s) for s in captured]
    thread = selected_never_resolved(
        [sel.environment_id for sel in engine.selections], [s.view for s in captured]
    )
    findings = [f for r in reports for f in r.findings] + thread
    return CheckReport(reports, findings, [])
