"""How ``envtui check`` writes its report while it checks: one step at a time.

Text: one line per finding on standard output as soon as it is found, then the notes and
a summary, on standard output too: the report is what ``check > report.txt`` keeps.
JSON: ``{"steps", "findings", "incidents", "notes", "rollout"}`` on one line, written as
it goes; the findings, which come after every step in that object, wait in a spooled
temporary file (memory up to a megabyte, disk after), so a long rollout never has to be
held in memory (they go there in writes of 64 KB). For the JSON, the findings are folded
into incidents as the steps come (:mod:`envtui.incidents.fold`, the dashboard's fold),
which keeps at most its bound of them; the text lists no incidents.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from functools import lru_cache
from typing import IO, Any

from envtui.commands.output import OutputError
from envtui.incidents.fold import IncidentFold
from envtui.steps.report import CheckReport, StepReport
from envtui.steps.values import Finding
from envtui.vocabulary.safe_text import dumps_json_line, for_terminal, one_line

SPOOL_BYTES = 1 << 20
HELD_CHARACTERS = 1 << 16
"""How much of the findings' JSON is held before it goes to the spool in one write."""


def finding_line(f: Finding) -> str:
    step = f"step {f.step}" if f.step is not None else "thread"
    return f"{step}: {f.code}: {f.tool or '-'}: {f.environment_id or '-'}: {f.message}"


@lru_cache(maxsize=64)
def _codes_json(codes: tuple[str, ...]) -> str:
    """A step's finding codes as JSON: the same few lists come at step after step."""
    return dumps_json_line(list(codes))


def _step_json(report: StepReport) -> str:
    """A step's JSON; most steps sent nothing and have no notes, and are written directly."""
    if report.context is None and not report.notes:
        line = "null" if report.line is None else str(report.line)
        codes = _codes_json(tuple(f.code for f in report.findings)) if report.findings else "[]"
        return (
            f'{{"step":{report.number},"turn":{report.turn},"line":{line},'
            f'"context":null,"findings":{codes},"notes":[]}}'
        )
    return dumps_json_line(report.as_json())


def _reporting_failures(write: Callable[[str], object]) -> Callable[[str], object]:
    """``write``, with a failure to write (a full disk, ``/dev/full``) said as standard
    output's, never as the rollout's (whose reading is also guarded for ``OSError``); a
    reader that went away stays a BrokenPipeError, which the command line handles."""

    def guarded(text: str) -> object:
        try:
            return write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"standard output: cannot write: {exc.strerror or exc}") from None

    return guarded


class ReportWriter:
    """Writes step reports as they come, and the rest at :meth:`finish`."""

    def __init__(self, *, as_json: bool, out: IO[str] | None = None) -> None:
        self.as_json = as_json
        self.out = out if out is not None else sys.stdout
        self._write = _reporting_failures(self.out.write)
        self.steps = 0
        self.findings = 0
        self.incidents = IncidentFold(messages=False) if as_json else None
        """The findings folded into incidents, for the JSON (the text does not list them)."""
        self._held: list[str] = []  # findings' JSON on its way to the spool
        self._held_size = 0
        self._spool: IO[str] | None = None
        self._terminal = self.out.isatty()
        self._begun = False
        if as_json:
            self._spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115 (closed by finish)
                SPOOL_BYTES, mode="w+", encoding="utf-8"
            )

    def _begin(self) -> None:
        """The JSON's opening, written with the first step: a file found to be no rollout
        before any step leaves standard output empty."""
        if self.as_json and not self._begun:
            self._write('{"steps":[')
        self._begun = True

    def step(self, report: StepReport) -> None:
        self._begin()
        if self.as_json:
            self._write(("," if self.steps else "") + _step_json(report))
        self.steps += 1
        if self.incidents is not None:
            self.incidents.step(report.number, None, report.unchecked, len(report.findings))
        self._findings(report.findings)

    def finding(self, f: Finding) -> None:
        """A finding of the whole thread, after the steps."""
        self._findings([f])

    def _findings(self, found: list[Finding]) -> None:
        if not found:
            return
        if self.incidents is not None:
            for f in found:
                self.incidents.finding(f, None)  # read as it is, as its event would be
        if self._spool is not None:
            # a step's findings' JSON made in one go: the array's items, without its brackets
            text = dumps_json_line([f.as_json() for f in found])[1:-1]
            text = ("," if self.findings else "") + text
            self._held.append(text)
            self._held_size += len(text)
            if self._held_size >= HELD_CHARACTERS:
                self._spool_held(self._spool)
        else:
            for f in found:
                line = finding_line(f) + "\n"
                self._write(for_terminal(line) if self._terminal else line)
        self.findings += len(found)

    def _spool_held(self, spool: IO[str]) -> None:
        spool.write("".join(self._held))
        self._held, self._held_size = [], 0

    def finish(self, notes: list[str], rollout: dict[str, Any] | None) -> None:
        self._begin()
        if self._spool is not None and self.incidents is not None:
            self.incidents.settle()
            self._spool_held(self._spool)
            self._write('],"findings":[')
            self._spool.seek(0)
            while chunk := self._spool.read(SPOOL_BYTES):
                self._write(chunk)
            self._spool.close()
            incidents = sorted(self.incidents.incidents(), key=lambda i: i.number)
            tail: dict[str, Any] = {"incidents": [i.as_json() for i in incidents], "notes": notes}
            if rollout is not None:
                tail["rollout"] = rollout
            self._write("]," + dumps_json_line(tail)[1:] + "\n")
            return
        for note in notes:
            self._line(f"note: {note}")
        self._line(f"{self.findings} finding(s) in {self.steps} step(s)")

    def _line(self, text: str) -> None:
        """One line of the text report: on the report's output (``check > report.txt``
        holds all of it), one line escaped whatever the text holds (a note quotes the file)."""
        self._write(one_line(text) + "\n")

    def report(self, report: CheckReport) -> None:
        """A report made whole (the engine's steps): written the same way."""
        for step in report.steps:
            self.step(step)
        for f in report.findings:
            if f.step is None:  # a finding of the whole thread
                self.finding(f)
        self.finish(report.notes, report.rollout)
