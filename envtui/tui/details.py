"""The text of the dashboard's detail screens (an environment, the keys) and the
name of a step's export file, as pure functions of the store's rows.

They live outside the widgets so each can be tested as a whole expected string, without a
running app; the screens only show what these return (escaped for the terminal there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, tzinfo
from pathlib import Path

from envtui.dashboard.store import EnvironmentRow, StepRow
from envtui.tui.format import time_text


def environment_details(row: EnvironmentRow, now: datetime, zone: tzinfo | None = None) -> str:
    """Every field of one environment, one per line, then its recent events.

    Times are in the dashboard's ``zone`` and relative to ``now`` ("in 5 s", "2 min ago"),
    so the screen that shows this redraws it as time passes.
    """
    fields = [
        ("id", row.id),
        ("kind", row.kind),
        ("status", row.status),
        ("primary", "yes" if row.primary else "no"),
        ("shell", row.shell or "-"),
        ("shell path", row.shell_path or "-"),
        ("cwd", row.cwd or "-"),
        ("error", row.error or "-"),
        ("changed", time_text(row.changed_at, now, zone)),
        ("next try", time_text(row.next_retry_at, now, zone)),
        ("connection", row.connection or "-"),
    ]
    body = "\n".join(f"{name:<11} {value}" for name, value in fields)
    return body + "\n\nevents\n" + "\n".join(entry.line for entry in row.events)


def keys_help(keys: Iterable[tuple[str, str]]) -> str:
    """A help screen of one list: each ``(key, description)``, then where the rest is."""
    listed = "\n".join(f"{key:<22} {description}" for key, description in keys)
    return f"Keys\n\n{listed}\n\nctrl+p opens the command palette."


def unused_path(directory: Path, name: str, exists: Callable[[Path], bool] = Path.exists) -> Path:
    """``directory/name``, or ``name`` numbered (``x-2.json``, ``x-3.json`` …) if it is taken.

    An export never replaces an earlier one.
    """
    path = directory / name
    stem, suffix = path.stem, path.suffix
    number = 2
    while exists(path):
        path = directory / f"{stem}-{number}{suffix}"
        number += 1
    return path


def export_file_name(step: StepRow, thread: str | None) -> str:
    """``envtui-step-THREAD-N.json``; the thread (the step's, else ``thread``) is reduced to
    letters, digits, ``-`` and ``_``, so an id from outside cannot leave the directory."""
    name = "".join(
        c if c.isalnum() or c in "-_" else "_" for c in (step.thread or thread or "thread")
    )
    return f"envtui-step-{name}-{step.number}.json"
