"""The dashboard app: themes, the source, and the store its events are folded into.

The source runs as a task on the app's event loop and only calls :meth:`EnvTuiApp.ingest`,
which folds each event into the store; the main screen draws the store once per frame. The
app does no I/O of its own: recording a run is a wrapper around the source.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.notifications import SeverityLevel
from textual.screen import Screen

from envtui.events import Event, Source, WarningMessage
from envtui.safe_text import for_terminal, one_line
from envtui.store import Store
from envtui.tui.main_screen import MainScreen
from envtui.tui.options import DashboardOptions
from envtui.tui.themes import DEFAULT_THEME, STATUS_VARIABLES, available_themes

__all__ = ["DashboardOptions", "EnvTuiApp", "EnvtuiCommands"]


class EnvtuiCommands(Provider):
    """envtui's own actions in the command palette, next to Textual's system commands."""

    ACTIONS = (
        ("Pause or resume the view", "pause"),
        ("Context: next view (full, diff, snapshot, patch)", "cycle_view"),
        ("Export the selected step", "export"),
        ("Copy the context text", "copy"),
        ("Filter environments", "filter"),
        ("Show the keys", "help"),
    )

    def _run(self, action: str) -> Callable[[], object]:
        return lambda: self.app.run_action(f"screen.{action}")

    async def discover(self) -> Hits:
        for text, action in self.ACTIONS:
            yield DiscoveryHit(f"envtui: {text}", self._run(action))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, action in self.ACTIONS:
            label = f"envtui: {text}"
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), self._run(action))


class EnvTuiApp(App[None]):
    """The dashboard on one source (None: an empty dashboard, as in some tests)."""

    CSS_PATH = "app.tcss"
    TITLE = "envtui"
    COMMANDS = App.COMMANDS | {EnvtuiCommands}

    def __init__(self, source: Source | None, options: DashboardOptions | None = None) -> None:
        super().__init__()
        self.options = options or DashboardOptions()
        self.store = Store(
            max_log_lines=self.options.max_log_lines, max_steps=self.options.max_steps
        )
        self.source = source
        self._stop = asyncio.Event()
        self._source_task: asyncio.Task[None] | None = None
        themes, self.theme_problems = available_themes()
        for theme in themes:  # registered before the CSS that uses $status-* is parsed
            self.register_theme(theme)
        wanted = self.options.theme or DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME
        if self.options.keymap:
            self.set_keymap(self.options.keymap)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        colors = self.current_theme.to_color_system().generate()
        defaults = {
            "status-ready": colors["success"],
            "status-starting": colors["warning"],
            "status-unavailable": colors["error"],
            "status-primary": colors["primary"],
        }
        return {name: defaults[name] for name in STATUS_VARIABLES}

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(self.store, self.options)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast passes here: its text is made inert first (:mod:`envtui.safe_text`).

        envtui's own notices also pass ``markup=False``; Textual's keep their markup, which
        the escaping leaves alone.
        """
        super().notify(
            for_terminal(message),
            title=one_line(title),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def on_mount(self) -> None:
        if self.theme_problems:
            listed = "\n".join(p.reason for p in self.theme_problems)
            self.notify(
                f"some theme files could not be used:\n{listed}",
                severity="error",
                timeout=10,
                markup=False,
            )
        if self.options.theme and self.options.theme not in self.available_themes:
            self.notify(
                f"unknown theme {self.options.theme!r}; using {DEFAULT_THEME}",
                severity="warning",
                markup=False,
            )
        if self.source is not None:
            self._source_task = asyncio.get_running_loop().create_task(
                self._run_source(self.source)
            )

    async def _run_source(self, source: Source) -> None:
        try:
            await source(self.ingest, self._stop)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a source failure is a notice, never a crash
            self.notify(f"the source stopped: {exc}", severity="error", timeout=15, markup=False)

    def ingest(self, event: Event) -> None:
        """Fold one event into the store; the screen redraws per frame."""
        self.store.apply(event)
        self._notify_on_error(event)

    def _notify_on_error(self, event: Event) -> None:
        """A lasting notice for a warning of ``error`` severity: the source itself failed.

        Decided by the message's type and severity, never by its wording.
        """
        msg = event.msg
        if isinstance(msg, WarningMessage) and msg.severity == "error":
            self.notify(msg.message, severity="error", timeout=30, markup=False)

    async def on_unmount(self) -> None:
        self._stop.set()
        task = self._source_task
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout=10)
            except (TimeoutError, asyncio.CancelledError, Exception):
                task.cancel()
                # a bounded wait, so a cancelled source still runs its clean-up (a recording
                # closes its file) before the loop stops
                await asyncio.wait({task}, timeout=1)
