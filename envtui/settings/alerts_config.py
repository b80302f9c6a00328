"""The config's ``[alerts]``: how an operator is told about incidents without watching.

Everything is off unless asked for: ``bell`` rings the terminal bell, ``notify`` shows a
toast and asks the terminal for a desktop notification (OSC 9 or OSC 777), ``command``
runs a program (no shell) with JSON on its standard input. Kept apart from
:mod:`envtui.settings.config` so each stays one readable size; the runtime is
:mod:`envtui.sources.alerts`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from envtui.vocabulary.validation import Seconds

CommandWord = Annotated[str, StringConstraints(min_length=1, max_length=4096)]


class AlertsConfig(BaseModel):
    """``[alerts]`` of the config; the command line's ``--bell``, ``--notify`` and
    ``--alert-command`` add to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bell: bool = False  # ring the terminal bell
    notify: bool = False  # a toast, and a desktop notification through the terminal
    notify_sequence: Literal["osc9", "osc777"] = "osc9"  # the escape the terminal knows
    command: Annotated[list[CommandWord], Field(max_length=256)] = []  # program and arguments
    timeout: Seconds = 10.0  # the command is ended after this many seconds
    coalesce: Seconds = 2.0  # alerts this close together go to one run of the command

    @property
    def any(self) -> bool:
        return self.bell or self.notify or bool(self.command)
