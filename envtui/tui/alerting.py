"""Telling an operator who is not watching: the bell, a notification, the alert command.

The store queues what is worth an alert (:mod:`envtui.incidents.alert_items`); the app takes
the queue a few times a second, paused or not, and hands each batch here. A batch rings the
bell once, shows one toast and one desktop notification, and goes to the alert command
(built in ``commands/`` and handed in; it coalesces further and never blocks, see
``sources/alerts.py``). All are opt-in (``[alerts]``, ``--bell``, ``--notify``,
``--alert-command``).

The desktop notification is an escape sequence the terminal turns into one: OSC 9
(iTerm2, WezTerm, Ghostty, Windows Terminal) or OSC 777 (urxvt, foot, VTE terminals). Its
text comes from hosts and files, so it is made one inert line first: no escape, no BEL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from envtui.incidents.alert_items import Alert
from envtui.settings.alerts_config import AlertsConfig
from envtui.vocabulary.safe_text import one_line

ALARMING = frozenset({"incident_opened", "environment_unavailable", "request_pending"})
"""Alert kinds whose toast is a warning: something went wrong, or waits for the operator."""
SHOWN = 5
"""Alerts a toast lists by name; the rest are counted."""
NOTIFICATION_CHARS = 200


def notification_sequence(text: str, sequence: str, *, tmux: bool = False) -> str:
    """The escape that asks the terminal for a desktop notification of ``text``.

    Inside tmux it is wrapped for tmux to pass it on to the terminal (``DCS tmux;``, each ESC
    doubled), which tmux does when its ``allow-passthrough`` option is on.
    """
    body = one_line(text)[:NOTIFICATION_CHARS].replace(";", ",")
    if sequence == "osc777":
        osc = f"\x1b]777;notify;envtui;{body}\x07"
    else:
        osc = f"\x1b]9;envtui: {body}\x07"
    if tmux:
        return "\x1bPtmux;" + osc.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return osc


def toast_text(alerts: Sequence[Alert]) -> str:
    """A batch as a few lines (the caller makes them safe)."""
    lines = [a.summary() for a in alerts[:SHOWN]]
    if len(alerts) > SHOWN:
        lines.append(f"and {len(alerts) - SHOWN} more")
    return "\n".join(lines)


class Alerting:
    """Delivers batches of alerts the ways the settings ask for."""

    def __init__(
        self,
        settings: AlertsConfig,
        *,
        bell: Callable[[], None],
        toast: Callable[[str, bool], None],
        write_terminal: Callable[[str], None],
        command: Callable[[Sequence[Alert]], None] | None = None,
        tmux: bool = False,
    ) -> None:
        self.settings = settings
        self.tmux = tmux
        self._bell = bell
        self._toast = toast
        self._write = write_terminal
        self._command = command
        self.delivered = 0

    def deliver(self, alerts: Sequence[Alert]) -> None:
        if not alerts:
            return
        self.delivered += len(alerts)
        if self.settings.bell:
            self._bell()
        if self.settings.notify:
            bad = any(a.kind in ALARMING for a in alerts)
            text = toast_text(alerts)
            self._toast(text, bad)
            summary = alerts[0].summary() if len(alerts) == 1 else f"{len(alerts)} alerts: {text}"
            sequence = self.settings.notify_sequence
            self._write(notification_sequence(summary, sequence, tmux=self.tmux))
        if self._command is not None:
            self._command(alerts)
