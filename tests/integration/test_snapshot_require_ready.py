"""``envtui snapshot --require-ready`` against a real OpenSSH sshd, up and then down: the
exit code a CI step can fail on."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.support.real.ssh_servers import (
    SSHD,
    OpenSshServer,
    environments_toml,
    open_ssh_server,
)

pytestmark = pytest.mark.skipif(
    SSHD is None,
    reason="OpenSSH sshd is not installed (Debian package openssh-server, which .ci/run installs)",
)


def write_config(tmp_path: Path, server: OpenSshServer) -> Path:
    """``local`` and ``real`` (the sshd)."""
    entries: list[dict[str, object]] = [
        {"id": "local", "kind": "local", "cwd": str(tmp_path)},
        {**server.environment("real", str(tmp_path)), "connect_timeout": 5},
    ]
    config = tmp_path / "config.toml"
    config.write_text(environments_toml(entries))
    return config


async def snapshot(config: Path, tmp_path: Path, *require: str) -> tuple[int, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "SHELL": "/bin/bash",
        "XDG_CONFIG_HOME": str(tmp_path),
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "envtui",
        "snapshot",
        "--config",
        str(config),
        "--timeout",
        "20",
        "--require-ready",
        *require,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def test_require_ready_passes_while_sshd_is_up_and_fails_once_it_is_down(
    tmp_path: Path,
) -> None:
    async with open_ssh_server(tmp_path) as server:
        config = write_config(tmp_path, server)
        assert await snapshot(config, tmp_path) == (0, "")
        server.stop()
        code, err = await snapshot(config, tmp_path)
        assert code == 1
        (line,) = err.splitlines()
        assert line.startswith("envtui snapshot: not ready: real (unavailable: cannot connect to")
        # only the named environments count
        assert await snapshot(config, tmp_path, "local") == (0, "")
        code, err = await snapshot(config, tmp_path, "local", "real")
        assert code == 1
        assert "not ready: real" in err
        code, err = await snapshot(config, tmp_path, "nope")
        assert (code, err) == (2, "envtui snapshot: --require-ready: not configured: nope\n")
