"""The real codex binary for integration tests, and running things in an empty network."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.files import ROOT

from envtui.settings.codex_binary import locate_codex, native_binary


def _codex() -> Path | None:
    """codex-cli 0.171.0: ``$ENVTUI_CODEX`` or PATH as envtui finds it, else where ``.ci/run``
    installs it (this repository's ``node_modules``, which envtui itself never looks in)."""
    found = locate_codex().path
    if found is not None:
        return found
    installed = ROOT / "node_modules" / ".bin" / "codex"
    return native_binary(installed) if installed.exists() else None


CODEX = _codex()


def _codex_0150() -> Path | None:
    """codex-cli 0.150.0: ``$ENVTUI_CODEX_0150``, else where ``.ci/run`` installs it."""
    for candidate in (
        os.environ.get("ENVTUI_CODEX_0150"),
        str(ROOT / "node_modules" / ".codex-0.150" / "node_modules" / ".bin" / "codex"),
    ):
        if candidate and Path(candidate).exists():
            return native_binary(Path(candidate))
    return None


CODEX_0150 = _codex_0150()
UNSHARE = shutil.which("unshare")
IP = shutil.which("ip")
NSENTER = shutil.which("nsenter")

needs_codex = pytest.mark.skipif(
    CODEX is None or UNSHARE is None,
    reason="needs the codex binary (npm @openai/codex@0.171.0, which .ci/run installs) and unshare",
)
needs_codex_0150 = pytest.mark.skipif(
    CODEX_0150 is None or UNSHARE is None or IP is None,
    reason="needs codex 0.150.0 (npm @openai/codex@0.150.0 in node_modules/.codex-0.150, which "
    ".ci/run installs; or $ENVTUI_CODEX_0150), unshare and ip",
)
needs_scripted_codex = pytest.mark.skipif(
    CODEX is None or UNSHARE is None or IP is None or NSENTER is None,
    reason="needs the codex binary (npm @openai/codex@0.171.0, which .ci/run installs), "
    "unshare, nsenter and ip (util-linux, iproute2)",
)


def offline(*command: str) -> list[str]:
    """``command`` in a new, empty network namespace: Codex never reaches the network."""
    assert UNSHARE is not None
    return [UNSHARE, "-n", *command]


def offline_codex(directory: Path) -> Path:
    """A ``codex`` that always runs in an empty network namespace, for ``--codex``."""
    assert CODEX is not None
    assert UNSHARE is not None
    wrapper = directory / "codex-offline"
    wrapper.write_text(f'#!/bin/sh\nexec {UNSHARE} -n {CODEX} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def stdio_remote(name: str = "devbox", *, delay: float = 0) -> str:
    """An environments.toml entry for a stdio exec-server (started after ``delay`` seconds)."""
    if delay:
        return (
            f'[[environments]]\nid = "{name}"\nprogram = "/bin/sh"\n'
            f'args = ["-c", "sleep {delay}; exec {CODEX} exec-server --listen stdio"]\ninitialize_timeout_sec = 60\n'
        )
    return f'[[environments]]\nid = "{name}"\nprogram = "{CODEX}"\nargs = ["exec-server", "--listen", "stdio"]\n'
