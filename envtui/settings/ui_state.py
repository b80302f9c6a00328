"""What the dashboard remembers between runs: a small JSON file in the state folder.

Today that is the theme chosen with ``t``, so the next run starts in it. The file is
envtui's own, but it is read as untrusted input all the same: bounded, and anything that
is not the expected shape is ignored rather than fatal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from envtui.settings.locations import ui_state_file

MAX_STATE = 64 * 1024
"""A larger file is not envtui's: it is ignored."""


def load(path: Path | None = None) -> dict[str, Any]:
    """The remembered values; empty when there are none, or the file is unreadable."""
    target = path or ui_state_file()
    try:
        if not target.is_file() or target.stat().st_size > MAX_STATE:
            return {}
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def remembered_theme(path: Path | None = None) -> str | None:
    theme = load(path).get("theme")
    return theme if isinstance(theme, str) and theme.isprintable() else None


def remember(key: str, value: Any, path: Path | None = None) -> str | None:
    """Store ``key``; None when done, else why not (for a notice: it is never fatal).

    Written to a temporary file and renamed, so a crash never leaves half a file.
    """
    target = path or ui_state_file()
    data = {**load(target), key: value}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = target.with_name(f".{target.name}.{os.getpid()}")
        scratch.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
        scratch.replace(target)
    except OSError as exc:
        return f"{target}: {exc.strerror or exc}"
    return None
