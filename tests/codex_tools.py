"""The real codex binary for integration tests, and running things in an empty network."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from envtui.codex_binary import find_codex

ROOT = Path(__file__).parent.parent
CODEX = find_codex(search_roots=(ROOT,))
UNSHARE = shutil.which("unshare")
IP = shutil.which("ip")

needs_codex = pytest.mark.skipif(
    CODEX is None or UNSHARE is None,
    reason="needs the codex binary (npm @openai/codex@0.171.0, which .ci/run installs) and unshare",
)


def offline(*command: str) -> list[str]:
    """``command`` in a new, empty network namespace: Codex never reaches the network."""
    assert UNSHARE is not None
    return [UNSHARE, "-n", *command]
