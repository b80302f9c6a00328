"""The parts of a dashboard run that do I/O, built here and handed to the app, which only
holds them: the alert command and the bookkeeping of the processes the run starts.

The dashboard (:mod:`envtui.tui`) imports no runtime and no source; what it needs of them
comes in its options (:class:`~envtui.tui.options.DashboardOptions`). The alert command is
built in this one place, for a terminal's dashboard and for ``envtui serve``'s server alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envtui.environments.processes import ProcessTree
    from envtui.settings.alerts_config import AlertsConfig
    from envtui.sources.alerts import AlertCommand
    from envtui.tui.options import AlertCommandFactory


def alert_command(settings: AlertsConfig, report: Callable[[str], None]) -> AlertCommand:
    """The command of ``settings`` (which names one), its problems said to ``report``."""
    from envtui.sources.alerts import AlertCommand

    return AlertCommand(
        settings.command, report, timeout=settings.timeout, coalesce=settings.coalesce
    )


def alert_command_for(settings: AlertsConfig | None) -> AlertCommandFactory | None:
    """How a dashboard builds its alert command, or None when ``settings`` names none."""
    if settings is None or not settings.command:
        return None
    return lambda report: alert_command(settings, report)


class RunProcesses:
    """The processes a dashboard's run started (see :mod:`envtui.environments.processes`):
    those started after :meth:`mark` end as it quits, so a dashboard run in-process (a
    served tab) leaves nothing; :meth:`end_all` is the last resort of a stuck quit."""

    def __init__(self) -> None:
        self._before: frozenset[ProcessTree] = frozenset()

    def mark(self) -> None:
        from envtui.environments.processes import started_trees

        self._before = frozenset(started_trees())

    def end_new(self) -> None:
        from envtui.environments.processes import end_started_since

        end_started_since(self._before)

    def end_all(self) -> None:
        from envtui.environments.processes import end_all_started

        end_all_started()
