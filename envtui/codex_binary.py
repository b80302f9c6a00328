"""Finding the ``codex`` binary: an explicit path, ``$ENVTUI_CODEX``, PATH, or a local npm install.

The npm package ``@openai/codex`` installs a Node.js launcher (``bin/codex.js``) that starts
the native binary from a platform package. envtui prefers the native binary when it can
find it, so the process it starts (and can stop, or signal) is Codex itself.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

ENV_VARIABLE = "ENVTUI_CODEX"


def find_codex(
    explicit: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    search_roots: tuple[Path, ...] = (),
) -> Path | None:
    """The first codex that exists: ``explicit``, ``$ENVTUI_CODEX``, PATH, ``ROOT/node_modules``."""
    env = os.environ if environ is None else environ
    candidates: list[str | None] = [explicit, env.get(ENV_VARIABLE), shutil.which("codex")]
    candidates += [str(root / "node_modules" / ".bin" / "codex") for root in search_roots]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return native_binary(Path(candidate))
    return None


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
