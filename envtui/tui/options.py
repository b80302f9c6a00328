"""What a dashboard run is told from outside: the command line and the config, and the
parts of the run the dashboard only holds (where answers go, the alert command, the
processes the run started), built by the command and handed in, so the UI imports no
runtime and no source of its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Protocol

from envtui.context.local_time import system_clock
from envtui.incidents.alert_items import Alert
from envtui.settings.alerts_config import AlertsConfig
from envtui.vocabulary.answers import Answers
from envtui.vocabulary.thread_choices import ThreadChoices


class AlertRunner(Protocol):
    """The alert command of a run: takes batches of alerts, runs them in order, ends."""

    def add(self, alerts: Sequence[Alert]) -> None: ...

    async def aclose(self) -> None: ...


AlertCommandFactory = Callable[[Callable[[str], None]], AlertRunner]
"""Builds the alert command, given where its problems are said (the dashboard's log)."""


class StartedProcesses(Protocol):
    """The processes a run started, which the dashboard ends as it quits."""

    def mark(self) -> None:
        """Remember what runs now, before the source starts."""

    def end_new(self) -> None:
        """End what was started since :meth:`mark` and still runs."""

    def end_all(self) -> None:
        """End everything this process started (the last resort of a stuck quit)."""


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
    """Keep the theme chosen in the theme picker for the next run (the command line turns
    it on)."""
    alerts: AlertsConfig | None = None
    """How to alert about incidents and hosts going down or back (None: never)."""
    alert_command: AlertCommandFactory | None = None
    """Builds the command of ``alerts`` (None: no command runs, whatever ``alerts`` says)."""
    answers: Answers | None = None
    """Sends the operator's answers to Codex's requests. None: nothing here can answer
    (the needs-you keys say so)."""
    threads: ThreadChoices | None = None
    """The threads the source can show one by one (``T`` lists them); None: one thread."""
    processes: StartedProcesses | None = None
    """The processes the run starts, ended as the dashboard quits (None: the source ends
    its own)."""
