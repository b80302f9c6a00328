"""A step as the dashboard keeps it, and as it exports it.

The store keeps the last thousand steps; each holds its full context text, the diff sent,
the snapshot and the patch, and the dashboard shows one step at a time. So a row keeps
those four compactly: one zlib-compressed JSON of them, shared with the step before when it
is the same (most steps change nothing), and expanded when a view or an export reads them.
A snapshot as Python dicts costs several times its JSON; compressed, a step's content is a
few hundred bytes, and a long run's memory stays flat once the history is full.
"""

from __future__ import annotations

import json
import sys
import zlib
from datetime import datetime
from typing import Any

from envtui.vocabulary.events import FindingReported
from envtui.vocabulary.terms import Severity

_Finding = tuple[str, Severity, str | None, str | None, str]
"""A finding of the step as kept: (code, severity, tool, environment_id, message); its
step is the row's. A tuple whose strings the incidents share, not a model per finding."""
_Content = tuple[str | None, str | None, dict[str, Any] | None, dict[str, Any] | None]
_EMPTY = zlib.compress(b"[null,null,null,null]")
"""The packed content of a step that has none (the context switch off): shared by all."""


def _intern(text: str | None) -> str | None:
    """One string for the same words while any row holds them (a rule's code and message
    come again at every step it raises); released with the last row that holds them."""
    return sys.intern(text) if text is not None else None


def pack(
    text: str | None,
    diff: str | None,
    snapshot: dict[str, Any] | None,
    patch: dict[str, Any] | None,
) -> bytes | _Content:
    """The four as compressed JSON; as they are when they are not JSON (kept, not lost)."""
    if text is None and diff is None and snapshot is None and patch is None:
        return _EMPTY
    try:
        data = json.dumps([text, diff, snapshot, patch], ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return (text, diff, snapshot, patch)
    return zlib.compress(data.encode("utf-8", "surrogatepass"), 6)


def unpack(packed: bytes | _Content) -> _Content:
    if not isinstance(packed, bytes):
        return packed
    text, diff, snapshot, patch = json.loads(
        zlib.decompress(packed).decode("utf-8", "surrogatepass")
    )
    return text, diff, snapshot, patch


def _text_of(snapshot: dict[str, Any] | None, key: str) -> str | None:
    value = (snapshot or {}).get(key)
    return sys.intern(value) if isinstance(value, str) else None


class StepRow:
    """One step as the dashboard keeps it: the store's row for a ``StepRecorded`` event.

    ``text``, ``diff``, ``snapshot`` and ``patch`` are expanded from the packed content at
    each read (a view reads the one step it shows). ``tools`` is flattened to ``(name,
    environment_id parameter)`` pairs, which is all the tools panel draws; the step's
    findings are added as they arrive (:meth:`add_finding`) and kept as plain tuples.
    """

    __slots__ = (
        "_findings",
        "_packed",
        "at",
        "current_date",
        "notes",
        "number",
        "thread",
        "timezone",
        "tools",
    )
    _findings: tuple[_Finding, ...]
    thread: str | None
    current_date: str | None
    """The date the model is told (the snapshot's), kept apart: the header reads it every
    second, and expanding the packed content for it each time would be the hot path."""
    timezone: str | None
    """The time zone the model is told (the snapshot's), kept apart as the date is."""
    _packed: bytes | _Content
    tools: list[tuple[str, str]] | None
    notes: list[str]

    def __init__(
        self,
        number: int,
        at: datetime | None,
        thread: str | None,
        text: str | None,
        diff: str | None,
        snapshot: dict[str, Any] | None,
        patch: dict[str, Any] | None,
        tools: list[tuple[str, str]] | None,
        notes: list[str],
        findings: list[FindingReported] | None = None,
        *,
        before: StepRow | None = None,
    ) -> None:
        """``before``: the step before, whose thread, content, tools and notes this one shares
        when they are the same (one copy in memory, not one per step)."""
        self.number = number
        self.at = at
        self.current_date = _text_of(snapshot, "current_date")
        self.timezone = _text_of(snapshot, "timezone")
        packed = pack(text, diff, snapshot, patch)
        if before is not None:
            thread = before.thread if thread == before.thread else thread
            packed = before._packed if packed == before._packed else packed
            tools = before.tools if tools == before.tools else tools
            notes = before.notes if notes == before.notes else notes
        self.thread = thread
        self._packed = packed
        self.tools = tools
        self.notes = notes
        self._findings = ()
        for finding in findings or ():
            self.add_finding(finding)

    def add_finding(self, finding: FindingReported) -> None:
        """One more finding of this step's check."""
        f, shared = finding, _intern
        kept = (sys.intern(f.code), f.severity, shared(f.tool), shared(f.environment_id))
        self._findings += ((*kept, sys.intern(f.message)),)

    @property
    def findings(self) -> list[FindingReported]:
        """The step's findings, in the order they came (made again at each read)."""
        return [
            FindingReported(
                code=code,
                severity=severity,
                step=self.number,
                tool=tool,
                environment_id=environment_id,
                message=message,
            )
            for code, severity, tool, environment_id, message in self._findings
        ]

    @property
    def content(self) -> _Content:
        """(text, diff, snapshot, patch), expanded: read once when several are wanted."""
        return unpack(self._packed)

    @property
    def text(self) -> str | None:
        return self.content[0]

    @property
    def diff(self) -> str | None:
        return self.content[1]

    @property
    def snapshot(self) -> dict[str, Any] | None:
        return self.content[2]

    @property
    def patch(self) -> dict[str, Any] | None:
        return self.content[3]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StepRow):
            return NotImplemented
        return (
            self.number,
            self.at,
            self.thread,
            self.content,
            self.tools,
            self.notes,
            self._findings,
        ) == (
            other.number,
            other.at,
            other.thread,
            other.content,
            other.tools,
            other.notes,
            other._findings,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable (its findings grow), as the dataclass was

    def __repr__(self) -> str:
        return f"StepRow(number={self.number!r}, at={self.at!r}, thread={self.thread!r})"


def step_export(step: StepRow) -> dict[str, Any]:
    """A step as the dashboard exports it: JSON-ready, the tools as objects again.

    Pure, so the export's content is tested without a screen; the screen writes the file.
    """
    text, diff, snapshot, patch = step.content
    return {
        "step": step.number,
        "thread": step.thread,
        "context": text,
        "diff": diff,
        "snapshot": snapshot,
        "patch": patch,
        "tools": [{"name": name, "environment_id": parameter} for name, parameter in step.tools]
        if step.tools is not None
        else None,
        "findings": [finding.model_dump(mode="json") for finding in step.findings],
    }
