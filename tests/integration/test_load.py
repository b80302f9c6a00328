"""Correctness under load: 100 SSH environments resolve at once; every event arrives once."""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter
from pathlib import Path

from tests.support.fakes.fake_environments import Recorder
from tests.support.real.ssh_servers import InProcessServer
from tests.support.waiting import wait_until

from envtui.environments.manager import EnvironmentManager
from envtui.environments.ssh import SshEnvironment
from envtui.steps.selection import Selection

HOSTS = 100


async def test_hundred_ssh_environments_become_ready_and_each_event_arrives_once(
    tmp_path: Path,
) -> None:
    servers: list[InProcessServer] = []
    recorder = Recorder()
    manager = EnvironmentManager(recorder)
    try:
        for index in range(HOSTS):
            server = await InProcessServer(shell="/bin/bash").start()
            servers.append(server)
            # the bound is a hang guard: a hundred handshakes at once on a loaded machine
            # take longer than one host's usual 5 s, and a timeout is not what this tests
            settings = server.settings(
                tmp_path / f"known_hosts_{index}", keepalive_interval=30, connect_timeout=120
            )
            manager.register(
                SshEnvironment(
                    f"host-{index:03d}", str(tmp_path), settings, client_keys=[server.client_key]
                )
            )
        ids = [f"host-{index:03d}" for index in range(HOSTS)]
        manager.update_selections([Selection(env_id, str(tmp_path)) for env_id in ids])

        snapshot = await manager.snapshot_blocking(timeout=180)
        assert [e.environment_id for e in snapshot.entries] == ids
        assert [e.state for e in snapshot.entries] == ["ready"] * HOSTS, [
            e.error for e in snapshot.entries if e.error
        ]
        primary = snapshot.primary()
        assert primary is not None
        assert primary.environment_id == "host-000"
        assert all(len(server.commands) == 1 for server in servers)  # one probe per host

        await wait_until(lambda: len(recorder.connection_events()) == HOSTS, timeout=30)
        assert Counter(recorder.connection_events()) == Counter(
            ("", "environment_connected", i) for i in ids
        )

        per_environment: dict[str, list[tuple[str, bool]]] = {i: [] for i in ids}
        for env_id, status, is_primary in recorder.statuses():
            per_environment[env_id].append((status, is_primary))
        for env_id, statuses in per_environment.items():
            assert statuses[0] == ("starting", False)
            assert statuses[-1] == ("ready", env_id == "host-000")
            assert all(a != b for a, b in itertools.pairwise(statuses)), (
                env_id,
                statuses,
            )
    finally:
        await manager.aclose()
        for server in servers:
            with contextlib.suppress(Exception):
                await server.close()
