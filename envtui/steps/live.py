"""The engine's own steps: a simulated turn over the configured environments, checked."""

from __future__ import annotations

import asyncio

from envtui.profiles import Profile
from envtui.sources.engine import Engine
from envtui.steps.capture import StepRecorder
from envtui.steps.check import CheckReport, StepReport
from envtui.steps.rules import selected_never_resolved
from envtui.steps.tools import ToolSpec


async def check_engine_steps(
    engine: Engine,
    *,
    steps: int,
    interval: float,
    profile: Profile,
    tools: list[ToolSpec] | None = None,
) -> CheckReport:
    """Start the environments, take the turn's snapshot, then ``steps`` steps ``interval`` apart.

    As in Codex, the turn keeps its selection; each step only promotes environments whose
    startup finished. Connection events seen so far feed the stale-available rule.
    """
    engine.start()
    try:
        turn = engine.manager.snapshot()
        recorder = StepRecorder(
            profile=profile,
            timezone=engine.timezone,
            network=engine.network(),
            include_environment_context=engine.config.include_environment_context,
        )
        for _ in range(steps):
            await asyncio.sleep(interval)
            recorder.capture(
                engine.manager.refresh_readiness(turn),
                connection=dict(engine.connection),
                tools=tools,
            )
    finally:
        await engine.aclose()
    reports = [
        StepReport(s.number, 1, None, s.diff_text, list(s.findings), list(s.notes))
        for s in recorder.steps
    ]
    thread = selected_never_resolved(
        [sel.environment_id for sel in engine.selections], [s.view for s in recorder.steps]
    )
    findings = [f for r in reports for f in r.findings] + thread
    return CheckReport(reports, findings, [])
