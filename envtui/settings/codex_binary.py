"""Finding the ``codex`` binary: an explicit path, ``$ENVTUI_CODEX``, or PATH.

The npm package ``@openai/codex`` installs a Node.js launcher (``bin/codex.js``) that starts
the native binary from a platform package. envtui prefers the native binary when it can
find it, so the process it starts (and can stop, or signal) is Codex itself.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ENV_VARIABLE = "ENVTUI_CODEX"


@dataclass(frozen=True)
class CodexLookup:
    """Which codex envtui would run, how it was found, or why there is none."""

    path: Path | None
    source: str
    """``--codex``, ``$ENVTUI_CODEX`` or ``PATH``: what the person chose, one way or another."""
    problem: str | None = None


def locate_codex(
    explicit: str | None = None, *, environ: Mapping[str, str] | None = None
) -> CodexLookup:
    """The codex to run: ``explicit`` (``--codex``), else ``$ENVTUI_CODEX``, else PATH.

    Only where the person said: never a ``node_modules`` of the current directory, where a
    cloned repository could put a ``codex`` of its own and have it run as the user. A path
    the person named (the flag or the variable) that does not exist is an error of its
    own, never a silent fall-back to another codex.
    """
    env = os.environ if environ is None else environ
    for given, source in ((explicit, "--codex"), (env.get(ENV_VARIABLE), f"${ENV_VARIABLE}")):
        if given:
            if not Path(given).exists():
                return CodexLookup(None, source, f"{source} {given}: no such file")
            return CodexLookup(native_binary(Path(given)), source)
    on_path = shutil.which("codex", path=env.get("PATH"))
    if on_path:
        return CodexLookup(native_binary(Path(on_path)), "PATH")
    return CodexLookup(
        None,
        "",
        f"codex not found on PATH: install it (npm install -g @openai/codex), "
        f"pass --codex PATH or set {ENV_VARIABLE}",
    )


def native_binary(path: Path) -> Path:
    """The platform binary behind an npm launcher; any other path as it is."""
    resolved = path.resolve()
    if resolved.name != "codex.js":
        return path
    package = resolved.parent.parent  # node_modules/@openai/codex
    patterns = ("codex-*/vendor/*/bin/codex", "codex-*/vendor/*/codex/codex")
    for pattern in patterns:
        for binary in sorted(package.parent.glob(pattern)):
            if binary.is_file() and os.access(binary, os.X_OK):
                return binary
    for binary in sorted(package.glob("vendor/*/codex/codex")):
        if binary.is_file():
            return binary
    return path
