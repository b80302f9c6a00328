"""The engine as a live source: environments, and a step every few seconds.

Each turn takes the manager's snapshot once; every step refreshes it (finished startups
are promoted, no new selection is adopted), captures a StepContext and emits it with its
findings. A source that simulates the model's calls (the demo) gets each step back and
names calls; they execute one step interval later, and where they ran is checked against
the step that offered the tool.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence

from envtui.config import AnyEnvironmentConfig, Config
from envtui.events import Event, thread_event
from envtui.sources.engine import Engine
from envtui.steps.capture import StepContext, StepRecorder
from envtui.steps.events import finding_event, step_events
from envtui.steps.model import ToolCall
from envtui.steps.rules import check_step

CallPlanner = Callable[[StepContext], Sequence[ToolCall]]
TurnHook = Callable[[int], Awaitable[None]]


class LiveRun:
    def __init__(
        self,
        engine: Engine,
        sink: Callable[[Event], None],
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
        self.recorder = StepRecorder(
            profile=engine.config.codex_profile,
            timezone=engine.timezone,
            network=engine.network(),
            include_environment_context=engine.config.include_environment_context,
        )

    async def _sleep(self, stop: asyncio.Event) -> bool:
        """Wait one interval; True when asked to stop."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=self.step_interval)
        return stop.is_set()

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
                    if await self._sleep(stop):
                        return
                    if pending is not None:
                        self._execute(*pending)
                    step = self.recorder.capture(
                        self.engine.manager.refresh_readiness(turn),
                        connection=dict(self.engine.connection),
                    )
                    for event in step_events(step, thread=self.thread):
                        self._sink(event)
                    calls = self._plan_calls(step) if self._plan_calls is not None else ()
                    pending = (step, calls) if calls else None
        finally:
            await self.engine.aclose()

    def _execute(self, step: StepContext, calls: Sequence[ToolCall]) -> None:
        """Run the calls a step's model made, routed as the source says, and check where."""
        if self._route_live is None:
            return
        executed = [
            ToolCall(c.tool, c.environment_id, self._route_live(c), c.call_id) for c in calls
        ]
        result = check_step(
            step.view, step.tools, self.recorder.profile, calls=executed, connection=None
        )
        for finding in result.findings:
            if finding.code == "execution-routed-elsewhere":
                self._sink(thread_event(finding_event(finding), at=self.engine.clock()))


async def watch(
    config: Config,
    sink: Callable[[Event], None],
    stop: asyncio.Event,
    *,
    environments: Sequence[AnyEnvironmentConfig] | None = None,
) -> None:
    """``envtui watch``: the configured environments, a step every ``step_interval``."""
    engine = Engine(config, sink, environments=environments)
    await LiveRun(engine, sink, step_interval=config.step_interval).run(stop)
