"""envtui's own runtime as a source: the configured environments under Codex's selection
rules, and a step every few seconds.

The :class:`Engine` registers every configured environment, selects them in config order,
and forwards the manager's events. It also does what a dashboard's retries are for: when
an environment whose resolution failed comes back, it re-issues the same selection, so
Codex's rule "a failed resolution is replaced on the next update" takes the recovered
instance.

:class:`LiveRun` steps it: each turn takes the manager's snapshot once; every step
refreshes it (finished startups are promoted, no new selection is adopted), captures a
StepContext and emits it with its findings. A source that simulates the model's calls (the
demo) gets each step back and names calls; they execute one step interval later, and
where they ran is checked against the step that offered the tool.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from envtui.context.local_time import detect_timezone, system_clock
from envtui.context.model import EnvironmentsState
from envtui.environments.factory import build_environment
from envtui.environments.manager import EnvironmentManager
from envtui.settings.config import AnyEnvironmentConfig, Config
from envtui.steps.capture import StepCapture, StepContext
from envtui.steps.emit import step_events
from envtui.steps.report import CheckReport, StepReport
from envtui.steps.rules import check_step, selected_never_resolved
from envtui.steps.section import SectionSettings, network_context, section_for
from envtui.steps.selection import Selection, SelectionSnapshot
from envtui.steps.tools import ToolSpec
from envtui.steps.unchecked import CONTEXT_CODES, EXECUTION_CODE, unchecked_codes
from envtui.steps.values import Finding, ToolCall
from envtui.vocabulary.events import EnvironmentStatus, Event, EventSink, connection_change
from envtui.vocabulary.profiles import Profile
from envtui.vocabulary.stopping import CLEANUP_GRACE, wait_for_stop, within
from envtui.vocabulary.terms import ConnectionState


class Engine:
    def __init__(
        self,
        config: Config,
        sink: EventSink,
        *,
        clock: Callable[[], datetime] = system_clock,
        environments: Sequence[AnyEnvironmentConfig] | None = None,
        hermetic: bool = False,
    ) -> None:
        """``environments`` replaces the config's own (for example Codex's environments.toml).

        ``hermetic`` keeps SSH away from ``~/.ssh/config`` and the agent (the demo's own hosts).
        """
        self.config = config
        self._sink = sink
        self.clock = clock
        self.manager = EnvironmentManager(self._on_event, clock=clock)
        chosen = list(environments) if environments is not None else config.selected()
        self.environments = [build_environment(c, clock=clock, hermetic=hermetic) for c in chosen]
        self.selections = [Selection(c.id, c.cwd, tuple(c.workspace_roots)) for c in chosen]
        network = config.network
        self.section_settings = SectionSettings(
            profile=config.codex_profile,
            timezone=detect_timezone(config.timezone),
            network=network_context(network.allowed, network.denied) if network else None,
            include_environment_context=config.include_environment_context,
        )
        self._reselect_pending = False
        self.connection: dict[str, ConnectionState] = {}  # the latest connection event per id

    @property
    def timezone(self) -> str:
        return self.section_settings.timezone

    def start(self) -> None:
        for environment in self.environments:
            self.manager.register(environment)
        self.manager.update_selections(self.selections)

    def _on_event(self, event: Event) -> None:
        self._sink(event)
        msg = event.msg
        change = connection_change(msg)
        if change is not None:
            self.connection[change[0]] = change[1]
        if (
            isinstance(msg, EnvironmentStatus)
            and msg.status == "ready"
            and self._resolution_failed(msg.environment_id)
            and not self._reselect_pending
        ):
            self._reselect_pending = True
            asyncio.get_running_loop().call_soon(self._reselect)

    def _resolution_failed(self, environment_id: str) -> bool:
        entry = next(
            (e for e in self.manager.snapshot().entries if e.environment_id == environment_id),
            None,
        )
        return entry is not None and entry.state == "failed"

    def _reselect(self) -> None:
        self._reselect_pending = False
        self.manager.update_selections(self.selections)

    async def snapshot(self, timeout: float | None) -> SelectionSnapshot:
        return await self.manager.snapshot_blocking(timeout=timeout)

    def section(self, snapshot: SelectionSnapshot) -> EnvironmentsState | None:
        """The context section for ``snapshot`` now (None when the include switch is off)."""
        return section_for(snapshot, self.section_settings, self.clock())

    async def aclose(self) -> None:
        await self.manager.aclose()


CallPlanner = Callable[[StepContext], Sequence[ToolCall]]
TurnHook = Callable[[int], Awaitable[None]]


@dataclasses.dataclass(eq=False)
class LiveRun:
    """Steps ``engine`` (see the module): a turn every ``turn_steps`` steps, one every
    ``step_interval`` seconds, each step's events to ``sink``."""

    engine: Engine
    sink: EventSink
    _: dataclasses.KW_ONLY
    step_interval: float = 2.0
    turn_steps: int = 20
    thread: str | None = None
    plan_calls: CallPlanner | None = None
    route_live: Callable[[ToolCall], str | None] | None = None
    on_turn: TurnHook | None = None
    capture: StepCapture = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.capture = StepCapture(self.engine.section_settings)

    async def run(self, stop: asyncio.Event) -> None:
        self.engine.start()
        try:
            turn_number = 0
            pending: tuple[StepContext, Sequence[ToolCall]] | None = None
            while not stop.is_set():
                turn_number += 1
                if self.on_turn is not None:
                    await self.on_turn(turn_number)
                turn = self.engine.manager.snapshot()
                for _ in range(self.turn_steps):
                    if await wait_for_stop(stop, self.step_interval):
                        return
                    executed = self._execute(*pending) if pending is not None else None
                    step = self.capture.capture(
                        turn.refreshed(), connection=dict(self.engine.connection)
                    )
                    for event in step_events(step, thread=self.thread, executed=executed):
                        self.sink(event)
                    calls = self.plan_calls(step) if self.plan_calls is not None else ()
                    pending = (step, calls) if calls else None
        finally:
            await self.engine.aclose()

    def _execute(self, step: StepContext, calls: Sequence[ToolCall]) -> list[Finding] | None:
        """Run the calls a step's model made, routed as the source says, and check where.

        The findings (about ``step``) go out with the next step's, whose record says the
        rule ran; None when nothing routes calls here, so the rule did not run.
        """
        if self.route_live is None:
            return None
        executed = [
            ToolCall(c.tool, c.environment_id, self.route_live(c), c.call_id) for c in calls
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
