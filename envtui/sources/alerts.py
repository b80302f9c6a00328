"""The alert command: a program run (never through a shell) for each burst of alerts.

An operator who is not watching wants to hear about a new incident, a resolution, a host
that went down or came back; a chat webhook behind ``curl`` is the usual end. Bursts are
common (a network blip takes several hosts down at once, and each raises an incident), so
alerts that arrive within ``coalesce`` seconds of the first go to one run, and runs are at
least ``coalesce`` seconds apart and never overlap: the command is rate-limited whatever
the stream does. The run reads one JSON object on its standard input::

    {"text": "…one line per alert…", "count": 2, "dropped": 0, "alerts": [{…}, {…}]}

``text`` makes the object a valid message for chat webhooks that take ``{"text": …}``;
``alerts`` holds each alert (:meth:`envtui.incidents.alert_items.Alert.as_json`). A run that
exits non-zero, cannot start or outlives ``timeout`` (then it and everything it started is
ended) is reported once through ``report``, and again only after a run has succeeded in
between; it never blocks the caller, who only calls :meth:`AlertCommand.add`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from envtui.environments.processes import ProcessTree
from envtui.incidents.alert_items import Alert
from envtui.vocabulary.safe_text import one_line
from envtui.vocabulary.stopping import cancel_and_wait, within

MAX_PER_RUN = 100
"""Alerts one run's JSON lists; beyond it they are counted in ``dropped``."""
MAX_PENDING = 1_000
STDERR_SHOWN = 200
"""Characters of a failing command's standard error that the report quotes."""


def batch_json(alerts: Sequence[Alert], dropped: int = 0) -> dict[str, Any]:
    """The object one run reads: the alerts, and their summaries as one text."""
    listed = list(alerts[:MAX_PER_RUN])
    dropped += len(alerts) - len(listed)
    lines = [a.summary() for a in listed]
    if dropped:
        lines.append(f"(and {dropped} more)")
    return {
        "text": "\n".join(lines),
        "count": len(listed),
        "dropped": dropped,
        "alerts": [a.as_json() for a in listed],
    }


class AlertCommand:
    """Runs ``command`` for bursts of alerts, one run at a time; see the module."""

    def __init__(
        self,
        command: Sequence[str],
        report: Callable[[str], None],
        *,
        timeout: float = 10.0,
        coalesce: float = 2.0,
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.coalesce = coalesce
        self.runs = 0
        """Runs started."""
        self.completed = 0
        """Runs whose outcome is known (succeeded, failed, ended)."""
        self.failures = 0
        self._report = report
        self._pending: list[Alert] = []
        self._dropped = 0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failing = False

    def add(self, alerts: Sequence[Alert]) -> None:
        """Queue alerts for the next run; returns at once (call from the event loop)."""
        if not alerts:
            return
        keys = {a.key for a in self._pending}
        for alert in alerts:
            if alert.key in keys and alert.kind.startswith("incident"):
                continue  # the same change of the same incident: once
            keys.add(alert.key)
            self._pending.append(alert)
        if len(self._pending) > MAX_PENDING:
            self._dropped += len(self._pending) - MAX_PENDING
            del self._pending[: len(self._pending) - MAX_PENDING]
        self._wake.set()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.coalesce)  # the rest of the burst joins this run
            self._wake.clear()
            batch, dropped = self._pending, self._dropped
            self._pending, self._dropped = [], 0
            await self._run(batch_json(batch, dropped))

    async def _run(self, payload: dict[str, Any]) -> None:
        """One run; its outcome is reported, never raised."""
        self.runs += 1
        data = (json.dumps(payload, ensure_ascii=False) + "\n").encode()
        try:
            problem = await self._spawn(data)
        except OSError as exc:
            problem = f"could not start: {exc.strerror or exc}"
        self.completed += 1
        if problem is None:
            self._failing = False
            return
        self.failures += 1
        if not self._failing:
            self._failing = True
            name = one_line(self.command[0])
            self._report(f"alert command {name} {problem} (said once until it works again)")

    async def _spawn(self, data: bytes) -> str | None:
        process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        tree = ProcessTree(process.pid)
        errors: list[bytes] = []

        async def talk() -> None:
            errors.append((await process.communicate(data))[1])

        try:
            if not await within(self.timeout, talk()):
                return f"timed out after {self.timeout:g} s and was ended"
        finally:
            tree.remember()
            tree.end()
            tree.forget()
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await within(1.0, process.wait())
            if process.stdin is not None:  # a write cut off by the timeout leaves it open
                process.stdin.close()
        if process.returncode != 0:
            said = one_line(b"".join(errors).decode(errors="replace").strip())[:STDERR_SHOWN]
            return f"exited with {process.returncode}" + (f": {said}" if said else "")
        return None

    async def aclose(self) -> None:
        """Stop: a run under way is ended with everything it started."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
