"""The dashboard app: themes, the source, and the store its events are folded into.

The source runs as a task on the app's event loop and only calls :meth:`EnvTuiApp.ingest`,
which folds each event into the store; the main screen draws the store once per frame. The
app does no I/O of its own: recording a run is a wrapper around the source.

It quits like a monitor: ``q``, ``ctrl+c``, SIGTERM and SIGHUP all take the same way out,
which restores the terminal, stops the source (ending every process it started and closing
a recording) and waits for it. A source that fails or ends says so in the header, lastingly.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.notifications import SeverityLevel
from textual.screen import Screen

from envtui.dashboard.store import Store
from envtui.settings import ui_state
from envtui.settings.locations import export_dir
from envtui.tui.alerting import Alerting
from envtui.tui.format import use_ascii
from envtui.tui.keymap import binding_ids, check_keymap
from envtui.tui.main_screen import MainScreen
from envtui.tui.options import AlertRunner, DashboardOptions
from envtui.tui.palette import PICKER_WORDS, EnvtuiCommands, ThemesToKeep
from envtui.tui.themes import DEFAULT_THEME, STATUS_VARIABLES, available_themes
from envtui.tui.thread_list import ThreadListScreen
from envtui.tui.upstream.render_caches import bound_ansi_styles, bound_split_cells
from envtui.tui.upstream.terminal_input import TerminalClosed, TerminalDriver
from envtui.tui.upstream.terminal_writer import install as install_surviving_writer
from envtui.tui.web.delivery import deliver_file, download, screenshot_file_name
from envtui.vocabulary.events import Event, Source, SourceStatus, WarningMessage, thread_event
from envtui.vocabulary.safe_text import for_terminal, one_line
from envtui.vocabulary.stopping import on_signals
from envtui.vocabulary.terms import SourceState

__all__ = ["DashboardOptions", "DriverClass", "EnvTuiApp", "EnvtuiCommands", "Notice"]

DriverClass = type[Driver]
"""How an app draws: the terminal's driver, or a browser tab's
(:class:`~envtui.tui.web.served_driver.ServedDriver`)."""

ALERT_CHECK = 0.25
"""Seconds between two looks at the store's alert queue (paused or not)."""
SERVER_CHECK = 1.0
"""Seconds between two looks, in a browser, at whether textual-serve's server still runs."""
MAX_NOTICES = 100
"""How many of the latest notices :attr:`EnvTuiApp.notices` keeps (older ones drop out)."""


@dataclass(frozen=True)
class Notice:
    """One toast the app raised, as it was shown: its text already made inert.

    Textual keeps its toasts only until they time out, and privately; this record is the
    app's own, for the tests (and anything else) that ask what the operator was told.
    """

    message: str
    severity: SeverityLevel
    title: str
    at: datetime
    """When it was raised, by the dashboard's clock (``DashboardOptions.clock``)."""


def known_binding_ids() -> list[str]:
    """Every binding id a keymap may name: the app's, its screens' and widgets'."""
    from envtui.tui.history_screen import HistoryScreen
    from envtui.tui.incidents_view import IncidentList
    from envtui.tui.log_widget import EventLog
    from envtui.tui.needs_you.confirm import ConfirmAnswer
    from envtui.tui.needs_you.panel import ReplyScreen
    from envtui.tui.screens import TextScreen
    from envtui.tui.sessions.sessions_screen import SessionsScreen
    from envtui.tui.sessions.sessions_table import SessionsTable
    from envtui.tui.widgets import ContextPanel, EnvironmentTable

    groups = (
        EnvTuiApp.BINDINGS,
        MainScreen.BINDINGS,
        TextScreen.BINDINGS,
        HistoryScreen.BINDINGS,
        EnvironmentTable.BINDINGS,
        EventLog.BINDINGS,
        ContextPanel.BINDINGS,
        IncidentList.BINDINGS,
        ConfirmAnswer.BINDINGS,
        ReplyScreen.BINDINGS,
        SessionsScreen.BINDINGS,
        SessionsTable.BINDINGS,
    )
    ids = (binding_id for group in groups for binding_id in binding_ids(group))
    return list(dict.fromkeys(ids))  # the sessions screen shares the main screen's ids


SOURCE_STOP_GRACE = 1.5
"""Seconds a source gets to end on its own once the dashboard quits, before it is cancelled
(and gets one more second for its clean-up): a quit, by key or by signal, is over within
a few seconds even while a source is still connecting."""


class EnvTuiApp(App[None]):
    """The dashboard on one source (None: an empty dashboard, as in some tests)."""

    CSS_PATH = Path(__file__).with_name("app.tcss")  # also for subclasses in other folders
    TITLE = "envtui"
    COMMANDS = App.COMMANDS | {EnvtuiCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        # as in htop and k9s; priority, so a focused input cannot take it
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="quit_ctrl_c")
    ]
    QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
    """A polite kill and a closed terminal: both quit exactly as ``q`` does."""

    def __init__(
        self,
        source: Source | None,
        options: DashboardOptions | None = None,
        *,
        driver_class: DriverClass | None = None,
    ) -> None:
        """``driver_class``: how it draws (None: the terminal's, or what ``TEXTUAL_DRIVER``
        names); a browser tab of ``envtui serve`` is drawn by a
        :class:`~envtui.tui.web.served_driver.ServedDriver`."""
        super().__init__(driver_class=driver_class)
        install_surviving_writer()  # a terminal gone as the dashboard quits cannot hang it
        bound_split_cells()  # Rich's split segments: see render_caches
        bound_ansi_styles()  # Textual's styles as ANSI codes: see render_caches
        self._notices: deque[Notice] = deque(maxlen=MAX_NOTICES)
        self.options = options or DashboardOptions()
        self.store = Store(
            max_log_lines=self.options.max_log_lines,
            max_steps=self.options.max_steps,
            environment_events=self.options.environment_events,
            zone=self.options.zone,
            status_history=self.options.status_history,
        )
        self.source = source
        self._stop = asyncio.Event()
        self._source_task: asyncio.Task[None] | None = None
        self._signals = contextlib.ExitStack()
        self.main_screen: MainScreen | None = None
        self.alerting: Alerting | None = None
        self._alert_command: AlertRunner | None = None
        themes, self.theme_problems = available_themes()
        for theme in themes:  # registered before the CSS that uses $status-* is parsed
            self.register_theme(theme)
        wanted = self.options.theme or DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME
        use_ascii(self.options.ascii)
        checked = check_keymap(
            self.options.keymap or {}, known_binding_ids(), self.options.keymap_where
        )
        self.keymap_in_force = checked.usable
        """The config's keymap, as far as it names bindings and keys that exist."""
        self.keymap_problems = checked.problems
        if checked.usable:
            self.set_keymap(checked.usable)

    @property
    def notices(self) -> Sequence[Notice]:
        """The latest :data:`MAX_NOTICES` toasts, oldest first, expired ones too: every
        toast passes :meth:`notify`, envtui's and Textual's own."""
        return tuple(self._notices)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        colors = self.current_theme.to_color_system().generate()
        defaults = {
            "status-ready": colors["success"],
            "status-starting": colors["warning"],
            "status-unavailable": colors["error"],
            "status-primary": colors["primary"],
        }
        return {name: defaults[name] for name in STATUS_VARIABLES}

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's screenshot: in a browser a download like a step export (Textual
        would open it in a new tab), confirmed by Textual's notice once the browser has it;
        in a terminal a file in the exports folder ``envtui info`` names, beside the step
        exports (``--export-dir`` moves both; created when needed, never over an earlier
        one), with its whole path in the notice."""
        if not self.is_web:
            deliver_file(
                self,
                self.export_screenshot(),
                file_name=filename or screenshot_file_name(self.options.clock()),
                directory=Path(path) if path else (self.options.export_dir or export_dir()),
                mime_type="image/svg+xml",
                name="screenshot",
            )
            return None
        return download(
            self,
            self.export_screenshot(),
            file_name=filename or screenshot_file_name(self.options.clock()),
            mime_type="image/svg+xml",
            name="screenshot",
        )

    def pick_theme(self) -> None:
        """``t``: the theme picker, which says that the theme chosen is kept."""
        self.push_screen(CommandPalette(providers=[ThemesToKeep], placeholder=PICKER_WORDS))

    def keep_theme(self, name: str) -> None:
        """The next run starts in the theme chosen now (in the picker or the palette); a
        theme changed any other way is not kept."""
        if not self.options.remember_theme:
            return
        problem = ui_state.remember("theme", name)
        if problem is not None:
            self.notify(f"the theme is not remembered: {problem}", severity="warning")

    def get_default_screen(self) -> Screen[Any]:
        self.main_screen = MainScreen(self.store, self.options)
        return self.main_screen

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast passes here: its text is made inert first
        (:mod:`envtui.vocabulary.safe_text`).

        envtui's own notices also pass ``markup=False``; Textual's keep their markup, which
        the escaping leaves alone. Each is also kept in :attr:`notices`.
        """
        message, title = for_terminal(message), one_line(title)
        self._notices.append(Notice(message, severity, title, self.options.clock()))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def get_driver_class(self) -> type[Driver]:
        """Textual's choice, except that a terminal's driver notices the terminal going
        away (:mod:`envtui.tui.upstream.terminal_input`)."""
        chosen = super().get_driver_class()
        return TerminalDriver if chosen is LinuxDriver else chosen

    def on_load(self) -> None:
        """The quit signals are taken over here, before Textual takes the terminal (Load
        comes before the driver starts): from the first thing drawn on, a SIGTERM or
        SIGHUP quits as ``q`` does, also while the screen is still being composed. One
        that comes before the driver starts ends the run before it takes the terminal."""
        for signum in self.QUIT_SIGNALS:
            quit_ = functools.partial(self._quit_by_signal, signum)
            self._signals.enter_context(on_signals(quit_, (signum,)))

    def on_mount(self) -> None:
        processes = self.options.processes
        if isinstance(self._driver, TerminalDriver) and processes is not None:
            self._driver.before_last_resort = processes.end_all
        if self.keymap_problems:
            self.notify(
                "keymap entries not applied:\n" + "\n".join(self.keymap_problems),
                severity="error",
                timeout=15,
                markup=False,
            )
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
        if self.is_web:
            # Served by textual-serve: if the server dies without ending this process (it
            # was killed, or crashed), nothing else would, so it quits when orphaned.
            server = os.getppid()
            self.set_interval(SERVER_CHECK, lambda: self._quit_without(server))
        self._start_alerting()
        if self.source is not None:
            if self.options.processes is not None:
                self.options.processes.mark()
            self._source_task = asyncio.get_running_loop().create_task(
                self._run_source(self.source)
            )

    def _start_alerting(self) -> None:
        """The opt-in alerts: the bell, a notification, the command (see ``tui.alerting``)."""
        settings = self.options.alerts
        if settings is None or not settings.any:
            self.store.alerts.wanted = False  # no alert is ever taken: none is kept
            self.store.alerts.take()
            return
        command = None
        if self.options.alert_command is not None:  # built by the command that runs it
            self._alert_command = self.options.alert_command(self._alert_problem)
            command = self._alert_command.add
        self.alerting = Alerting(
            settings,
            bell=self.bell,
            toast=lambda text, bad: self.notify(
                text,
                title="envtui alert",
                severity="warning" if bad else "information",
                markup=False,
            ),
            write_terminal=self._write_terminal,
            command=command,
            tmux=bool(os.environ.get("TMUX")),
        )
        self.set_interval(ALERT_CHECK, self._deliver_alerts)

    def _deliver_alerts(self) -> None:
        if self.alerting is not None:
            self.alerting.deliver(self.store.alerts.take())

    def _alert_problem(self, message: str) -> None:
        """A failing alert command, said once in the log (never blocking the view)."""
        self.ingest(thread_event(WarningMessage(message=message), at=self.options.clock()))

    def _write_terminal(self, sequence: str) -> None:
        """An escape for the terminal itself (a desktop notification), as Textual writes
        its bell; not in a browser or a headless run."""
        driver = self._driver
        if driver is not None and not self.is_headless and not self.is_web:
            driver.write(sequence)

    def _quit_by_signal(self, signum: signal.Signals) -> None:
        """A SIGTERM or SIGHUP quits as ``q`` does; in a terminal, the process ends within
        seconds even if that clean way out gets stuck (a closed terminal sends no second
        signal), then with the status the signal gives."""
        if isinstance(self._driver, TerminalDriver):
            self._driver.end_within(status=128 + signum)
        self.exit()

    def on_terminal_closed(self, message: TerminalClosed) -> None:
        """The terminal went away: quit as a SIGHUP would."""
        self.exit()

    def on_threads_wanted(self) -> None:
        """``T``: the source's threads, each opened in a dashboard of its own."""
        if self.options.threads is not None:
            self.push_screen(ThreadListScreen(self.options, self.options.threads))

    def _quit_without(self, server: int) -> None:
        if os.getppid() != server:
            self.exit()

    async def _run_source(self, source: Source) -> None:
        try:
            await source(self.ingest, self._stop)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a source failure is a notice and a badge, never a crash
            self._source_is("down", f"stopped: {exc}")
            self.notify(f"the source stopped: {exc}", severity="error", timeout=15, markup=False)
        else:
            if not self._stop.is_set():
                self._source_is("ended")

    def _source_is(self, state: SourceState, reason: str | None = None) -> None:
        """The source as a whole ended or failed: a lasting mark in the header and a log line."""
        msg = SourceStatus(source=self.options.source_name, state=state, reason=reason)
        self.ingest(thread_event(msg, at=self.options.clock()))

    def ingest(self, event: Event) -> None:
        """Fold one event into the store; the screen draws it in its next frame."""
        self.store.apply(event)
        self._notify_on_error(event)
        if self.main_screen is not None:
            self.main_screen.request_frame()

    def operator_event(self, event: Event) -> None:
        """An event the operator caused (an acknowledgement): folded like the source's, and
        written to the recording, when there is one, so a replay shows it too."""
        self.ingest(event)
        record = getattr(self.source, "record", None)
        if callable(record):
            record(event)

    def _notify_on_error(self, event: Event) -> None:
        """A lasting notice for a warning of ``error`` severity: the source itself failed.

        Decided by the message's type and severity, never by its wording.
        """
        msg = event.msg
        if isinstance(msg, WarningMessage) and msg.severity == "error":
            self.notify(msg.message, severity="error", timeout=30, markup=False)

    async def on_unmount(self) -> None:
        self._signals.close()
        self._stop.set()
        if self._alert_command is not None:
            await self._alert_command.aclose()
        task = self._source_task
        if task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout=SOURCE_STOP_GRACE)
            except (TimeoutError, asyncio.CancelledError, Exception):
                task.cancel()
                # a bounded wait, so a cancelled source still runs its clean-up (a recording
                # closes its file) before the loop stops
                await asyncio.wait({task}, timeout=1)
            # what a source cut short could not end (an app-server still closing) goes now,
            # not at the interpreter's exit: a dashboard run in-process leaves nothing either
            if self.options.processes is not None:
                self.options.processes.end_new()
