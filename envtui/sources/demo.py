"""The embedded demo: envtui's real engine against in-process SSH servers on 127.0.0.1.

Selection order: ``build`` (slow to authenticate, so ``local`` is primary until it is
ready), ``local``, ``flaky`` (drops every 15 s and comes back), ``ghost`` (its host goes
away for good after 8 s, while Codex's snapshot keeps calling it available: stale-available),
``gpu`` (never finishes authenticating: always starting) and ``legacy`` (presents a host
key that does not match known_hosts: always unavailable). Every turn ``build`` is replaced
by a fresh instance (as ``environment/add`` does), so each turn replays the StepContext
case: a step built while only ``local`` is ready, and a call that the live primary would
route to ``build``. After the first five seconds something is always ready, starting and
unavailable, and both findings stay in view.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncssh

from envtui.context.local_time import system_clock
from envtui.environments.factory import build_environment
from envtui.settings.config import AnyEnvironmentConfig, Config
from envtui.sources.demo_ssh_server import DemoSshServer
from envtui.sources.engine import Engine, LiveRun
from envtui.steps.capture import StepContext, route
from envtui.steps.tools import EXEC_COMMAND
from envtui.steps.values import ToolCall
from envtui.vocabulary.events import EventSink
from envtui.vocabulary.stopping import cancel_and_wait, wait_for_stop
from envtui.vocabulary.terms import LOCAL_ID

THREAD = "demo-thread"
BUILD_DELAY = 4.0
FLAKY_PERIOD = 15.0
GHOST_LIFETIME = 8.0


def _ssh_entry(env_id: str, server: DemoSshServer, directory: Path, **extra: Any) -> dict[str, Any]:
    return {
        "id": env_id,
        "kind": "ssh",
        "cwd": str(directory),
        "workspace_roots": [str(directory)],
        "host": "127.0.0.1",
        "port": server.port,
        "user": "demo",
        "identity_files": [str(directory / "client_key")],
        "known_hosts": str(directory / "known_hosts"),
        "keepalive_interval": 2,
        "keepalive_count_max": 2,
        "backoff_initial": 1,
        "backoff_max": 4,
        **extra,
    }


class Demo:
    def __init__(
        self,
        sink: EventSink,
        *,
        step_interval: float = 2.0,
        turn_steps: int = 8,
        clock: Callable[[], datetime] = system_clock,
    ) -> None:
        self._sink = sink
        self.step_interval = step_interval
        self.turn_steps = turn_steps
        self._clock = clock
        self.servers: dict[str, DemoSshServer] = {}

    async def _start_servers(self, directory: Path) -> None:
        client_key = asyncssh.generate_private_key("ssh-ed25519")
        (directory / "client_key").write_bytes(client_key.export_private_key())
        (directory / "client_key").chmod(0o600)
        self.servers = {
            "build": DemoSshServer(client_key, shell="/bin/zsh", auth_delay=BUILD_DELAY),
            "flaky": DemoSshServer(client_key, shell="/bin/bash"),
            "ghost": DemoSshServer(client_key, shell="/bin/sh"),
            "gpu": DemoSshServer(client_key, auth_delay=float("inf")),
            "legacy": DemoSshServer(client_key),
        }
        for server in self.servers.values():
            await server.start()
        impostor = (
            asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().split()[:2]
        )
        lines = [s.known_hosts_line() for name, s in self.servers.items() if name != "legacy"]
        lines.append(f"[127.0.0.1]:{self.servers['legacy'].port} {' '.join(impostor)}\n")
        (directory / "known_hosts").write_text("".join(lines))

    def config(self, directory: Path) -> Config:
        s = self.servers
        return Config.model_validate(
            {
                "environments": [
                    _ssh_entry("build", s["build"], directory),
                    {
                        "id": LOCAL_ID,
                        "kind": "local",
                        "cwd": str(directory),
                        "workspace_roots": [str(directory)],
                    },
                    _ssh_entry("flaky", s["flaky"], directory),
                    _ssh_entry("ghost", s["ghost"], directory),
                    _ssh_entry("gpu", s["gpu"], directory, connect_timeout=86400),
                    _ssh_entry("legacy", s["legacy"], directory),
                ]
            }
        )

    async def _chaos(self, stop: asyncio.Event) -> None:
        """The scripted faults: ghost's host leaves for good, flaky drops now and then."""
        start = asyncio.get_running_loop().time()
        ghost_gone = False
        next_flake = start + FLAKY_PERIOD
        while not await wait_for_stop(stop, 0.5):
            now = asyncio.get_running_loop().time()
            if not ghost_gone and now - start >= GHOST_LIFETIME:
                ghost_gone = True
                self.servers["ghost"].refusing = True
                self.servers["ghost"].drop_all()
            if now >= next_flake:
                next_flake = now + FLAKY_PERIOD
                self.servers["flaky"].drop_all()

    async def run(self, stop: asyncio.Event) -> None:
        with tempfile.TemporaryDirectory(prefix="envtui-demo-") as tmp:
            directory = Path(tmp)
            await self._start_servers(directory)
            config = self.config(directory)
            engine = Engine(config, self._sink, clock=self._clock, hermetic=True)
            chaos = asyncio.ensure_future(self._chaos(stop))
            try:
                await self._live_run(engine, config).run(stop)
            finally:
                await cancel_and_wait(chaos)
                for server in self.servers.values():
                    await server.close()

    def _live_run(self, engine: Engine, config: Config) -> LiveRun:
        """The engine's steps, with the model's calls routed as Codex did before StepContext."""

        def plan_calls(step: StepContext) -> list[ToolCall]:
            return [ToolCall(EXEC_COMMAND, None, call_id=f"call-{step.number}")]

        def route_live(call: ToolCall) -> str | None:
            # What Codex did before StepContext: route by whatever is primary now.
            return route(call, engine.manager.snapshot())

        build_config = next(c for c in config.environments if c.id == "build")

        async def replace_build(turn: int) -> None:
            if turn > 1:
                await self._replace_build(engine, build_config)

        return LiveRun(
            engine,
            self._sink,
            step_interval=self.step_interval,
            turn_steps=self.turn_steps,
            thread=THREAD,
            plan_calls=plan_calls,
            route_live=route_live,
            on_turn=replace_build,
        )

    async def _replace_build(self, engine: Engine, build_config: AnyEnvironmentConfig) -> None:
        """Deselect, replace, reselect: a fresh resolution, as a turn after
        ``environment/add`` would get, so the StepContext case plays again."""
        old = engine.manager.get("build")
        self.servers["build"].auth_delay = BUILD_DELAY
        fresh = build_environment(build_config, clock=self._clock, hermetic=True)
        engine.manager.update_selections(
            [s for s in engine.selections if s.environment_id != "build"]
        )
        engine.manager.register(fresh)
        engine.manager.update_selections(engine.selections)
        if old is not None:
            await old.aclose()


async def run_demo(sink: EventSink, stop: asyncio.Event, **options: Any) -> None:
    await Demo(sink, **options).run(stop)
