"""What a dashboard run is told from outside: the command line and the config."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

from envtui.context.local_time import system_clock
from envtui.settings.alerts_config import AlertsConfig
from envtui.vocabulary.thread_messages import RequestAnswered


@dataclass
class DashboardOptions:
    source_name: str = "demo"
    """Shown first in the header: which command (and file) the events come from."""
    theme: str | None = None
    """The theme to start with; None, or an unknown name, means the default theme."""
    keymap: dict[str, str] | None = None
    """Binding id to keys, applied with ``App.set_keymap``."""
    keymap_where: dict[str, str] | None = None
    """Binding id to the ``FILE:LINE`` that sets it, for the notice about a wrong entry."""
    max_log_lines: int = 10_000
    max_steps: int = 1_000
    environment_events: int = 50
    """Lines of its own history each environment keeps (its details show them)."""
    status_history: int = 500
    """Status transitions each environment keeps (its strip and the history screen)."""
    export_dir: Path | None = None
    """Where ``e`` writes a step; None means the exports folder ``envtui info`` names."""
    clock: Callable[[], datetime] = system_clock
    """The wall clock for relative times and the header, injected so tests pin it."""
    zone: tzinfo | None = None
    """The one zone every time on the screen is written in; None: the local zone."""
    ascii: bool = False
    """Draw every glyph with characters every terminal and font has."""
    remember_theme: bool = False
    """Keep the theme chosen with ``t`` for the next run (the command line turns it on)."""
    alerts: AlertsConfig | None = None
    """How to alert about incidents and hosts going down or back (None: never)."""
    answer: Callable[[RequestAnswered], str | None] | None = None
    """Sends the operator's answer to a request of Codex; why it was not sent, or None.
    None: nothing here can answer (the needs-you keys say so)."""
