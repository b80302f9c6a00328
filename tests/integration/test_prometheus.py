"""A real Prometheus scrapes ``envtui events --metrics`` and sees an SSH environment go from
ready to unavailable when its sshd is stopped."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.support.data.session_trees import HOSTILE_IDS, thread_id, with_environments
from tests.support.real.prometheus_server import PROMETHEUS, prometheus, query
from tests.support.real.ssh_servers import SSHD, OpenSshServer, environments_toml, free_port
from tests.support.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(
        PROMETHEUS is None,
        reason="Prometheus is not installed (Debian package prometheus, which .ci/run installs)",
    ),
    pytest.mark.skipif(
        SSHD is None,
        reason="OpenSSH sshd is not installed (Debian package openssh-server, which .ci/run installs)",
    ),
]


def _config(path: Path, server: OpenSshServer, cwd: Path) -> Path:
    entry = server.environment("build", str(cwd))
    entry.update(keepalive_interval=0.5, keepalive_count_max=2, backoff_initial=0.2, backoff_max=1)
    path.write_text(environments_toml([entry]))
    return path


def _value(base: str, status: str) -> str | None:
    result = query(base, f'envtui_environment_status{{environment="build",status="{status}"}}')
    return result[0]["value"][1] if result else None


async def test_prometheus_sees_ready_then_unavailable_after_sshd_stops(tmp_path: Path) -> None:
    server = OpenSshServer(tmp_path, free_port()).start()
    metrics_port, prometheus_port = free_port(), free_port()
    envtui = None
    try:
        await server.accepting()
        config = _config(tmp_path / "envtui.toml", server, tmp_path)
        envtui = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "envtui",
                "events",
                "--config",
                str(config),
                "--metrics",
                f"127.0.0.1:{metrics_port}",
                "--out",
                str(tmp_path / "events.jsonl"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        with prometheus(tmp_path, prometheus_port, f"127.0.0.1:{metrics_port}") as base:
            await wait_until(lambda: _value(base, "ready") == "1", timeout=60, what="ready == 1")
            assert _value(base, "unavailable") == "0"
            up = query(base, 'envtui_source_up{source="engine"}')
            assert up[0]["value"][1] == "1"
            server.drop_connections()
            server.stop()
            await wait_until(
                lambda: _value(base, "unavailable") == "1", timeout=60, what="unavailable == 1"
            )
            assert _value(base, "ready") == "0"
    finally:
        server.stop()
        if envtui is not None:
            envtui.terminate()
            _, err = envtui.communicate(timeout=20)
            assert envtui.returncode == 0, err.decode()


def _raw_scrape(port: int) -> bytes:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
            return bytes(answer.read())
    except OSError:
        return b""


async def test_prometheus_scrapes_hostile_ids_inert_and_10000_environments_capped(
    tmp_path: Path,
) -> None:
    """One rollout names ESC/BEL/C1/RLO ids and 10,000 environments in all: the endpoint
    holds no control byte, Prometheus stores the ids as escapes, and the thread has 500
    environments' series and a dropped count of the rest."""
    ids = [*HOSTILE_IDS, *(f"host-{i}" for i in range(10_000 - len(HOSTILE_IDS)))]
    with_environments(tmp_path / "sessions", ids)
    metrics_port, prometheus_port = free_port(), free_port()
    command = [sys.executable, "-m", "envtui", "sessions", str(tmp_path / "sessions")]
    command += ["--json", "--metrics", f"127.0.0.1:{metrics_port}", "--poll-interval", "0.5"]
    envtui = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with prometheus(tmp_path, prometheus_port, f"127.0.0.1:{metrics_port}") as base:
            dropped = f'envtui_environments_dropped{{thread="{thread_id(777)}"}}'
            await wait_until(lambda: bool(query(base, dropped)), timeout=90, what="a scrape")
            assert query(base, dropped)[0]["value"][1] == "9500"
            count = f'count(envtui_environment_status{{thread="{thread_id(777)}"}})'
            assert query(base, count)[0]["value"][1] == "1500"  # 500 environments x 3 statuses
            primary = query(base, f'envtui_environment_primary{{thread="{thread_id(777)}"}} == 1')
            assert [r["metric"]["environment"] for r in primary] == ["esc\\x1b]2;TITLE\\x07"]
            for escaped in ("c1\\x9b31m", "rlo\\u202eevil", "bel\\x07"):
                promql = escaped.replace("\\", "\\\\")  # a backslash, in PromQL's quotes
                assert query(base, f'envtui_environment_primary{{environment="{promql}"}}')
        raw = _raw_scrape(metrics_port)
        assert b"envtui_environments_dropped" in raw
        assert not [b for b in raw if b < 0x20 and b != 0x0A]
        assert not [c for c in raw.decode() if 0x80 <= ord(c) < 0xA0 or c == "\u202e"]
    finally:
        envtui.terminate()
        _, err = envtui.communicate(timeout=30)
    said = [line for line in err.decode().splitlines() if "more than 500 environments" in line]
    assert len(said) == 1, err.decode()
