"""The local environment: this machine, its ``$SHELL`` and a directory that must exist."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from envtui.environments.base import Environment, LiveStatus
from envtui.steps.selection import Readiness


def shell_from_env(environ: dict[str, str] | None = None) -> tuple[str | None, str | None]:
    """``$SHELL`` as (name, path); the name is the basename: bash, zsh, sh, fish …"""
    path = (environ if environ is not None else os.environ).get("SHELL") or None
    if path is None:
        return None, None
    return os.path.basename(path.rstrip("/")) or None, path


class LocalEnvironment(Environment):
    kind: ClassVar[str] = "local"
    is_remote: ClassVar[bool] = False

    async def _run(self) -> None:
        try:
            cwd = Path(self.cwd).expanduser()
        except RuntimeError:  # ``~name`` for a user this machine does not have
            error = f"cwd names an unknown user: {self.cwd}"
            self._set_status(LiveStatus("unavailable", error=error))
            return
        if not cwd.is_dir():
            reason = "cwd does not exist" if not cwd.exists() else "cwd is not a directory"
            self._set_status(LiveStatus("unavailable", error=f"{reason}: {self.cwd}"))
            return
        name, path = shell_from_env()
        self._set_status(LiveStatus("ready", readiness=Readiness(name, path, self.cwd)))
